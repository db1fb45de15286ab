"""Dashboard pages of publishing, one module per page: `lists` (publishes, approvals),
`compose`, `csv_import` (many publishes from a CSV file), `calendar` and `detail` (one publish
and its actions)."""

from __future__ import annotations

from django.http import HttpRequest

from publishing import inputs
from teams.dashboard import can_manage, signed_in_user
from teams.models import Membership


def dashboard_caller(request: HttpRequest, membership: Membership) -> inputs.Caller:
    """The signed-in user as the lifecycle sees them: no key, and an approver when their role
    in the team is owner or admin."""
    return inputs.Caller(user=signed_in_user(request), can_approve=can_manage(membership))
