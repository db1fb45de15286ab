"""Input of the dashboard's API key form, parsed before `services.api_key_create` sees it."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone

from config.datetime_input import utc_moment
from teams.models import SCOPES, ApiKey, ApiKeyKind

NAME_MAX_LENGTH = ApiKey._meta.get_field("name").max_length


class ApiKeyCreateForm(forms.Form):
    # Django's own messages ("This field is required.", "Select a valid choice.") name no field;
    # the page shows each beside its field, so each says what to do there.
    name = forms.CharField(
        max_length=NAME_MAX_LENGTH,
        error_messages={
            "required": "Give the key a name, such as the script that uses it.",
            "max_length": f"A key's name has at most {NAME_MAX_LENGTH} characters.",
        },
    )
    kind = forms.ChoiceField(
        choices=ApiKeyKind.choices,
        error_messages={
            "required": "Choose a team key or a user key.",
            "invalid_choice": "Choose a team key or a user key.",
        },
    )
    scopes = forms.MultipleChoiceField(
        choices=[(scope, scope) for scope in SCOPES],
        error_messages={
            "required": "Choose at least one scope.",
            "invalid_choice": "Choose the scopes from the list: “%(value)s” is not one of them.",
        },
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
