from __future__ import annotations

import uuid

from uuid_utils.compat import uuid7


def new_id() -> uuid.UUID:
    """A UUID v7: time-ordered, so new rows land at the end of the primary-key index."""
    return uuid7()
