"""Each team holds at most its share of the media lane (LANE_TEAM_SHARES["media"]): a probe or
a fit of a team already holding it is handed back to the broker and its upload or delivery
waits, pending, while another team's work goes through."""

from __future__ import annotations

import pytest
import requests

from config import lanes
from media import tasks
from media.models import MediaUpload
from tests.media import files

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def served(live_server, settings, tmp_path):
    settings.PUBLIC_BASE_URL = live_server.url
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.LANE_RETRY_SECONDS = 0
    return live_server


def _confirmed(api, key) -> str:
    """An uploaded and confirmed video whose probe has not run (no worker reads the broker)."""
    data = files.encoded(codec="libx264", seconds=1, size="96x64")
    body = {"filename": "clip.mp4", "content_type": "video/mp4", "size_bytes": len(data)}
    created = api.as_(key).post("/api/v1/media/uploads", body, format="json").json()["data"]
    assert requests.put(created["upload_url"], data=data, headers=created["headers"], timeout=10).status_code == 200
    assert api.as_(key).post(f"/api/v1/media/uploads/{created['media_id']}/confirm").status_code == 200
    return str(created["media_id"])


def test_a_team_over_its_media_share_waits_while_another_teams_probe_runs(api, owner, outsider, served):
    waiting, other = _confirmed(api, owner.key), _confirmed(api, outsider.key)

    with lanes.team_share("media", owner.team.pk, lease_seconds=60) as held:  # a fit under way
        assert held
        tasks.probe(waiting)  # handed back to the broker for a little later
        tasks.probe(other)

        assert MediaUpload.objects.get(pk=waiting).probe_status == "pending"
        assert MediaUpload.objects.get(pk=other).probe_status == "done"

    tasks.probe(waiting)  # the message handed back comes round
    assert MediaUpload.objects.get(pk=waiting).probe_status == "done"
    assert lanes.held("media", owner.team.pk) == 0
