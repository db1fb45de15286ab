"""Responses as callers see them, with the byte cap: a declared Content-Length over the cap is
refused before reading, and the running total of wire bytes is checked on every read (and
counted towards the deadline's minimum throughput, when it has one)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from requests.structures import CaseInsensitiveDict
from urllib3.response import HTTPResponse

from .errors import ResponseTooLarge
from .transport import Deadline, Hop, translated


@dataclass(frozen=True)
class OutboundResponse:
    status_code: int
    headers: Mapping[str, str]  # a requests CaseInsensitiveDict
    url: str  # the final URL, after redirects
    content: bytes


def _response_headers(response: HTTPResponse) -> CaseInsensitiveDict[str]:
    # Indexing an HTTPHeaderDict joins repeated headers with ", ".
    return CaseInsensitiveDict({name: response.headers[name] for name in response.headers})


class OutboundStream:
    """A response whose body is read on demand, within the byte cap and the deadline."""

    def __init__(self, hop: Hop, max_bytes: int, deadline: Deadline) -> None:
        self.status_code: int = hop.response.status
        self.headers: Mapping[str, str] = _response_headers(hop.response)
        self.url: str = hop.location.url
        self._response = hop.response
        self._max_bytes = max_bytes
        self._deadline = deadline
        self._received = 0

    def iter_bytes(self, chunk_size: int = 65536) -> Iterator[bytes]:
        while chunk := self._read(chunk_size):
            yield chunk

    def _read(self, chunk_size: int) -> bytes:
        self._deadline.check(sent=True)
        # One byte past the cap is enough to know the body is too large.
        amount = max(1, min(chunk_size, self._max_bytes - self._received + 1))
        with translated(self._deadline, sent=True):
            # What has arrived, without waiting for a whole chunk: the throughput counts bytes as they come.
            chunk = self._response.read1(amount, decode_content=False)
        self._deadline.received(len(chunk))
        # A shut-down socket reads as end of body when there is no Content-Length.
        self._deadline.check(sent=True)
        self._received += len(chunk)
        if self._received > self._max_bytes:
            raise ResponseTooLarge(f"The response body exceeds {self._max_bytes} bytes.", sent=True)
        return chunk


def refuse_declared_oversize(response: HTTPResponse, max_bytes: int) -> None:
    declared = response.headers.get("Content-Length", "").strip()
    if declared.isdigit() and int(declared) > max_bytes:
        raise ResponseTooLarge(f"The response body exceeds {max_bytes} bytes.", sent=True)
