"""Which refusals of the mail server are worth trying again.

SMTP says so itself: a 4xx reply is a temporary refusal (greylisting, a full queue), a 5xx
one permanent (no such mailbox, refused as spam). A connection that drops, times out or is
refused is the network's hiccup. Anything else (a malformed address) would fail the same way
next time.
"""

from __future__ import annotations

import smtplib

# The network between us and the server, not the mail.
_TRANSIENT_TYPES = (smtplib.SMTPServerDisconnected, TimeoutError, ConnectionError)


class TransientMailError(Exception):
    """The mail server could not take a mail now; the task tries again later."""


def is_transient(exc: BaseException) -> bool:
    if isinstance(exc, smtplib.SMTPResponseException):  # the connect, sender, data replies
        return 400 <= exc.smtp_code < 500
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return all(400 <= code < 500 for code, _ in exc.recipients.values())
    return isinstance(exc, _TRANSIENT_TYPES)
