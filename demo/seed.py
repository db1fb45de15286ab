"""Demo data for development, demos and black-box tests (`manage.py seed_demo`).

The shape is an operational contract (CONTRACT.md "seed_demo"): four teams, four users, eight
keys and one sandbox account per platform and team, plus an expired X account in `acme`.
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from accounts.models import AccountStatus, Platform, SocialAccount
from accounts.services import account_sandbox_check
from sandbox import tokens as sandbox_tokens
from sandbox.platforms.bluesky import did_for as bluesky_did_for
from teams import services
from teams.models import SCOPES, ApiKey, Membership, Plan, Role, Team

# The tag of the persistent demo set that runs without --fresh reuse.
PERSISTENT_TAG = "demo"
DEMO_PASSWORD = "demo-password"  # noqa: S105 - demo users only; seed_demo refuses to run in production
PINTEREST_BOARD_ID = "549755885175"

# key name -> (user, team, scopes); None scopes = all of them
_KEYS: dict[str, tuple[str, str, tuple[str, ...] | None]] = {
    "acme_owner": ("owner", "acme", None),
    "acme_readonly": ("owner", "acme", ("posts:read", "accounts:read")),
    "review_owner": ("owner", "review", None),
    "review_admin": ("admin", "review", None),
    "review_member": ("member", "review", None),
    "quota_owner": ("other", "quota", None),
    "other_owner": ("other", "other", None),
}
# team slug -> (name stem, owner, approval_required)
_TEAMS = {
    "acme": ("Acme", "owner", False),
    "review": ("Acme Review", "owner", True),
    "quota": ("Quota", "other", False),
    "other": ("Other", "other", False),
}


@dataclass
class DemoData:
    tag: str
    users: dict[str, User] = field(default_factory=dict)
    teams: dict[str, Team] = field(default_factory=dict)
    accounts: dict[str, dict[str, SocialAccount]] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "sandbox_url": settings.SANDBOX_URL,
            "teams": {
                slug: {"id": str(team.pk), "name": team.name, "approval_required": team.approval_required}
                for slug, team in self.teams.items()
            },
            "keys": self.keys,
            "accounts": {
                slug: {name: str(account.pk) for name, account in accounts.items()}
                for slug, accounts in self.accounts.items()
            },
        }


def _plans() -> dict[str, Plan]:
    unlimited = services.plan_default()
    quota, _ = Plan.objects.update_or_create(
        code="demo-quota", defaults={"name": "Demo quota (2 posts a month)", "posts_per_month": 2}
    )
    return {"acme": unlimited, "review": unlimited, "quota": quota, "other": unlimited}


def _user(username: str, *, staff: bool) -> User:
    user, created = User.objects.get_or_create(
        username=username, defaults={"email": f"{username}@example.com", "is_staff": staff, "is_superuser": staff}
    )
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save(update_fields=["password"])
    return user


def _team(slug: str, data: DemoData, plans: dict[str, Plan]) -> Team:
    stem, owner_name, approval_required = _TEAMS[slug]
    name = f"{stem} {data.tag}"
    owner = data.users[owner_name]
    existing = Team.objects.filter(name=name, memberships__user=owner, memberships__role=Role.OWNER).first()
    if existing is not None:
        return existing
    return services.team_create(name=name, owner=owner, plan=plans[slug], approval_required=approval_required)


def sandbox_account(
    team: Team, platform: str, *, suffix: str = "", status: str = AccountStatus.ACTIVE
) -> SocialAccount:
    """An account connected to the sandbox, with tokens the sandbox accepts (refuses when expired)."""
    account_sandbox_check(sandbox=True)  # development only, like seed_demo
    external_id = f"{platform}-{team.pk.hex[:12]}{suffix}"
    handle = f"{team.name.lower().replace(' ', '_')}_{platform}{suffix}"
    if platform == Platform.BLUESKY:
        # A Bluesky handle is a hostname and the account id a DID (the sandbox derives it).
        stem = slugify(team.name).replace("_", "-")[:30].strip("-") or "team"
        handle = f"{stem}-{team.pk.hex[:8]}{suffix.replace('_', '-')}.bsky.social"
        external_id = bluesky_did_for(handle)
    lifetime = -3600 if status == AccountStatus.EXPIRED else 60 * 86400
    metadata: dict[str, Any] = {}
    if platform == Platform.PINTEREST:
        metadata["boards"] = [{"id": PINTEREST_BOARD_ID, "name": "Demo board"}]
    account, _ = SocialAccount.objects.get_or_create(
        team=team,
        platform=platform,
        external_id=external_id,
        defaults={
            "handle": handle,
            "display_name": f"{team.name} on {Platform(platform).label}",
            "status": status,
            "status_reason": "The platform refused the token; re-authorize in the dashboard." if suffix else "",
            # Tokens the sandbox accepts for this account; the expired account's is refused.
            "access_token": sandbox_tokens.issue(platform, external_id, lifetime_seconds=lifetime),
            "refresh_token": sandbox_tokens.issue(platform, external_id, lifetime_seconds=90 * 86400, kind="sbr"),
            "token_expires_at": timezone.now() + dt.timedelta(seconds=lifetime),
            "sandbox": True,
            "metadata": metadata,
        },
    )
    return account


@transaction.atomic
def seed(*, fresh: bool, with_keys: bool = True) -> DemoData:
    """Create (or, without `fresh`, reuse) the demo data, and new keys for it every time
    (unless `with_keys` is off: `data.keys` is then empty)."""
    tag = secrets.token_hex(4) if fresh else PERSISTENT_TAG
    data = DemoData(tag=tag)
    suffix = "" if tag == PERSISTENT_TAG else f"_{tag}"
    for name in ("owner", "admin", "member", "other"):
        data.users[name] = _user(f"{name}{suffix}", staff=name == "owner")
    plans = _plans()
    for slug in _TEAMS:
        data.teams[slug] = _team(slug, data, plans)
    review = data.teams["review"]
    for name, role in (("admin", Role.ADMIN), ("member", Role.MEMBER)):
        Membership.objects.get_or_create(team=review, user=data.users[name], defaults={"role": role})
    for user_name, slug in (("owner", "acme"), ("other", "other")):
        if not Membership.objects.filter(user=data.users[user_name], is_default=True).exists():
            services.team_set_default(user=data.users[user_name], team=data.teams[slug])
    for slug, team in data.teams.items():
        data.accounts[slug] = {platform: sandbox_account(team, platform) for platform in Platform.values}
    data.accounts["acme"]["x_expired"] = sandbox_account(
        data.teams["acme"], Platform.X, suffix="_expired", status=AccountStatus.EXPIRED
    )
    if not with_keys:
        return data
    for key_name, (user_name, slug, scopes) in _KEYS.items():
        _, plaintext = services.api_key_create(
            user=data.users[user_name], name=f"demo {key_name}", scopes=scopes or SCOPES, team=data.teams[slug]
        )
        data.keys[key_name] = plaintext
    _, data.keys["owner_user"] = services.api_key_create(
        user=data.users["owner"], name="demo owner_user", scopes=SCOPES, active_team=data.teams["acme"]
    )
    data.keys = {name: data.keys[name] for name in (*_KEYS, "owner_user")}
    return data


WELCOME_KEY_NAME = "demo make run"


def welcome_key(data: DemoData) -> str:
    """A new all-scope key of the owner for the Acme team; the one the last start printed is
    revoked, so restarts do not pile keys up."""
    owner, acme = data.users["owner"], data.teams["acme"]
    for old in ApiKey.objects.filter(user=owner, team=acme, name=WELCOME_KEY_NAME, revoked_at__isnull=True):
        services.api_key_revoke(api_key=old)
    _, plaintext = services.api_key_create(user=owner, name=WELCOME_KEY_NAME, scopes=SCOPES, team=acme)
    return plaintext


def welcome_text(data: DemoData, key: str) -> str:
    """What a developer needs to start: the dashboard and its three logins, the admin, the API
    with a demo key, and the sandbox's webhook inbox."""
    base, sandbox = settings.PUBLIC_BASE_URL, settings.SANDBOX_URL
    owner, admin, member = (data.users[name].get_username() for name in ("owner", "admin", "member"))
    return (
        f"Ready (demo data tag {data.tag}).\n"
        f"  Dashboard:     {base}/\n"
        f"  Logins:        {owner!r} (owns {data.teams['acme'].name!r} and {data.teams['review'].name!r}), "
        f"{admin!r} (admin of {data.teams['review'].name!r}), {member!r} (member of it); "
        f"password {DEMO_PASSWORD!r} for each\n"
        f"  Admin:         {base}/admin/  ({owner!r} is staff)\n"
        f"  API docs:      {base}/api/v1/docs\n"
        f"  Demo API key:  {key}  (team {data.teams['acme'].name!r}, all scopes)\n"
        f"  Try:           curl -H 'Authorization: Bearer {key}' {base}/api/v1/accounts\n"
        f"  Webhook inbox: {sandbox}/_sandbox/inbox/dev  (use it as a webhook's URL; open it to see deliveries)\n"
    )
