"""Thin Celery tasks for connected accounts."""

from __future__ import annotations

from celery import shared_task

from accounts import services


@shared_task(name="accounts.refresh_tokens", soft_time_limit=540, time_limit=600)
def refresh_tokens() -> int:
    return services.accounts_refresh_due()


@shared_task(name="accounts.warn_expiring", soft_time_limit=540, time_limit=600)
def warn_expiring() -> int:
    return services.accounts_warn_expiring()
