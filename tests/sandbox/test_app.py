"""The stand-in as a WSGI app: what it does with a request that never arrives whole."""

from __future__ import annotations

import io

from werkzeug.test import EnvironBuilder

from sandbox.app import create_app


def test_a_body_cut_short_by_its_client_going_away_is_answered_400_with_nothing_made():
    app = create_app()
    environ = EnvironBuilder(
        method="POST",
        path="/api.x.com/2/tweets",
        content_type="application/json",
        input_stream=io.BytesIO(b'{"text": "cut sh'),
    ).get_environ()
    environ["CONTENT_LENGTH"] = "1000"  # announced, never sent: the client is gone
    statuses = []

    body = app(environ, lambda status, headers: statuses.append(status))

    assert b"".join(body) == b""
    assert statuses == ["400 BAD REQUEST"]
    assert app.ctx.state.posts == []
