"""Input of the dashboard's API key form, parsed before `services.api_key_create` sees it."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone

from config.datetime_input import utc_moment
from teams.models import SCOPES, ApiKey, ApiKeyKind


class ApiKeyCreateForm(forms.Form):
    name = forms.CharField(max_length=ApiKey._meta.get_field("name").max_length)
    kind = forms.ChoiceField(choices=ApiKeyKind.choices)
    scopes = forms.MultipleChoiceField(
        choices=[(scope, scope) for scope in SCOPES], error_messages={"required": "Choose at least one scope."}
    )
    # A datetime-local input: a wall-clock time in the team's zone, which the page names.
    expires_at = forms.CharField(required=False)

    def clean_expires_at(self) -> dt.datetime | None:
        text = self.cleaned_data["expires_at"].strip()
        if not text:
            return None
        moment = utc_moment(text, malformed="Give a date and a time, or leave it empty.")
        if moment <= timezone.now():
            raise ValidationError("The expiry must be in the future.")
        return moment
