"""A mail server outside our control that refuses on cue: Django's locmem backend (mails land
in `mail.outbox`) behind the refusals a test queues, each raised as smtplib raises it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from django.core.mail.backends.locmem import EmailBackend


class FlakyBackend(EmailBackend):
    refusals: ClassVar[list[Exception]] = []

    def send_messages(self, messages: Sequence[Any]) -> int:
        if FlakyBackend.refusals:
            raise FlakyBackend.refusals.pop(0)
        return super().send_messages(messages)
