"""`socialpub schedule ACCOUNT`: show an account's posting schedule (its weekly slots, the zone
they are read in, its next free slot instants), or replace it with `--set`, `--timezone` and
`--clear`. A queued publish (`socialpub publish --queue`) takes the first slot every one of its
accounts has free."""

from __future__ import annotations

import argparse
from datetime import UTC, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from socialpub._generated.models import PostingSchedule
from socialpub.client import Client, ClientError
from socialpub.output import Output


def schedule(client: Client, args: argparse.Namespace, output: Output) -> int:
    changing = args.set or args.clear or args.timezone
    found = _replace(client, args) if changing else client.schedule(args.account)
    if output.as_json:
        output.json(found.to_dict())
        return 0
    output.line(f"posting schedule of account {args.account} ({found.timezone})")
    output.line("slots: " + (", ".join(f"{slot.day} {slot.time}" for slot in found.slots) or "none"))
    local = _zone(found.timezone)
    free = [f"{moment.astimezone(local):%a %Y-%m-%d %H:%M}" for moment in found.next_free_slots]
    output.line("next free: " + (", ".join(free) or "none"))
    return 0


def _replace(client: Client, args: argparse.Namespace) -> PostingSchedule:
    """The schedule the options give; what they leave out (the zone, or the slots) stays."""
    slots = [_slot(text) for text in args.set]
    current = None if args.timezone and (args.set or args.clear) else client.schedule(args.account)
    if current is not None and not (args.set or args.clear):
        slots = [(str(slot.day), slot.time) for slot in current.slots]
    zone = args.timezone or (current.timezone if current else "UTC")
    return client.set_schedule(args.account, timezone=zone, slots=slots)


def _slot(text: str) -> tuple[str, str]:
    parts = text.split()
    if len(parts) != 2:
        raise ClientError(f"--set: {text!r} is not a day and a time such as 'mon 09:00'")
    return parts[0], parts[1]


def _zone(name: str) -> ZoneInfo | timezone:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC
