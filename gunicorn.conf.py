"""gunicorn's settings file: every `gunicorn` started from this folder reads it (the Procfiles'
web lines). The command lines say the rest: bind address, workers, threads, timeout, logs."""

from __future__ import annotations

import gc
import sys
from typing import Any

# Seconds an idle keep-alive connection stays open (gunicorn's default is 2). A client that
# sends its next request on a connection just as the server closes it gets no answer at all
# (a reset, not a status), and a client pausing about as long as the server's idle timeout
# meets that race now and then: one pausing 1-2 s between requests did. The server's idle
# timeout has to outlast its clients' (a proxy's upstream keep-alive is commonly 60 s); the
# gthread worker keeps idle connections in its poller, not in a thread, so they cost little.
keepalive = 75


def post_worker_init(worker: Any) -> None:
    """Once a worker has loaded the app, keep what it loaded out of garbage collection.

    A loaded web process holds about 130,000 tracked objects that live as long as it does, and
    each full collection walks all of them: about 60 ms on a small machine, during which none
    of the worker's requests moves (it shows in the tail latency). Frozen, they sit in a
    generation that is never collected, and a full collection walks only what requests left.
    Django imports the URLconf, and with it every view module, on the first request: it is
    loaded here, so that it is frozen too."""
    _load_urls()
    gc.collect()
    gc.freeze()


def _load_urls() -> None:
    django_apps = sys.modules.get("django.apps")
    if django_apps is None or not django_apps.apps.ready:  # not a Django app
        return
    from django.urls import get_resolver

    get_resolver()._populate()
