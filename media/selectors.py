from __future__ import annotations

from django.db.models import QuerySet

from media.models import MediaState, MediaUpload
from teams.models import Team


def upload_for_team(*, team: Team, media_id: str) -> MediaUpload | None:
    return MediaUpload.objects.filter(team=team, pk=media_id).first()


def ready_media(*, team: Team) -> QuerySet[MediaUpload]:
    return MediaUpload.objects.filter(team=team, state=MediaState.READY).order_by("-created_at", "-id")
