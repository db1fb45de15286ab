"""Each platform's `platform_settings` as a JSON Schema (draft 2020-12), and the same schema
with an account's live options folded in.

The properties mirror what each client reads: the keys of its `setting_types` (the schema's
types are those types or fewer: a JSON null a client reads as "missing" is left out where the
key is required), the enums and bounds its `validate()` enforces, taken from the client
modules' own constants so the two cannot say different things. `fit_media` is the service's
own key, read before any client sees the post, so every platform's schema has it. Keys that
are not listed are ignored by the service (spec §2), hence `additionalProperties: true`.

Live options make a form right for one account: TikTok's creator info narrows `privacy_level`
to the levels the creator is offered and fixes the interaction switches the creator turned
off; Pinterest's boards and YouTube's assignable categories become the choices of `boardId`
and `category_id` (`oneOf` of `const` + `title`, and the plain `enum` for simpler readers).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from accounts.platforms import facebook, linkedin, pinterest, threads, tiktok, youtube
from accounts.platforms import tiktok_payloads as tiktok_modes
from accounts.platforms.interface import COMMENT
from accounts.platforms.limits import limits_for
from accounts.platforms.registry import client_for

DIALECT = "https://json-schema.org/draft/2020-12/schema"
Schema = dict[str, Any]


def _string(description: str, **bounds: Any) -> Schema:
    return {"type": "string", "description": description, **bounds}


def _flag(description: str, default: bool) -> Schema:
    return {"type": "boolean", "description": description, "default": default}


def _choice(description: str, choices: Sequence[str], default: str | None = None) -> Schema:
    schema: Schema = {"type": "string", "enum": list(choices), "description": description}
    return schema if default is None else {**schema, "default": default}


_URL = {"format": "uri", "pattern": "^https?://"}
_POST_ID = {"pattern": "^[0-9]{1,19}$"}
_AT_REF: Schema = {
    "type": "object",
    "required": ["uri", "cid"],
    "properties": {"uri": {"type": "string", "pattern": "^at://"}, "cid": {"type": "string", "minLength": 1}},
}

# The service's own keys: read by publishing, whatever the platform.
SERVICE_PROPERTIES: dict[str, Schema] = {
    "fit_media": _flag("Make a fitted rendition when the platform cannot take a file as it is.", True),
}

PROPERTIES: dict[str, dict[str, Schema]] = {
    "x": {
        "reply_to": _string("The id of the post this one replies to.", **_POST_ID),
        "quote_tweet": _string("The id of the post this one quotes; X takes no media with a quote.", **_POST_ID),
        "sensitive": _flag("Mark the attached media as sensitive.", False),
        "for_super_followers_only": _flag("Only super followers see the post.", False),
    },
    "linkedin": {
        "title": _string("The title shown on a single image or a video."),
        "visibility": _choice("Who sees the post.", tuple(linkedin.VISIBILITY), "PUBLIC"),
        "target_audience": {
            "type": "object",
            "description": "LinkedIn targeting facets, each a list of URNs.",
            "minProperties": 1,
            "propertyNames": {"enum": sorted(linkedin.TARGET_FACETS)},
            "additionalProperties": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        },
    },
    "facebook": {"postType": _choice("A feed post, or a reel (one video).", facebook.POST_TYPES, "post")},
    "instagram": {},
    "threads": {
        "link_attachment": _string("A link preview for a text post.", **_URL),
        "topic_tag": _string(
            "The post's topic, without '.' or '&'.", minLength=1, maxLength=threads.MAX_TOPIC_TAG, pattern="^[^.&]+$"
        ),
    },
    "bluesky": {
        "reply": {
            "type": "object",
            "description": "The post this one replies to: the thread's root and the direct parent.",
            "required": ["root", "parent"],
            "properties": {"root": _AT_REF, "parent": _AT_REF},
        },
        "embed": {
            "type": "object",
            "description": "A link card; a post has either a link card or media.",
            "required": ["external"],
            "properties": {
                "external": {
                    "type": "object",
                    "required": ["uri", "title", "description"],
                    "properties": {
                        "uri": {"type": "string", **_URL},
                        "title": {"type": "string"},
                        "description": {"type": "string"},
                    },
                }
            },
        },
    },
    "pinterest": {
        "boardId": _string("The board the pin goes to.", pattern="^[0-9]+$"),
        "title": _string("The pin's title.", maxLength=limits_for("pinterest").title.max_length),
        "link": _string("Where the pin leads.", maxLength=pinterest.MAX_LINK, **_URL),
        "note": _string("A private note on the pin."),
        "alt_text": _string("The image's description for screen readers.", maxLength=pinterest.MAX_ALT_TEXT),
        "cover_image_key_frame_time": {
            "type": "number",
            "minimum": 0,
            "description": "The second of a video pin shown as its cover.",
        },
        "per_account": {
            "type": "object",
            "description": "Settings for one account of a multi-account publish, by account id.",
            "additionalProperties": {"type": "object"},
        },
    },
    "youtube": {
        "title": _string("The video's title; no < or >.", minLength=1, maxLength=youtube.TITLE_MAX, pattern="^[^<>]*$"),
        "privacyStatus": _choice("Who can watch the video.", youtube.PRIVACY, "public"),
        "category_id": {
            "type": ["string", "integer"],
            "pattern": "^[0-9]+$",
            "minimum": 1,
            "description": "The video's category (a YouTube category id); People & Blogs unless set.",
            "default": youtube.DEFAULT_CATEGORY,
        },
        "default_language": _string(
            "The language of the title and description (BCP-47).", pattern=f"^{youtube.LANGUAGE_PATTERN}$"
        ),
        "default_audio_language": _string(
            "The language spoken in the video (BCP-47).", pattern=f"^{youtube.LANGUAGE_PATTERN}$"
        ),
        "tags": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "pattern": "^[^<>]*$"},
            "description": f"Keywords; at most {youtube.TAGS_MAX} characters in all.",
        },
        "madeForKids": _flag(
            "The video is made for children (the audience every upload declares).", youtube.DEFAULT_MADE_FOR_KIDS
        ),
    },
    "tiktok": {
        "tiktok_post_mode": _choice(
            "Publish at once, or send to the creator's inbox to finish in the app.",
            tiktok_modes.POST_MODES,
            "DIRECT_POST",
        ),
        "title": _string("A photo post's title.", maxLength=tiktok.PHOTO_TITLE_MAX),
        "privacy_level": _choice("Who can see the post.", tiktok.PRIVACY_LEVELS, "SELF_ONLY"),
        "allows_comments": _flag("Viewers may comment.", True),
        "allows_duet": _flag("Viewers may duet the video (videos only).", True),
        "allows_stitch": _flag("Viewers may stitch the video (videos only).", True),
        "brand_content_toggle": _flag("A paid partnership promoting another brand.", False),
        "brand_organic_toggle": _flag("Promotes the creator's own business.", False),
        "auto_add_music": _flag("TikTok adds music (photo posts only).", False),
    },
}

REQUIRED: dict[str, tuple[str, ...]] = {"pinterest": ("boardId",), "youtube": ("title",)}


def settings_schema(platform: str) -> Schema:
    """The platform's platform_settings schema, without any account's live options."""
    return {
        "$schema": DIALECT,
        "title": f"{platform} platform_settings",
        "type": "object",
        "properties": copy.deepcopy({**PROPERTIES[platform], **_first_comment(platform), **SERVICE_PROPERTIES}),
        "required": list(REQUIRED.get(platform, ())),
        "additionalProperties": True,
    }


def _first_comment(platform: str) -> dict[str, Schema]:
    """`first_comment` where the platform can comment, bounded as the client checks it."""
    client = client_for(platform)
    if client.first_comment is None:
        return {}
    if client.first_comment == COMMENT:
        text, limit = "Posted as a comment by the account on the post, once it is published.", client.comment_max_length
    else:
        text, limit = (
            "Posted as a reply by the same account, once the post is published.",
            client.limits.text.max_length,
        )
    bounds = {"minLength": 1, "pattern": "\\S"} | ({"maxLength": limit} if limit else {})
    return {"first_comment": _string(text, **bounds)}


# --- live options -------------------------------------------------------------------------------


def _choices(schema: Schema, choices: Sequence[Mapping[str, str]]) -> None:
    """Narrow a property to `choices` ({id, name}), each with its name as title."""
    if not choices:
        return
    schema.pop("pattern", None)
    schema.pop("minimum", None)
    schema["type"] = "string"
    schema["enum"] = [c["id"] for c in choices]
    schema["oneOf"] = [{"const": c["id"], "title": c["name"]} for c in choices]
    if schema.get("default") not in schema["enum"]:  # a default the account cannot choose says nothing
        schema.pop("default", None)


# TikTok's creator_info flags, by the setting each one switches off.
INTERACTION_FLAGS = {
    "allows_comments": "comment_disabled",
    "allows_duet": "duet_disabled",
    "allows_stitch": "stitch_disabled",
}


def _tiktok(properties: dict[str, Schema], options: Mapping[str, Any]) -> None:
    offered = [level for level in options.get("privacy_level_options") or () if level in tiktok.PRIVACY_LEVELS]
    if offered:
        properties["privacy_level"]["enum"] = offered
        if properties["privacy_level"].get("default") not in offered:
            properties["privacy_level"].pop("default", None)
    for key, flag in INTERACTION_FLAGS.items():
        if options.get(flag) is True:
            properties[key].update(const=False, default=False, readOnly=True)
            properties[key]["description"] += " The creator has switched this off."


def _pinterest(properties: dict[str, Schema], options: Mapping[str, Any]) -> None:
    _choices(properties["boardId"], options.get("boards") or ())


def _youtube(properties: dict[str, Schema], options: Mapping[str, Any]) -> None:
    _choices(properties["category_id"], options.get("categories") or ())


FOLDS: dict[str, Callable[[dict[str, Schema], Mapping[str, Any]], None]] = {
    "tiktok": _tiktok,
    "pinterest": _pinterest,
    "youtube": _youtube,
}


def live_schema(platform: str, options: Mapping[str, Any]) -> Schema:
    """The platform's schema narrowed by an account's live options (as its client's
    `options()` answers them); the static schema when there are none."""
    schema = settings_schema(platform)
    fold = FOLDS.get(platform)
    if fold is not None and options:
        fold(schema["properties"], options)
    return schema
