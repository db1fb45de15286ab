"""The compose form as data: the platform settings each target offers (one table, spec §2), the
form's fields turned into the body of POST /api/v1/publishes, and the API's problems put back
next to the fields they concern.

Field names: `content`, `media_ids` (one hidden input per confirmed upload), `account` (one
checkbox per target), `scheduled_at` (datetime-local, read in the team's time zone) and, per account,
`t-<account id>-content` (its own text, blank to inherit), `t-<account id>-no-text` (ticked
with a blank text: an empty text of its own, not the post's), `t-<account id>-media-own` with
`t-<account id>-media` (its own media) and `t-<account id>-<setting key>`. Each media item
has `media-alt-<media id>`, its alt text: a property of the upload, not of the post, saved
onto it when the form is sent (`compose.save_alt_texts`).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import QueryDict
from rest_framework import serializers

from accounts.models import AccountStatus, SocialAccount
from accounts.platforms import facebook, linkedin, tiktok, tiktok_payloads, youtube
from accounts.platforms.limits import limits_for
from config.datetime_input import utc_moment
from config.errors import ApplicationError
from config.sentences import matching, sentences
from media.models import MediaUpload
from publishing.models import ThreadItem

Kind = Literal["text", "url", "textarea", "select", "board", "tags", "bool"]


@dataclass(frozen=True)
class Setting:
    """One platform_settings key as an input. A `bool` is a checkbox that starts at `default`,
    what the platform does when the key is not sent; it is sent only when it differs."""

    key: str
    label: str
    kind: Kind = "text"
    choices: tuple[str, ...] = ()
    hint: str = ""
    default: bool = False


def _flag(key: str, label: str, *, default: bool = False, hint: str = "") -> Setting:
    return Setting(key, label, "bool", hint=hint, default=default)


# A first comment: a reply by the same account where replies are posts, else a comment.
_REPLY_COMMENT = Setting("first_comment", "First comment", "textarea", hint="Your reply, once the post is out.")
_COMMENT = Setting("first_comment", "First comment", "textarea", hint="Your comment, once the post is out.")
# The choices come from the platform clients, which refuse any other value.
SETTINGS: dict[str, tuple[Setting, ...]] = {
    "x": (
        Setting("reply_to", "Reply to post (id)", hint="The numeric id of the post this replies to."),
        Setting("quote_tweet", "Quote post (id)", hint="X does not take media together with a quote."),
        _flag("sensitive", "Mark the media as sensitive"),
        _flag("for_super_followers_only", "For super followers only"),
        _REPLY_COMMENT,
    ),
    "linkedin": (
        Setting("title", "Title"),
        Setting("visibility", "Visibility", "select", tuple(linkedin.VISIBILITY), hint="Default: PUBLIC."),
        _COMMENT,
    ),
    "facebook": (Setting("postType", "Post type", "select", facebook.POST_TYPES, hint="Default: post."), _COMMENT),
    "instagram": (_COMMENT,),
    "threads": (
        Setting("link_attachment", "Link attachment", "url"),
        Setting("topic_tag", "Topic tag"),
        _REPLY_COMMENT,
    ),
    "bluesky": (_REPLY_COMMENT,),
    "pinterest": (
        Setting("boardId", "Board", "board", hint="Required: the board the pin goes to."),
        Setting("title", "Title"),
        Setting("link", "Link", "url"),
        Setting("note", "Note"),
        Setting("alt_text", "Alt text", hint="Blank: the image's own alt text (its first 500 characters)."),
    ),
    "youtube": (
        Setting("title", "Title", hint="Required for a video."),
        Setting("privacyStatus", "Privacy", "select", youtube.PRIVACY),
        Setting("category_id", "Category id"),
        Setting("tags", "Tags", "tags", hint="Separate tags with commas."),
        _flag("madeForKids", "Made for kids"),
        _COMMENT,
    ),
    "tiktok": (
        Setting("tiktok_post_mode", "Post mode", "select", tiktok_payloads.POST_MODES, hint="Default: DIRECT_POST."),
        Setting("title", "Title", hint="Photo posts only, at most 90 characters."),
        Setting("privacy_level", "Privacy level", "select", tiktok.PRIVACY_LEVELS, hint="Default: SELF_ONLY."),
        _flag("allows_comments", "Allow comments", default=True),
        _flag("allows_duet", "Allow duets", default=True, hint="Videos only."),
        _flag("allows_stitch", "Allow stitches", default=True, hint="Videos only."),
        _flag("brand_content_toggle", "Branded content (a paid partnership)"),
        _flag("brand_organic_toggle", "Promotes your own brand"),
        _flag("auto_add_music", "Add music automatically", hint="Photos only."),
    ),
}


def name_of(account_id: str, key: str) -> str:
    return f"t-{account_id}-{key}"


def alt_name(media_id: str) -> str:
    return f"media-alt-{media_id}"


def alt_texts_of(data: QueryDict) -> dict[str, str]:
    """The alt text typed for each of the form's media, by media id (only those with a field)."""
    # Browsers send a textarea's line breaks as CRLF: stored as LF, and counted once, as typed.
    return {
        i: data.get(alt_name(i), "").replace("\r\n", "\n") for i in data.getlist("media_ids") if alt_name(i) in data
    }


# --- the form, read ----------------------------------------------------------------------------


def scheduled_at_of(data: QueryDict) -> str | dt.datetime | None:
    """The datetime-local value (the team's wall-clock time) as a UTC time; anything that is no
    time as typed, for the serializer to refuse in its own words. A time out of range, or one
    the team's zone skips, is refused here, as a problem of the field (serializers.ValidationError)."""
    raw = data.get("scheduled_at", "").strip()
    if not raw:
        return None
    try:
        return utc_moment(raw, malformed=raw)
    except DjangoValidationError as exc:
        if exc.code == "invalid":
            return raw
        raise serializers.ValidationError({"scheduled_at": exc.messages}) from None


def create_body(data: QueryDict, platforms: Mapping[str, str], *, with_time: bool = True) -> dict[str, Any]:
    """The body of POST /api/v1/publishes the form holds (without publish_mode): `platforms`
    maps each of the team's accounts to its platform, for the settings it offers. Without
    `with_time` the time field is left out, whatever it holds ("Publish now" means now)."""
    body: dict[str, Any] = {
        "content": data.get("content", ""),
        "media_ids": [i for i in data.getlist("media_ids") if i],
        "targets": [
            _target_body(data, account_id, platforms.get(account_id)) for account_id in data.getlist("account")
        ],
    }
    if with_time and (moment := scheduled_at_of(data)) is not None:
        body["scheduled_at"] = moment
    return body


def _target_body(data: QueryDict, account_id: str, platform: str | None) -> dict[str, Any]:
    target: dict[str, Any] = {"account_id": account_id}
    if text := data.get(name_of(account_id, "content"), ""):
        target["content"] = text
    elif data.get(name_of(account_id, "no-text")):
        target["content"] = ""  # an empty text of its own: null would send the post's
    if data.get(name_of(account_id, "media-own")):
        target["media_ids"] = [i for i in data.getlist(name_of(account_id, "media")) if i]
    settings = settings_of(data, account_id, platform)
    if settings:
        target["platform_settings"] = settings
    return target


def settings_of(data: QueryDict, account_id: str, platform: str | None) -> dict[str, Any]:
    values = {}
    for setting in SETTINGS.get(platform or "", ()):
        value = _value(data, name_of(account_id, setting.key), setting)
        if value is not None:
            values[setting.key] = value
    return values


def _value(data: QueryDict, name: str, setting: Setting) -> Any:
    if setting.kind == "bool":
        checked = bool(data.get(name))
        return None if checked == setting.default else checked
    raw = data.get(name, "").strip()
    if setting.kind == "tags":
        return [tag.strip() for tag in raw.split(",") if tag.strip()] or None
    return raw or None


# --- problems, in words, next to their fields ----------------------------------------------------

GENERAL = "general"  # a problem of no one field

# What an account that can no longer publish says, chosen: on the edit page, beside an account
# the publish goes to; after a refused save, in place of the API's "re-authorize" message.
RECONNECT = "@{handle} needs reconnecting: reconnect it or untick it before saving."
# The API's messages in the dashboard's words (config.sentences). The compose form's own:
# `kind` is a media type's subtype, named as people name files; `max_mb` the upload limit.
SENTENCES = sentences(
    (
        "scheduled_at",
        r"scheduled_at must be in the future\.",
        "That time has already passed: pick one in the future.",
    ),
    ("scheduled_at", r"scheduled_at is required\.", "Pick the date and time to schedule the post for."),
    (
        "publish_mode",
        r"^(?P<account>.+) has no posting schedule slots",
        "{account} has no posting schedule yet: set its slots, or pick a time.",
    ),
    (
        "publish_mode",
        r"No posting schedule slot in the next year is free",
        "No posting schedule slot in the next year is free on every chosen account: pick a time.",
    ),
    ("scheduled_at", r"Datetime has wrong format", "That is not a date and time: pick one with the date picker."),
    (
        "targets",
        r"This list may not be empty\.|At least one target is required\.",
        "Choose at least one account to post to.",
    ),
    ("media_ids", r"Must be a valid UUID\.", "One of the media could not be found: remove it and upload it again."),
    (
        "content_type",
        r"Unsupported content type (?:\w+/(?P<kind>[\w.+-]+))?\.",
        "{kind} cannot be posted: use a PNG, JPEG, WebP or GIF image, or an MP4 or MOV video.",
    ),
    ("size_bytes", r"less than or equal to", "The file is too large: each file can be at most {max_mb} MB."),
    (
        None,  # the account's own field, or the live check's `account_id`
        r"the \w+ account (?P<handle>\S+) is (?:expired|disabled|disconnected); (?:re-authorize|connect)",
        RECONNECT,
    ),
    (None, r"This field may not be blank\.|This field is required\.", "Fill this in."),
    (
        None,  # the create's 409 in a team that refuses duplicate posts
        r"already got the same text within (?P<hours>\d+) hours",
        "This account already got the same text within {hours} hours, and this team refuses duplicate posts: "
        "change the text or untick the account.",
    ),
)

_SETTING_LABELS = {s.key: s.label for offered in SETTINGS.values() for s in offered}
# A file's kind as people name it, where its media type's name differs (text/plain is a .txt).
_FILE_KINDS = {"plain": "TXT", "svg+xml": "SVG", "quicktime": "MOV", "msword": "DOC"}


def in_words(field_name: str, message: str) -> str:
    """The dashboard's sentence for the API's `message` about `field_name`, or the message
    itself when it is already one."""
    if field_name != GENERAL and (found := matching(SENTENCES, field_name, message)):
        text, groups = found
        kind = groups.get("kind", "").removeprefix("x-")
        kind = _FILE_KINDS.get(kind, kind.upper())
        named = f"{kind} files" if kind else "Files of this kind"
        return text.format_map({**groups, "kind": named, "max_mb": settings.MEDIA_MAX_BYTES // (1024 * 1024)})
    # A platform names its setting by key ("reply_to must be a post id"): the form by its label.
    if (label := _SETTING_LABELS.get(field_name)) and message.startswith(f"{field_name} "):
        return label + message[len(field_name) :]
    return message


def check_in_words(check: dict[str, Any]) -> dict[str, Any]:
    """A live check's result (`checks.CreateCheck.as_dict()`) with its messages in words."""

    def spoken(problems: list[dict[str, str]]) -> list[dict[str, str]]:
        return [{**p, "message": in_words(p["field"], p["message"])} for p in problems]

    targets = [{**t, "problems": spoken(t["problems"])} for t in check["targets"]]
    return {**check, "problems": spoken(check["problems"]), "targets": targets}


TOP_FIELDS = frozenset({"content", "media_ids", "targets", "scheduled_at", "publish_mode"})


@dataclass
class Problems:
    """Messages by field: `top` for the request's own fields (and GENERAL), `targets` by
    account id and then by field: `text`, `media`, `account`, a setting key or GENERAL;
    `alt_texts` by media id, for the alt text fields."""

    top: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    targets: dict[str, dict[str, list[str]]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(list)))
    alt_texts: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))

    def __bool__(self) -> bool:
        found = any(self.top.values()) or any(self.alt_texts.values())
        return found or any(m for by_field in self.targets.values() for m in by_field.values())

    def add_top(self, field_name: str, message: str) -> None:
        self.top[field_name if field_name in TOP_FIELDS else GENERAL].append(in_words(field_name, message))

    def add_alt_text(self, media_id: str, message: str) -> None:
        self.alt_texts[media_id].append(message)

    def add_target(self, account_id: str, field_name: str, message: str) -> None:
        self.targets[account_id][target_field(field_name)].append(in_words(target_field(field_name), message))

    def shown_on(self, account_ids: Collection[str]) -> Problems:
        """These problems with those of accounts the page does not show (another team's, a
        disconnected one) moved to the accounts' list, where they can be seen."""
        for account_id in [a for a in self.targets if a not in account_ids]:
            for messages in self.targets.pop(account_id).values():
                self.top["targets"].extend(messages)
        return self


def target_field(field_name: str) -> str:
    """Where a target's problem is shown: `media[2]` by the media, `content` (a serializer's
    name for the text) by the text, anything else by its own input."""
    base = field_name.split("[", 1)[0]
    return {"content": "text", "media_ids": "media", "account_id": "account"}.get(base, base)


def problems_of_error(exc: ApplicationError, account_ids: Sequence[str]) -> Problems:
    """An ApplicationError of the lifecycle as the form shows it: each target's problems
    (`details.targets`), the account refused (`details.target`), or the field it names."""
    problems, details = Problems(), exc.details or {}
    for entry in details.get("targets") or ():
        for problem in entry.get("problems", ()):
            problems.add_target(str(entry["account_id"]), problem["field"], problem["message"])
    if "target" in details and details.get("account_id") in account_ids:
        problems.add_target(str(details["account_id"]), "account", exc.message)
    elif "media_ids" in details:
        problems.add_top("media_ids", exc.message)
    elif not details.get("targets"):
        problems.add_top(str(details.get("field", GENERAL)), exc.message)
    return problems


def problems_of_serializer(detail: Any, account_ids: Sequence[str]) -> Problems:
    """A serializer's errors (DRF's detail tree, flattened to strings) next to their fields."""
    problems = Problems()
    for name, errors in (detail if isinstance(detail, dict) else {GENERAL: detail}).items():
        if name == "targets" and isinstance(errors, list) and len(errors) == len(account_ids):
            for account_id, entry in zip(account_ids, errors, strict=True):
                for key, messages in (entry or {}).items():
                    for message in _messages(messages):
                        problems.add_target(account_id, key, message)
        else:
            for message in _messages(errors):
                problems.add_top(name, message)
    return problems


def _messages(errors: Any) -> list[str]:
    if isinstance(errors, dict):
        return [m for value in errors.values() for m in _messages(value)]
    if isinstance(errors, list):
        return [m for value in errors for m in _messages(value)]
    return [str(errors)]


def as_check(problems: Problems, account_ids: Sequence[str]) -> dict[str, Any]:
    """Problems in the shape of `checks.CreateCheck.as_dict()`, for the page's live check."""

    def listed(by_field: Mapping[str, list[str]]) -> list[dict[str, str]]:
        return [{"field": f, "code": "VALIDATION_ERROR", "message": m} for f, ms in by_field.items() for m in ms]

    targets = [{"account_id": a, "problems": listed(problems.targets.get(a, {}))} for a in account_ids]
    return {"ok": False, "problems": listed(problems.top), "targets": targets}


# --- the form, drawn ---------------------------------------------------------------------------


@dataclass
class Input:
    """One setting's input as drawn: its name (also its id), the value or checked state shown
    and its problems."""

    setting: Setting
    name: str
    value: str = ""
    checked: bool = False
    choices: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@dataclass
class TargetForm:
    """One account in the form: whether it is chosen, its own text and media, its inputs, the
    problems that belong to none of them, and the thread that follows its post (shown, not
    edited here)."""

    account: SocialAccount
    limit: int | None
    selected: bool = False
    content: str = ""
    no_text: bool = False
    media_own: bool = False
    media: list[str] = field(default_factory=list)
    inputs: list[Input] = field(default_factory=list)
    problems: dict[str, list[str]] = field(default_factory=dict)
    thread: Sequence[ThreadItem] = ()

    @property
    def pk(self) -> str:
        return str(self.account.pk)

    @property
    def usable(self) -> bool:
        return self.account.status == AccountStatus.ACTIVE

    @property
    def stranded(self) -> bool:
        """Chosen, but its account can no longer publish: shown ticked with a warning, so that
        it is unticked on purpose rather than dropped unseen."""
        return self.selected and not self.usable

    @property
    def text_state(self) -> str:
        if self.content:
            return "Its own text"
        return "No text: its own text is empty" if self.no_text else "Same as the main text"

    @property
    def text_problems(self) -> list[str]:
        return self.problems.get("text", [])

    @property
    def media_problems(self) -> list[str]:
        return self.problems.get("media", [])

    @property
    def other_problems(self) -> list[str]:
        """The account's own (expired, not this team's) and those of no input on the page."""
        found = [m for key, found in self.problems.items() if key not in ("text", "media") for m in found]
        if self.stranded and not found:
            return [RECONNECT.format(handle=self.account.handle or self.account.external_id)]
        return found


def target_forms(
    accounts: Iterable[SocialAccount],
    data: QueryDict | None,
    problems: Problems | None = None,
    threads: Mapping[str, Sequence[ThreadItem]] | None = None,
) -> list[TargetForm]:
    """Every account's part of the form, as first shown (`data` None) or as the user sent it;
    `threads` by account id are those of a stored publish's targets."""
    chosen = set(data.getlist("account")) if data is not None else set()
    shown = problems or Problems()
    forms = [_target_form(account, data, str(account.pk) in chosen, shown) for account in accounts]
    for target in forms:
        target.thread = (threads or {}).get(target.pk, ())
    return forms


def _target_form(account: SocialAccount, data: QueryDict | None, selected: bool, problems: Problems) -> TargetForm:
    pk = str(account.pk)
    own = dict(problems.targets.get(pk, {}))
    form = TargetForm(account, limits_for(account.platform).text.max_length, selected=selected)
    if data is not None:
        form.content = data.get(name_of(pk, "content"), "")
        form.no_text = bool(data.get(name_of(pk, "no-text")))
        form.media_own = bool(data.get(name_of(pk, "media-own")))
        form.media = data.getlist(name_of(pk, "media"))
    for setting in SETTINGS.get(account.platform, ()):
        form.inputs.append(_input(account, setting, data, own.pop(setting.key, [])))
    form.problems = own
    return form


def _input(account: SocialAccount, setting: Setting, data: QueryDict | None, problems: list[str]) -> Input:
    name = name_of(str(account.pk), setting.key)
    shown = Input(setting, name, problems=problems, choices=[(c, c) for c in setting.choices])
    if setting.kind == "board":
        boards = account.metadata.get("boards") if isinstance(account.metadata, dict) else None
        shown.choices = [(str(b.get("id")), str(b.get("name") or b.get("id"))) for b in boards or [] if b.get("id")]
    if setting.kind == "bool":
        shown.checked = bool(data.get(name)) if data is not None else setting.default
    elif data is not None:
        shown.value = data.get(name, "")
    return shown


@dataclass(frozen=True)
class MediaItem:
    """A confirmed upload already in the form (shown again after a refused submit), with the
    alt text its field shows and why that text was refused, if it was."""

    id: str
    filename: str
    content_type: str
    preview_url: str
    alt_text: str = ""
    alt_problem: str = ""

    @property
    def is_video(self) -> bool:
        return self.content_type.startswith("video/")

    @property
    def alt_name(self) -> str:
        return alt_name(self.id)


def media_items(
    uploads: Iterable[MediaUpload],
    preview_url: Callable[[MediaUpload], str],
    typed: Mapping[str, str] | None = None,
    problems: Problems | None = None,
) -> list[MediaItem]:
    """The form's media as drawn: each with the alt text `typed` for it, else the upload's own."""
    typed, refused = typed or {}, problems.alt_texts if problems else {}
    return [
        MediaItem(
            str(u.pk),
            u.filename,
            u.content_type,
            preview_url(u),
            alt_text=typed.get(str(u.pk), u.alt_text),
            alt_problem=" ".join(refused.get(str(u.pk), ())),
        )
        for u in uploads
    ]
