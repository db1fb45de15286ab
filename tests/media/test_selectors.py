from __future__ import annotations

import pytest
import requests

from media import selectors, services, storage
from media.models import MediaState, MediaUpload
from tests.media import files

pytestmark = pytest.mark.django_db


def _ready(team, data: bytes, content_type="image/png") -> MediaUpload:
    upload = services.media_create(team=team, user=None, filename="a", content_type=content_type, size_bytes=len(data))
    storage.write_stream(upload.storage_key, [data])
    return services.media_confirm(team=team, media_id=str(upload.pk))


def test_ready_media_come_back_in_the_order_asked_with_the_rest_named(owner, outsider):
    first, second = _ready(owner.team, files.image()), _ready(owner.team, files.image("GIF"), "image/gif")
    theirs = _ready(outsider.team, files.image())
    pending = services.media_create(
        team=owner.team, user=None, filename="b.png", content_type="image/png", size_bytes=9
    )
    asked = [str(second.pk), str(theirs.pk), str(first.pk), str(pending.pk)]

    found, missing = selectors.ready_media_by_ids(team=owner.team, media_ids=asked)

    assert found == [second, first]
    assert missing == [str(theirs.pk), str(pending.pk)]
    assert pending.state == MediaState.UNCONFIRMED


def test_open_media_streams_the_stored_bytes(owner):
    png = files.image()
    upload = _ready(owner.team, png)

    with selectors.open_media(upload) as stream:
        assert stream.read() == png


def test_a_pull_url_serves_the_file_over_http_until_it_expires(owner, live_server, settings):
    settings.PUBLIC_BASE_URL = live_server.url
    png = files.image()
    upload = _ready(owner.team, png)

    fresh = requests.get(selectors.media_pull_url(upload, lifetime_seconds=60), timeout=10)
    stale = requests.get(selectors.media_pull_url(upload, lifetime_seconds=-1), timeout=10)

    assert (fresh.status_code, fresh.content) == (200, png)
    assert stale.status_code == 403
