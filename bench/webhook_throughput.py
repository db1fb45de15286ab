"""Webhook deliveries per second from one Celery worker to a local receiver: the figure of
`bench/webhooks.py` (see there) for a given number of events.

    .venv/bin/python bench/webhook_throughput.py [EVENTS]     # default 500
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import webhooks


def main(events: int) -> int:
    figure = webhooks.run(events)
    print(json.dumps(figure.as_dict(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 500))
