"""What each mail says and who gets it, read from what happened: a publish event's own data
(the targets' outcomes as they were when it was recorded) or an expired account.

- approval requested: the team's owners and admins, not the author themselves;
- approved or rejected (with the reason): the author;
- failed or partial (which accounts failed, with the platform's words): the author;
- an account needs reconnecting: the team's owner.

The author is the user who made the post, in the dashboard or with their API key (a team key
included); a post whose author is gone sends only the team-wide kinds. Each person gets their
own mail, only for kinds they have not turned off, and only with an email address.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.template.loader import render_to_string
from django.urls import reverse

from accounts.models import SocialAccount
from notifications.models import Kind
from notifications.selectors import recipients
from publishing.models import Publish
from teams.models import Role, Team
from webhooks.models import Event

EXCERPT_LENGTH = 200


@dataclass(frozen=True)
class Mail:
    kind: Kind
    team: Team
    user: User
    object_id: str
    occurrence: str
    subject: str
    body: str


def kind_of(event: Event) -> Kind | None:
    """The kind of mail an event causes, if any: a published post causes none, nor do the
    account events (an expiry is mailed once, through `services.account_expired`)."""
    status = event.data.get("status") if isinstance(event.data, Mapping) else None
    if event.type == "post.pending_approval":
        return Kind.APPROVAL_REQUESTED
    if event.type in ("post.approved", "post.rejected"):
        return Kind.APPROVAL_DECIDED
    if event.type == "post.failed" or (event.type == "post.published" and status == "partial"):
        return Kind.DELIVERY_FAILED
    return None


def for_event(event: Event) -> list[Mail]:
    kind = kind_of(event)
    publish = _publish_of(event)
    if kind is None or publish is None:
        return []
    if kind == Kind.APPROVAL_REQUESTED:
        people = recipients(team=event.team, kind=kind, roles=(Role.OWNER, Role.ADMIN), excluding=publish.created_by_id)
    elif publish.created_by_id is None:
        return []
    else:
        people = recipients(team=event.team, kind=kind, only=publish.created_by_id)
    context = _publish_context(event, publish)
    return [_mail(kind, event.team, user, str(publish.pk), str(event.pk), context) for user in people]


def for_expired_account(account: SocialAccount, *, occurrence: str) -> list[Mail]:
    kind = Kind.ACCOUNT_NEEDS_RECONNECT
    people = recipients(team=account.team, kind=kind, roles=(Role.OWNER,))
    context = {"account": account, "link": _link(reverse("dashboard"), account.team)}
    return [_mail(kind, account.team, user, str(account.pk), occurrence, context) for user in people]


# --- reading what happened ---------------------------------------------------------------------


def _publish_of(event: Event) -> Publish | None:
    try:
        publish_id = uuid.UUID(str(event.data.get("publish_id")))
    except ValueError:
        return None
    return Publish.objects.select_related("created_by").filter(team=event.team_id, pk=publish_id).first()


def _publish_context(event: Event, publish: Publish) -> dict[str, Any]:
    targets = _targets(event.team, event.data.get("targets") or [])
    content = " ".join(publish.content.split())
    return {
        "event": event.type,
        "publish": publish,
        "author": publish.created_by.get_username() if publish.created_by else "Someone using an API key",
        "excerpt": content[:EXCERPT_LENGTH] + ("…" if len(content) > EXCERPT_LENGTH else ""),
        "targets": targets,
        "failed": [t for t in targets if t["status"] == "failed"],
        "partial": event.data.get("status") == "partial",
        "decided_by": (event.data.get("approved_by") or event.data.get("rejected_by") or {}).get("username", ""),
        "reason": event.data.get("reason") or "",
        "link": _link(reverse("dashboard-publish", args=[publish.pk]), event.team),
    }


def _targets(team: Team, rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The event's targets with their accounts' names, in the order the event has them."""
    accounts = SocialAccount.objects.filter(team=team).in_bulk([r["account_id"] for r in rows if _is_uuid(r)])
    return [
        {
            "account": str(accounts.get(uuid.UUID(r["account_id"]), r.get("platform", ""))),
            "status": r.get("status"),
            "error": r.get("error_message") or "",
        }
        for r in rows
        if _is_uuid(r)
    ]


def _is_uuid(row: Mapping[str, Any]) -> bool:
    try:
        uuid.UUID(str(row.get("account_id")))
    except ValueError:
        return False
    return True


# --- writing -----------------------------------------------------------------------------------


SUBJECTS = {
    "post.pending_approval": "A post waits for your approval",
    "post.approved": "Your post was approved",
    "post.rejected": "Your post was rejected",
    "post.failed": "Your post failed",
    "post.published": "Your post failed on some accounts",
}


def _subject(kind: Kind, context: Mapping[str, Any]) -> str:
    if kind == Kind.ACCOUNT_NEEDS_RECONNECT:
        return f"Reconnect {context['account']}"
    return SUBJECTS[context["event"]]


def _mail(kind: Kind, team: Team, user: User, object_id: str, occurrence: str, context: dict[str, Any]) -> Mail:
    team_name = " ".join(team.name.split())  # a header holds no line breaks
    full = {
        **context,
        "team_name": team_name,
        "user": user,
        "preferences": _link(reverse("settings-notifications"), team),
    }
    subject = f"[{team_name[:60]}] {_subject(kind, context)}"
    body = render_to_string(f"notifications/{kind.value}.txt", full)
    return Mail(kind, team, user, object_id, occurrence, " ".join(subject.split())[:200], body)


def _link(path: str, team: Team) -> str:
    return f"{str(settings.PUBLIC_BASE_URL).rstrip('/')}{path}?team={team.pk}"
