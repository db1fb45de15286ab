"""Campaign figures of issue 33: a campaign due in one second and text posts beside videos.

1. **campaign** (`delivery`): 10,000 targets over 500 X, Bluesky, LinkedIn, Facebook and Threads
   sandbox accounts due in the same second, every platform answering in 1 s: the seconds until
   all are published, and the PostgreSQL connections and resident memory of the dispatch
   process meanwhile.
2. **video** (`video`): text posts created at a steady rate while 20 publishes of a 200 MB video
   upload to a platform that reads uploads at 10 MB/s: the text posts' create -> published p99.

Each runs the service as `make run` starts it, from the Procfile read at run time, on a scratch
PostgreSQL database of its own (`bench_campaign_<hex>`, dropped at the end) and Redis database
11 (flushed before and after). QUICK (CI) uses the smaller sizes of `stack.QUICK`. A run is
broken (RuntimeError) on a post lost or sent twice, or a create refused.

    .venv/bin/python -m bench.run --only campaign [--quick]
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable

from bench.campaign import delivery, video
from bench.campaign.stack import FULL, QUICK, Sizes
from bench.common import Figure

FIGURES: dict[str, Callable[[Sizes], list[Figure]]] = {"campaign": delivery.figures, "video": video.figures}


def measure(quick: bool, only: list[str] | None = None) -> list[Figure]:
    """The figures (all, or those named in `only`); `quick` uses the sizes of QUICK (CI)."""
    found: list[Figure] = []
    for name in only or FIGURES:
        begun = time.monotonic()
        for figure in FIGURES[name](QUICK if quick else FULL):
            figure.extra["load_average"] = [round(load, 2) for load in os.getloadavg()]
            print(json.dumps(figure.as_dict()), file=sys.stderr, flush=True)  # kept should a later one break
            found.append(figure)
        print(f"bench.campaign: {name} took {time.monotonic() - begun:.1f} s", file=sys.stderr)
    return found
