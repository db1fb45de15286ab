"""gunicorn.conf.py: a web worker freezes what it loaded, the URLconf and its views included."""

from __future__ import annotations

import gc
import runpy
from pathlib import Path

from django.urls import clear_url_caches, get_resolver

CONF = Path(__file__).resolve().parents[2] / "gunicorn.conf.py"


def test_a_worker_freezes_the_urlconf_before_its_first_request():
    hooks = runpy.run_path(str(CONF))
    clear_url_caches()  # as a new worker finds it: nothing resolved yet
    try:
        hooks["post_worker_init"](None)
        resolver = get_resolver()
        assert resolver._populated
        collected = {id(thing) for thing in gc.get_objects()}
        assert id(resolver) not in collected
        assert id(resolver._reverse_dict) not in collected
    finally:
        gc.unfreeze()
        clear_url_caches()
