"""`{% load publishing_links %}` then `{{ target|live_link }}`: a target's live post link, the
sandbox's viewer page for a sandbox account (`publishing.links.live_link`); and
`{{ attempt|media_sent }}`: the files an attempt sent (each upload, or its fitted rendition)."""

from __future__ import annotations

from django import template

from publishing.links import live_link
from publishing.selectors import media_sent

register = template.Library()
register.filter("live_link", live_link)

register.filter("media_sent", media_sent)
