"""`{% load publishing_links %}` then `{{ target|live_link }}`: a target's live post link, the
sandbox's viewer page for a sandbox account (`publishing.links.live_link`)."""

from __future__ import annotations

from django import template

from publishing.links import live_link

register = template.Library()
register.filter("live_link", live_link)
