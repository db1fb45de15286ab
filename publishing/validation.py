"""Checks of a publish's targets before anything is stored or sent: the accounts, the media
and, per target, the effective post as the platform client sees it (spec §4 rule 3)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from accounts.errors import SandboxUnavailable
from accounts.models import AccountStatus, SocialAccount
from accounts.platforms import pinterest
from accounts.platforms.base import Media, Post, Problem
from accounts.platforms.registry import NoClient, client_for
from accounts.services import account_sandbox_check
from config.errors import InvalidRequest, Unprocessable
from media.models import MediaUpload
from media.selectors import media_pull_url, media_refusal, open_media, ready_media_by_ids
from publishing import statements
from publishing.models import Publish, Target, ThreadItem, ThreadItemKind
from teams.models import Team

MAX_TARGETS = 50
MAX_MEDIA = 20
# Threads (a target's later posts, each replying to the one before): where they go, how long.
THREAD_PLATFORMS = frozenset({"x", "bluesky", "threads"})
MAX_THREAD_ITEMS = 25


def accounts_by_id(
    *, team: Team, account_ids: Sequence[str], known: Mapping[str, SocialAccount] | None = None
) -> dict[str, SocialAccount]:
    """The team's accounts for `account_ids`; 400 when one is absent, another team's, or
    cannot publish (expired or disabled). `known`: the team's accounts a batch read once
    (`team_accounts`), by id, instead of a query."""
    found, refusals = accounts_checked(team=team, account_ids=account_ids, known=known)
    if refusals:
        raise next(iter(refusals.values()))  # the first target's
    return found


def accounts_checked(
    *, team: Team, account_ids: Sequence[str], known: Mapping[str, SocialAccount] | None = None
) -> tuple[dict[str, SocialAccount], dict[int, InvalidRequest]]:
    """The team's accounts for `account_ids`, and by target index the 400 of each one that
    cannot be published to, in target order (`accounts_by_id` raises the first; a check of
    a whole request reports them all). An account named twice is a 400 at once."""
    if len(set(account_ids)) != len(account_ids):
        raise InvalidRequest("Each account may appear in only one target.", code="DUPLICATE_TARGET")
    if known is None:
        found = _team_accounts(team, account_ids)
    else:
        found = {account_id: known[account_id] for account_id in account_ids if account_id in known}
    refusals = {}
    for index, account_id in enumerate(account_ids):
        if refusal := _refusal(index, account_id, found.get(account_id)):
            refusals[index] = refusal
    return found, refusals


def _refusal(index: int, account_id: str, account: SocialAccount | None) -> InvalidRequest | None:
    where = {"target": index, "account_id": account_id}
    if account is None:
        return InvalidRequest(
            f"targets[{index}]: no such account in this team.", code="ACCOUNT_NOT_FOUND", details=where
        )
    if account.status != AccountStatus.ACTIVE:
        gone = account.status == AccountStatus.DISCONNECTED
        then = "connect it again" if gone else "re-authorize it in the dashboard"
        return InvalidRequest(
            f"targets[{index}]: the {account.platform} account {account.handle or account_id} is "
            f"{account.status}; {then} first.",
            code=f"ACCOUNT_{account.status.upper()}",
            details=where,
        )
    try:
        account_sandbox_check(sandbox=account.sandbox)
    except SandboxUnavailable as exc:
        return InvalidRequest(f"targets[{index}]: {exc.message}", code=exc.code, details=where)
    return None


def team_accounts(team: Team, account_ids: Iterable[str]) -> dict[str, SocialAccount]:
    """The team's accounts among `account_ids`, by id (those that exist; none checked)."""
    return _team_accounts(team, list(dict.fromkeys(account_ids)))


def _team_accounts(team: Team, account_ids: Sequence[str]) -> dict[str, SocialAccount]:
    if statements.enabled():
        return statements.team_accounts(team.pk, account_ids)
    # The tokens are not needed to validate, and reading them costs a decryption each.
    accounts = SocialAccount.objects.filter(team=team, pk__in=list(account_ids)).defer("access_token", "refresh_token")
    return {str(a.pk): a for a in accounts}


def uploads_by_id(*, team: Team, media_ids: Iterable[str], hold: bool = False) -> dict[str, MediaUpload]:
    """The team's ready uploads; 400 naming any id that is not one. `hold` keeps them locked
    until the transaction commits (see `ready_media_by_ids`)."""
    wanted = list(dict.fromkeys(media_ids))
    if not wanted:
        return {}
    found, missing = ready_media_by_ids(team=team, media_ids=wanted, hold=hold)
    if missing:
        raise InvalidRequest(
            "media_ids must be ids of confirmed uploads of this team: " + ", ".join(missing),
            code="MEDIA_NOT_FOUND",
            details={"media_ids": missing},
        )
    return {str(upload.pk): upload for upload in found}


def as_media(upload: MediaUpload, *, fit: bool = True) -> Media:
    """The upload as a client sees it: the sniff's facts, and ffprobe's once its probe is done."""
    return Media(
        id=str(upload.pk),
        content_type=upload.content_type,
        size_bytes=upload.size_bytes or 0,
        width=upload.width,
        height=upload.height,
        duration_seconds=upload.duration_seconds,
        open=lambda: open_media(upload),
        pull_url=lambda: media_pull_url(upload),
        container=upload.container,
        video_codec=upload.video_codec,
        audio_codec=upload.audio_codec,
        frame_rate=upload.frame_rate,
        refusal=media_refusal(upload),
        fit=fit,
        alt=upload.alt_text,
    )


def effective_settings(account: SocialAccount, settings: Mapping[str, Any]) -> dict[str, Any]:
    if account.platform == "pinterest":
        return pinterest.resolve_settings(settings, str(account.pk))
    return {key: value for key, value in settings.items() if key != "per_account"}


def effective_post(
    *,
    account: SocialAccount,
    text: str,
    media_ids: Sequence[str],
    settings: Mapping[str, Any],
    uploads: Mapping[str, MediaUpload],
) -> Post:
    return Post(
        text=text,
        media=[as_media(uploads[i], fit=settings.get("fit_media") is not False) for i in media_ids],
        settings=effective_settings(account, settings),
    )


def check_targets(
    publish: Publish,
    targets: Sequence[Target],
    *,
    accounts: Mapping[str, SocialAccount],
    unsupported_media_is_422: bool,
) -> None:
    """Validate each target's effective post, and its thread's items, with its platform client.
    Called in the transaction that stores the result: the uploads named stay locked until it
    commits, so none is deleted under a publish that names it."""
    posts = effective_posts_with_threads(publish, targets, accounts=accounts, hold_media=True)
    found = [(index, account, problems_of(account, post, thread)) for index, account, post, thread in posts]
    raise_for_problems(found, unsupported_media_is_422=unsupported_media_is_422)


def effective_posts(
    publish: Publish, targets: Sequence[Target], *, accounts: Mapping[str, SocialAccount]
) -> list[tuple[int, SocialAccount, Post]]:
    """(index, account, post) per target: the post its platform client would be given, the
    target's own content and media where it has them, else the publish's. 400 when a media
    id is not a ready upload of the team."""
    found = effective_posts_with_threads(publish, targets, accounts=accounts)
    return [(index, account, post) for index, account, post, _ in found]


def effective_posts_with_threads(
    publish: Publish, targets: Sequence[Target], *, accounts: Mapping[str, SocialAccount], hold_media: bool = False
) -> list[tuple[int, SocialAccount, Post, list[Post]]]:
    """`effective_posts`, with each target's thread items as posts (their own text and media
    only: an item inherits nothing)."""
    threads = [thread_of(target) for target in targets]
    wanted = list(publish.media_ids) + [i for t in targets for i in (t.media_ids or [])]
    wanted += [i for items in threads for item in items for i in item.media_ids]
    uploads = uploads_by_id(team=publish.team, media_ids=wanted, hold=hold_media)
    posts = []
    for index, (target, items) in enumerate(zip(targets, threads, strict=True)):
        account = accounts[str(target.account_id)]
        post = effective_post(
            account=account,
            text=publish.content if target.content is None else target.content,
            media_ids=publish.media_ids if target.media_ids is None else target.media_ids,
            settings=target.platform_settings,
            uploads=uploads,
        )
        fit = target.platform_settings.get("fit_media") is not False
        thread = [item_post(account=account, item=item, uploads=uploads, fit=fit) for item in items]
        posts.append((index, account, post, thread))
    return posts


def thread_of(target: Target) -> list[ThreadItem]:
    """The target's thread items: the ones given with it, else the stored ones."""
    if target.thread is not None:
        return target.thread
    if target._state.adding:
        return []
    items = ThreadItem.objects.filter(target_id=target.pk).exclude(kind=ThreadItemKind.REMOVAL)
    return list(items.order_by("position"))


def item_post(
    *, account: SocialAccount, item: ThreadItem, uploads: Mapping[str, MediaUpload], fit: bool = True
) -> Post:
    """A thread item as its platform client sees it: its own text and media, no settings but
    its target's `fit_media` (whether renditions may stand in for its files)."""
    settings = {} if fit else {"fit_media": False}
    return effective_post(
        account=account, text=item.content, media_ids=item.media_ids, settings=settings, uploads=uploads
    )


def problems_of(account: SocialAccount, post: Post, thread: Sequence[Post] = ()) -> list[Problem]:
    """What keeps the post, and each of its thread's items (`thread[j].<field>`), from the
    account's platform."""
    try:
        client = client_for(account.platform)
    except NoClient:
        return [Problem("platform", "PLATFORM_UNSUPPORTED", f"Publishing to {account.platform} is not available.")]
    return client.problems(post) + thread_problems(account, post, thread)


# The settings that make a target's own post a reply: its thread would then hang off someone
# else's conversation, whose first post the read-back of a lost item could not name.
_REPLY_SETTINGS = ("reply_to", "reply")


def thread_problems(account: SocialAccount, post: Post, thread: Sequence[Post]) -> list[Problem]:
    if not thread:
        return []
    if account.platform not in THREAD_PLATFORMS:
        names = ", ".join(sorted(THREAD_PLATFORMS))
        return [Problem("thread", "THREAD_UNSUPPORTED", f"Threads go to {names} only, not {account.platform}.")]
    if any(key in post.settings for key in _REPLY_SETTINGS):
        message = "A thread starts at the target's own post, which cannot itself be a reply (reply_to, reply)."
        return [Problem("thread", "INVALID_COMBINATION", message)]
    if len(thread) > MAX_THREAD_ITEMS:
        return [Problem("thread", "THREAD_TOO_LONG", f"A thread takes at most {MAX_THREAD_ITEMS} items.")]
    client = client_for(account.platform)
    return [
        Problem(f"thread[{j}].{p.field}", p.code, f"thread[{j}]: {p.message}")
        for j, post in enumerate(thread)
        for p in client.problems(post)
    ]


def raise_for_problems(
    found: list[tuple[int, SocialAccount, list[Problem]]], *, unsupported_media_is_422: bool
) -> None:
    """400 naming each target and its problems; 422 instead when every problem is media the
    platform does not take (PATCH and retry, spec §4)."""
    found = [(index, account, problems) for index, account, problems in found if problems]
    if not found:
        return
    details = {
        "targets": [
            {
                "index": index,
                "account_id": str(account.pk),
                "platform": account.platform,
                "problems": [{"field": p.field, "code": p.code, "message": p.message} for p in problems],
            }
            for index, account, problems in found
        ]
    }
    index, account, problems = found[0]
    first = problems[0]
    message = f"targets[{index}] ({account.platform}): {first.message}"
    all_media = all(p.field.startswith("media") for _, _, ps in found for p in ps)
    if unsupported_media_is_422 and all_media:
        raise Unprocessable(message, code=first.code, details=details)
    raise InvalidRequest(message, code=first.code, details=details)
