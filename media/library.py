"""The dashboard's media library: the team's confirmed files with a thumbnail each, searched by
file name, each with its description for screen readers (alt text) and, when no post uses it,
a delete button. Every member sees and edits it, as every member uploads in compose.

Each action calls one media service (`media_set_alt_text`, `media_delete_unused`); the
service decides, and a refusal comes back as its sentence: beside the field for a description
too long, at the top of the page for a file a post still uses.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from config.errors import ApplicationError, Conflict, NotFound
from config.pagination import Paginator
from media import selectors, services
from media.models import ALT_TEXT_MAX_LENGTH, MediaUpload
from publishing.models import Publish
from publishing.selectors import publishes_using_each
from teams.dashboard import page_context, requested_membership
from teams.models import Team

PAGE_SIZE = 24
SEARCH_MAX_LENGTH = 200


@dataclass(frozen=True)
class LibraryItem:
    upload: MediaUpload
    url: str  # a short-lived URL of the file, for the thumbnail
    used_by: list[Publish]
    problem: str = ""  # why the description sent was refused
    alt_text: str = ""  # what the form shows: the stored description, or the refused one

    @property
    def is_video(self) -> bool:
        return self.upload.content_type.startswith("video/")


def _item(upload: MediaUpload, used_by: list[Publish], refused: tuple[str, str, str] | None) -> LibraryItem:
    problem, alt_text = "", upload.alt_text
    if refused and refused[0] == str(upload.pk):
        problem, alt_text = refused[1], refused[2]
    url = selectors.media_pull_url(upload)
    return LibraryItem(upload=upload, url=url, used_by=used_by, problem=problem, alt_text=alt_text)


def _page(request: HttpRequest, refused: tuple[str, str, str] | None = None, status: int = 200) -> HttpResponse:
    membership = requested_membership(request)
    team = membership.team
    search = request.GET.get("q", "").strip()[:SEARCH_MAX_LENGTH]
    page = Paginator(selectors.library_media(team=team, search=search), PAGE_SIZE).get_page(request.GET.get("page"))
    uploads = list(page.object_list)
    used = publishes_using_each(team=team, media_ids=[str(upload.pk) for upload in uploads])
    items = [_item(upload, used[str(upload.pk)], refused) for upload in uploads]
    query = urlencode({"team": str(team.pk), **({"q": search} if search else {})})
    context = page_context(
        request,
        membership,
        page=page,
        items=items,
        search=search,
        pager_query=query,
        back=_back(request, team),
        alt_max=ALT_TEXT_MAX_LENGTH,
    )
    return render(request, "media/library.html", context, status=status)


@login_required
def library(request: HttpRequest) -> HttpResponse:
    return _page(request)


def _back(request: HttpRequest, team: Team) -> str:
    """The library page the user came from: its search and page kept."""
    kept = {"team": str(team.pk)}
    for name in ("q", "page"):
        value = request.GET.get(name) or request.POST.get(name)
        if value:
            kept[name] = value[:SEARCH_MAX_LENGTH]
    return f"{reverse('media-library')}?{urlencode(kept)}"


@login_required
@require_POST
def describe(request: HttpRequest, media_id: uuid.UUID) -> HttpResponse:
    team = requested_membership(request).team
    alt_text = request.POST.get("alt_text", "")
    try:
        upload = services.media_set_alt_text(team=team, media_id=str(media_id), alt_text=alt_text)
    except NotFound:
        raise Http404("No such file.") from None
    except ApplicationError as exc:
        return _page(request, refused=(str(media_id), exc.message, alt_text), status=400)
    messages.success(request, f"Saved the alt text of {upload.filename}.")
    return HttpResponseRedirect(_back(request, team))


@login_required
@require_POST
def delete(request: HttpRequest, media_id: uuid.UUID) -> HttpResponse:
    team = requested_membership(request).team
    try:
        services.media_delete_unused(team=team, media_id=str(media_id))
    except NotFound:
        raise Http404("No such file.") from None
    except Conflict as exc:
        messages.error(request, exc.message)
        return HttpResponseRedirect(_back(request, team))
    messages.success(request, "Deleted the file from the library.")
    return HttpResponseRedirect(_back(request, team))
