"""The compose form as an edit of a publish: the form's fields filled from what the publish
holds, and the form read back as the body of PATCH /api/v1/publishes/{id} (and its time).

The form says "blank: the post's text" (or, ticked "no text", an empty text of its own) and
"media of my own, or the post's", so each target of the body gives its text and media
explicitly (null to inherit): the PATCH keeps a target's field only when it is left out.
Settings the form has no input for (set through the API) and a target's thread, which the form
only shows, are kept as they are.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from django.http import QueryDict
from django.utils import timezone

from publishing.models import Publish, Target
from publishing.views import compose_form as form

DATETIME_LOCAL = "%Y-%m-%dT%H:%M"


def form_data(publish: Publish, targets: list[Target]) -> QueryDict:
    """The form's fields as `publish` fills them. A target's own media not among the post's
    are added to the post's list, so they can be ticked; every target that sent the post's
    media then ticks those, so that each still sends what it sent."""
    data = QueryDict(mutable=True)
    data["content"] = publish.content
    if publish.scheduled_at:
        data["scheduled_at"] = timezone.localtime(publish.scheduled_at).strftime(DATETIME_LOCAL)  # the team's zone
    post_media = [str(i) for i in publish.media_ids]
    own = [str(i) for t in targets for i in t.media_ids or () if str(i) not in post_media]
    data.setlist("media_ids", list(dict.fromkeys(post_media + own)))
    for target in targets:
        account_id = str(target.account_id)
        data.appendlist("account", account_id)
        data[form.name_of(account_id, "content")] = target.content or ""
        if target.content == "":  # its own text, empty: not the post's
            data[form.name_of(account_id, "no-text")] = "on"
        if target.media_ids is not None or own:
            data[form.name_of(account_id, "media-own")] = "on"
            media = post_media if target.media_ids is None else [str(i) for i in target.media_ids]
            data.setlist(form.name_of(account_id, "media"), media)
        _fill_settings(data, account_id, target)
    return data


def _fill_settings(data: QueryDict, account_id: str, target: Target) -> None:
    stored = target.platform_settings or {}
    for setting in form.SETTINGS.get(target.platform, ()):
        name, value = form.name_of(account_id, setting.key), stored.get(setting.key)
        if setting.kind == "bool":
            if setting.default if value is None else bool(value):
                data[name] = "on"
        elif isinstance(value, list):
            data[name] = ", ".join(str(v) for v in value)
        elif value is not None:
            data[name] = str(value)


def update_body(data: QueryDict, platforms: Mapping[str, str], stored: Mapping[str, Target]) -> dict[str, Any]:
    """The PATCH body the form holds, with its time as typed (`scheduled_at`, null when blank);
    `stored` are the publish's targets by account id."""
    body = form.create_body(data, platforms, with_time=False)
    body["content"] = _lf(body["content"])
    body["scheduled_at"] = form.scheduled_at_of(data)
    for target in body["targets"]:
        target["content"] = _lf(target["content"]) if "content" in target else None
        target.setdefault("media_ids", None)
        kept = stored.get(target["account_id"])
        known = {s.key for s in form.SETTINGS.get(platforms.get(target["account_id"], ""), ())}
        other = {k: v for k, v in (kept.platform_settings if kept else {}).items() if k not in known}
        target["platform_settings"] = {**other, **target.get("platform_settings", {})}
    return body


def kept_time(typed: dt.datetime | None, stored: dt.datetime | None) -> dt.datetime | None:
    """The time to save: the stored one when the form shows it unchanged (the form has no
    seconds, and a time left alone is not a move)."""
    if typed is not None and stored is not None and typed == stored.replace(second=0, microsecond=0):
        return stored
    return typed


def _lf(text: str) -> str:
    # Browsers send a textarea's line breaks as CRLF; the text was stored with LF.
    return text.replace("\r\n", "\n")
