"""`{% load platforms %}` then `{{ target.platform|platform_label }}`: a platform's name as
people write it ("LinkedIn", not "linkedin"); a value that is no platform is shown as it is."""

from __future__ import annotations

from django import template

from accounts.models import Platform

register = template.Library()


@register.filter
def platform_label(value: str) -> str:
    try:
        return str(Platform(value).label)
    except ValueError:
        return value
