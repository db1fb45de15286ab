"""kombu's filesystem transport (the broker of development without Redis), with one repair: a
message file appears in the queue folder only once it is whole.

kombu creates a message's file under its final name and then writes it, while a consumer
takes any file with that name the moment it lists the folder: a consumer that lists between
the two reads an empty file, and the JSON error it raises stops the worker ("Unrecoverable
error: JSONDecodeError"), which stops `make run` (kombu 5.x). Here the message is written
under a name no consumer takes and renamed into place, which is atomic within a folder.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

PARTIAL = ".part"  # a consumer takes only names ending in ".<queue>.msg"


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]  # kombu's own signature
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = final + PARTIAL
        try:
            with open(partial, "wb", buffering=0) as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
