"""The dashboard's sentences for the API's messages.

The API's messages name its fields and types ("This list may not be empty.", "confirmation_name
must be ..."), which suits a program reading them. A dashboard page shows a person the same
refusal in plain words: each page keeps a table of `Sentence`s beside its view (compose's in
`publishing.views.compose_form.SENTENCES`) and passes what it shows through `in_words`. The
API's own answers keep their messages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Sentence:
    """The words shown for a message about `field` (None: any field) matching `pattern`; `text`
    may reuse the pattern's named groups."""

    field: str | None
    pattern: re.Pattern[str]
    text: str


def sentences(*entries: tuple[str | None, str, str]) -> tuple[Sentence, ...]:
    """A table from (field, pattern, text) triples, tried in order."""
    return tuple(Sentence(where, re.compile(pattern), text) for where, pattern, text in entries)


def matching(table: Sequence[Sentence], field_name: str, message: str) -> tuple[str, dict[str, str]] | None:
    """The first entry's text for `message` about `field_name`, with the groups it matched."""
    for entry in table:
        if entry.field in (None, field_name) and (found := entry.pattern.search(message)):
            return entry.text, {k: v for k, v in found.groupdict().items() if v is not None}
    return None


def in_words(table: Sequence[Sentence], field_name: str, message: str) -> str:
    """The table's sentence for the API's `message` about `field_name`, or the message itself
    when no entry matches (it is already one)."""
    found = matching(table, field_name, message)
    if found is None:
        return message
    text, groups = found
    return text.format(**groups)


def all_in_words(table: Sequence[Sentence], problems: Mapping[str, Iterable[str]]) -> dict[str, list[str]]:
    """Each field's messages in words, each sentence once: two messages of one field (too long,
    and so not a valid address) often come to the same advice."""
    return {name: list(dict.fromkeys(in_words(table, name, m) for m in found)) for name, found in problems.items()}
