"""The `socialpub` command: accounts, publish, import, schedule, status, approvals, approve,
reject, unpublish, and for a SaaS serving its own customers: teams, keys, connect-link and
disconnect.

Every command prints tables and progress for a person, or with `--json` exactly one JSON
document on stdout and nothing else. A refusal or failure prints one line on stderr
(`error: 403 authorization_error (MISSING_SCOPE): ... [request id: ...]`) and exits 1; a
watched publish with a failed target exits 1 as well; usage mistakes exit 2.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn
from rich.table import Table

from socialpub._generated.models import Account, Approve, ConnectLink, Publish, Target, TeamKey, TeamKeyCreated
from socialpub._generated.types import Unset
from socialpub.client import (
    FINAL_TARGET_STATUSES,
    KEY_VARIABLE,
    PLATFORMS,
    SCOPES,
    Client,
    ClientError,
    ConnectionFailed,
    is_final,
    warnings,
)
from socialpub.importing import import_csv
from socialpub.output import Output, headline
from socialpub.schedules import schedule

POLL_SECONDS = 1.0
WATCH_MISSES = 10  # polls in a row that may fail to connect before a watch gives up
EXIT_ERROR = 1


# --- commands --------------------------------------------------------------------------------


def accounts(client: Client, args: argparse.Namespace, output: Output) -> int:
    found = client.accounts(platform=args.platform, status=args.status)
    if output.as_json:
        output.json([account.to_dict() for account in found])
        return 0
    table = Table()
    table.add_column("id", no_wrap=True, min_width=36)
    # Platform and status stay whole on a narrow terminal; the handle and name fold.
    table.add_column("platform", no_wrap=True, min_width=9)
    table.add_column("status", no_wrap=True, min_width=7)
    table.add_column("handle", overflow="fold")
    table.add_column("name", overflow="fold")
    for account in found:
        name, handle = _text(account.display_name), _text(account.handle)
        table.add_row(str(account.id), str(account.platform), _status(account), handle, name)
    output.out.print(table)
    return 0


def publish(client: Client, args: argparse.Namespace, output: Output) -> int:
    scheduled_at = _when(args.at) if args.at else None
    account_ids = resolve_targets(client, args.to)
    media = [Path(name) for name in args.media]
    for path in media:
        if not path.is_file():
            raise ClientError(f"{path}: no such file")
    media_ids = [str(upload.id) for upload in _upload_all(client, media, output)]
    answer = client.create_publish_answer(
        content=args.text,
        account_ids=account_ids,
        media_ids=media_ids,
        scheduled_at=scheduled_at,
        queue=args.queue,
        idempotency_key=args.idempotency_key or str(uuid.uuid4()),
    )
    output.warnings(warnings(answer))
    if args.wait:
        return _watch(client, str(answer.data.id), output)
    if output.as_json:
        output.json(answer.data.to_dict())
    else:
        output.line(headline(answer.data))
    return 0


def status(client: Client, args: argparse.Namespace, output: Output) -> int:
    if args.watch:
        return _watch(client, args.id, output, timeout=args.timeout)
    found = client.publish(args.id)
    _show(found, output)
    return 0


def approvals(client: Client, _args: argparse.Namespace, output: Output) -> int:
    waiting = client.approvals()
    if output.as_json:
        output.json([item.to_dict() for item in waiting])
        return 0
    table = Table()
    table.add_column("id", no_wrap=True, min_width=36)
    for column in ("status", "created", "by", "targets", "content"):
        table.add_column(column)
    for item in waiting:
        by = "" if item.created_by is None else item.created_by.username
        platforms = ",".join(target.platform for target in item.targets)
        content = _text(item.content)
        table.add_row(str(item.id), str(item.status), f"{item.created_at:%Y-%m-%d %H:%M}", by, platforms, content[:60])
    output.out.print(table)
    return 0


def approve(client: Client, args: argparse.Namespace, output: Output) -> int:
    done = client.approve(args.id)
    already = "already approved" if done.already_approved else "approved"
    _say(done, output, f"publish {done.id}: {already}, {done.status}")
    return 0


def reject(client: Client, args: argparse.Namespace, output: Output) -> int:
    done = client.reject(args.id, args.reason)
    _say(done, output, f"publish {done.id}: rejected")
    return 0


def unpublish(client: Client, args: argparse.Namespace, output: Output) -> int:
    """Ask for the take-down; with --wait, poll until each target asked for is gone from its
    network or says why it cannot be (1 when one cannot)."""
    found = client.unpublish(args.id, args.target or None)
    asked = {str(t.id) for t in found.targets if str(t.status) == "published" and not _removed(t)}
    if args.target:
        asked &= set(args.target)
    deadline = time.monotonic() + args.timeout if args.timeout else None
    while args.wait and not _taken_down(found, asked) and not (deadline and time.monotonic() > deadline):
        time.sleep(POLL_SECONDS)
        found = client.publish(args.id)
    if output.as_json:
        output.json(found.to_dict())
    else:
        for target in found.targets:
            if str(target.id) in asked:
                output.out.print(f"{target.platform} {target.id}: {_removal_line(target)}", markup=False)
    refused = any(_said(t.removal_error) for t in found.targets if str(t.id) in asked)
    return EXIT_ERROR if refused or (args.wait and not _taken_down(found, asked)) else 0


def _removed(target: Target) -> bool:
    return isinstance(target.removed_at, datetime)


def _said(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _taken_down(found: Publish, asked: set[str]) -> bool:
    return all(_removed(t) or _said(t.removal_error) for t in found.targets if str(t.id) in asked)


def _removal_line(target: Target) -> str:
    if _removed(target):
        return f"taken down ({target.removed_by})"
    if _said(target.removal_error):
        return f"not taken down: {target.removal_error}"
    return "being taken down"


# --- teams, their keys, connect links and disconnecting --------------------------------------


def teams_create(client: Client, args: argparse.Namespace, output: Output) -> int:
    team = client.create_team(args.name)
    if output.as_json:
        output.json(team.to_dict())
    else:
        output.line(f"team {team.id}: {team.name}")
    return 0


def teams_list(client: Client, _args: argparse.Namespace, output: Output) -> int:
    owned = client.teams()
    if output.as_json:
        output.json([team.to_dict() for team in owned])
        return 0
    table = Table()
    table.add_column("id", no_wrap=True, min_width=36)
    table.add_column("name", overflow="fold")
    table.add_column("default")
    table.add_column("plan")
    for team in owned:
        table.add_row(str(team.id), team.name, "yes" if team.is_default else "", team.plan)
    output.out.print(table)
    return 0


def keys_create(client: Client, args: argparse.Namespace, output: Output) -> int:
    expires_at = _time(args.expires_at, "--expires-at") if args.expires_at else None
    made = client.create_team_key(args.team, name=args.name, scopes=args.scope, expires_at=expires_at)
    if output.as_json:
        output.json(made.to_dict())
        return 0
    output.line(_key_line(made))
    output.line(made.key)
    output.err.print("This key is shown once: store it now.", markup=False)
    return 0


def keys_list(client: Client, args: argparse.Namespace, output: Output) -> int:
    found = client.team_keys(args.team)
    if output.as_json:
        output.json([key.to_dict() for key in found])
        return 0
    table = Table()
    table.add_column("id", no_wrap=True, min_width=36)
    table.add_column("prefix", no_wrap=True)
    table.add_column("name", overflow="fold")
    table.add_column("scopes", overflow="fold")
    for column in ("created", "last used", "expires"):
        table.add_column(column, no_wrap=True)
    for key in found:
        scopes = ", ".join(str(scope) for scope in key.scopes)
        table.add_row(
            str(key.id), key.prefix, key.name, scopes, _minute(key.created_at), _minute(key.last_used_at), _expiry(key)
        )
    output.out.print(table)
    return 0


def keys_revoke(client: Client, args: argparse.Namespace, output: Output) -> int:
    client.revoke_team_key(args.team, args.key_id)
    if output.as_json:
        output.json({"id": args.key_id, "revoked": True})
    else:
        output.line(f"key {args.key_id}: revoked")
    return 0


def connect_link_create(client: Client, args: argparse.Namespace, output: Output) -> int:
    link = client.create_connect_link(
        redirect_url=args.redirect_url,
        platforms=args.platform,
        expires_in=args.expires_in,
        brand=args.name,
        logo_url=args.logo_url,
        accent_color=args.accent_color,
    )
    if output.as_json:
        output.json(link.to_dict())
    else:
        output.line(_link_line(link))
        output.line(link.url)
    return 0


def connect_link_show(client: Client, args: argparse.Namespace, output: Output) -> int:
    link = client.connect_link(args.id)
    if output.as_json:
        output.json(link.to_dict())
        return 0
    output.line(_link_line(link))
    output.line(link.url)
    if link.accounts:
        table = Table()
        table.add_column("id", no_wrap=True, min_width=36)
        table.add_column("platform", no_wrap=True, min_width=9)
        table.add_column("status", no_wrap=True)
        table.add_column("handle", overflow="fold")
        for account in link.accounts:
            table.add_row(str(account.id), str(account.platform), account.status, account.handle)
        output.out.print(table)
    return 0


def connect_link_list(client: Client, _args: argparse.Namespace, output: Output) -> int:
    found = client.connect_links()
    if output.as_json:
        output.json([link.to_dict() for link in found])
        return 0
    table = Table()
    table.add_column("id", no_wrap=True, min_width=36)
    table.add_column("status", no_wrap=True)
    table.add_column("expires", no_wrap=True)
    table.add_column("accounts")
    table.add_column("url", overflow="fold")
    for link in found:
        table.add_row(str(link.id), str(link.status), _minute(link.expires_at), str(len(link.accounts)), link.url)
    output.out.print(table)
    return 0


def connect_link_revoke(client: Client, args: argparse.Namespace, output: Output) -> int:
    link = client.revoke_connect_link(args.id)
    if output.as_json:
        output.json(link.to_dict())
    else:
        output.line(_link_line(link))
    return 0


def disconnect(client: Client, args: argparse.Namespace, output: Output) -> int:
    gone = client.disconnect(args.account_id)
    if output.as_json:
        output.json(gone.to_dict())
        return 0
    account = gone.data
    handle = f" @{account.handle}" if isinstance(account.handle, str) and account.handle else ""
    state = "already disconnected" if gone.already_disconnected else _status(account)
    token = (
        "token revoked at the platform"
        if gone.token_revoked
        else "token not revoked at the platform (it has no call for it, or refused)"
        if gone.token_revoked is False
        else "no token to revoke"
    )
    output.line(f"account {account.id} ({account.platform}{handle}): {state}, {token}")
    return 0


_LINK_OPTIONS = ("redirect_url", "platform", "expires_in", "name", "logo_url", "accent_color")


def _connect_link_usage(args: argparse.Namespace) -> str | None:
    """What is wrong with a `connect-link` command line, before any call: a create needs its
    --redirect-url, branding needs its --name, and show, list and revoke take no create option."""
    if args.action:
        given = [name for name in _LINK_OPTIONS if getattr(args, name)]
        if given:
            options = ", ".join("--" + name.replace("_", "-") for name in given)
            return f"{options}: options of creating a link, not of {args.action}"
        return None
    if not args.redirect_url:
        return "creating a connect link needs --redirect-url URL"
    if (args.logo_url or args.accent_color) and not args.name:
        return "--logo-url and --accent-color dress a branded page: give its --name too"
    return None


# --- helpers ---------------------------------------------------------------------------------


def resolve_targets(client: Client, to: str) -> list[str]:
    """The account ids `--to` names: each item a platform name (the team's active accounts of
    that platform) or an account id. A ClientError for an unknown name or a platform without
    an active account."""
    items = [item.strip().lower() for item in to.split(",") if item.strip()]
    if not items:
        raise ClientError("--to names no platform or account")
    for item in items:
        if item not in PLATFORMS and not _is_uuid(item):
            raise ClientError(f"--to: {item!r} is neither a platform ({', '.join(PLATFORMS)}) nor an account id")
    platforms = [item for item in items if item in PLATFORMS]
    active: list[Account] = client.accounts(platform=",".join(platforms), status="active") if platforms else []
    chosen: list[str] = []
    for item in items:
        if item in PLATFORMS:
            matching = [str(account.id) for account in active if str(account.platform) == item]
            if not matching:
                raise ClientError(f"--to: the team has no active {item} account")
            chosen += matching
        else:
            chosen.append(item)
    return list(dict.fromkeys(chosen))


def _upload_all(client: Client, paths: list[Path], output: Output) -> list[Any]:
    if not paths:
        return []
    if output.as_json:
        return [client.upload(path) for path in paths]
    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn())
    with Progress(*columns, console=output.err) as progress:
        uploads = []
        for path in paths:
            task = progress.add_task(path.name, total=path.stat().st_size)
            uploads.append(client.upload(path, partial(progress.advance, task)))
        return uploads


def _watch(client: Client, publish_id: str, output: Output, *, timeout: float = 0) -> int:
    """Poll the publish until every target is final; 1 when one failed (or time ran out)."""
    deadline = time.monotonic() + timeout if timeout else None
    found = client.publish(publish_id)
    spinner = output.err.status(_progress_line(found)) if not output.as_json else None
    misses = 0
    with spinner or contextlib.nullcontext():
        while not is_final(found) and not (deadline and time.monotonic() > deadline):
            time.sleep(POLL_SECONDS)
            try:
                found, misses = client.publish(publish_id), 0
            except ConnectionFailed:  # a restart or a network blip; the publish goes on regardless
                misses += 1
                if misses >= WATCH_MISSES:
                    raise
            if spinner:
                spinner.update(_progress_line(found))
    _show(found, output)
    if not is_final(found):
        output.err.print(f"error: not final after {timeout:g} s", markup=False)
        return EXIT_ERROR
    return EXIT_ERROR if any(str(target.status) == "failed" for target in found.targets) else 0


def _progress_line(found: Publish) -> str:
    done = sum(1 for target in found.targets if str(target.status) in FINAL_TARGET_STATUSES)
    return f"publish {found.id}: {found.status}, {done}/{len(found.targets)} targets final"


def _show(found: Publish, output: Output) -> None:
    if output.as_json:
        output.json(found.to_dict())
        return
    output.line(headline(found))
    table = Table("platform", "status", "error")
    table.add_column("url", overflow="fold")
    for target in found.targets:
        error = target.error.to_dict() if target.error is not None else {}
        message = f"{error.get('code', '')}: {error.get('message', '')}" if error else ""
        table.add_row(target.platform, str(target.status), message, target.platform_post_url or "")
    output.out.print(table)


def _say(found: Publish | Approve, output: Output, line: str) -> None:
    if output.as_json:
        output.json(found.to_dict())
    else:
        output.out.print(line, markup=False)


def _when(text: str) -> datetime:
    """`--at`: ISO 8601; without an offset the time is read as UTC."""
    return _time(text, "--at")


def _time(text: str, option: str) -> datetime:
    """An option's ISO 8601 time; without an offset it is read as UTC."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ClientError(f"{option}: {text!r} is not an ISO 8601 time such as 2026-12-01T09:00Z") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _minute(moment: datetime | Unset | None) -> str:
    return f"{moment:%Y-%m-%d %H:%M}" if isinstance(moment, datetime) else ""


def _expiry(key: TeamKey | TeamKeyCreated) -> str:
    return _minute(key.expires_at) or "never"


def _key_line(key: TeamKeyCreated) -> str:
    """`key ID (prefix P): NAME, SCOPES, expires ...`, the line above a new key."""
    scopes = ", ".join(str(scope) for scope in key.scopes)
    expires = f"expires {_minute(key.expires_at)} UTC" if isinstance(key.expires_at, datetime) else "never expires"
    return f"key {key.id} (prefix {key.prefix}): {key.name}; {scopes}; {expires}"


def _link_line(link: ConnectLink) -> str:
    """`connect link ID: STATUS[, expires at TIME UTC][, N account(s) connected]`, the first line
    about a link (a revoked one tells no expiry, an expired one when it expired)."""
    status = str(link.status)
    when = {"revoked": "", "expired": f", expired at {_minute(link.expires_at)} UTC"}.get(
        status, f", expires at {_minute(link.expires_at)} UTC"
    )
    accounts = f", {len(link.accounts)} account(s) connected" if link.accounts else ""
    return f"connect link {link.id}: {status}{when}{accounts}"


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def _text(value: str | Unset | None) -> str:
    return value if isinstance(value, str) else ""


def _status(account: Account) -> str:
    return "" if isinstance(account.status, Unset) else str(account.status)


# --- the key ---------------------------------------------------------------------------------

KEY_ON_COMMAND_LINE = (
    "--api-key is not accepted: a key on the command line is visible to every user of this machine. "
    f"Set {KEY_VARIABLE} or pass --api-key-file PATH."
)


class RefuseKeyOnCommandLine(argparse.Action):
    """Kept, hidden, so `--api-key sk_...` gets a reason (and is not read as an abbreviation
    of --api-key-file)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any, **__: Any) -> None:
        parser.error(KEY_ON_COMMAND_LINE)


def _key_from_file(path: str | None) -> str | None:
    """The key in `--api-key-file` (`-`: standard input); None without one, for $SOCIALPUB_API_KEY."""
    if path is None:
        return None
    try:
        key = (sys.stdin.read() if path == "-" else Path(path).read_text()).strip()
    except OSError as exc:
        raise ClientError(f"--api-key-file: cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ClientError(f"--api-key-file: {path} is not text") from None
    if not key:
        raise ClientError(f"--api-key-file: {path} is empty")
    return key


# --- the parser ------------------------------------------------------------------------------

Command = Callable[[Client, argparse.Namespace, Output], int]


def parser() -> argparse.ArgumentParser:
    # The global options are accepted before or after the command (`socialpub --json accounts`
    # and `socialpub accounts --json`); after it they override what came before. They have no
    # defaults (the subcommand's would overwrite the values given before it): `main` reads them
    # with getattr.
    common = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    common.add_argument("--url", help="the service's base URL (else $SOCIALPUB_URL, else http://127.0.0.1:8000)")
    common.add_argument(
        "--api-key-file",
        metavar="PATH",
        help="a file holding the API key, sk_...; - reads stdin (else $SOCIALPUB_API_KEY)",
    )
    common.add_argument("--api-key", nargs="?", action=RefuseKeyOnCommandLine, help=argparse.SUPPRESS)
    common.add_argument("--json", action="store_true", help="print one JSON document and nothing else")
    main_parser = argparse.ArgumentParser(
        prog="socialpub", description="Publish to social networks through the Social Publishing API.", parents=[common]
    )
    commands = main_parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, command: Command, summary: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=summary, description=summary, parents=[common])
        sub.set_defaults(run=command)
        return sub

    sub = add("accounts", accounts, "List the team's connected accounts.")
    sub.add_argument("--platform", help="only these platforms (comma-separated)")
    sub.add_argument(
        "--status", choices=("active", "expired", "disabled", "disconnected"), help="only accounts in this status"
    )

    sub = add("publish", publish, "Publish text (and media) now or at a time.")
    sub.add_argument("text", help="the post's text")
    sub.add_argument("--to", required=True, help="platform names and/or account ids, comma-separated (x,bluesky)")
    sub.add_argument("--media", nargs="+", action="extend", default=[], metavar="FILE", help="files to upload")
    when = sub.add_mutually_exclusive_group()
    when.add_argument("--at", help="schedule for this ISO 8601 time (2026-12-01T09:00Z; no offset means UTC)")
    when.add_argument(
        "--queue", action="store_true", help="schedule at the first posting-schedule slot every account has free"
    )
    sub.add_argument("--wait", action="store_true", help="then wait until every target is final")
    sub.add_argument("--idempotency-key", help="repeat an earlier call: the service returns its publish")

    sub = add("import", import_csv, "Create the publishes of a CSV file, all of them or none.")
    sub.add_argument(
        "file", metavar="FILE.csv", help="columns content, account_ids, publish_mode, scheduled_at, media_ids"
    )
    sub.add_argument("--dry-run", action="store_true", help="check every row and say what would happen; create nothing")
    sub.add_argument("--idempotency-key", help="repeat an earlier import: the service returns its publishes")

    sub = add("schedule", schedule, "Show or set an account's posting schedule (the slots --queue fills).")
    sub.add_argument("account", help="the account id")
    slots = sub.add_mutually_exclusive_group()
    slots.add_argument(
        "--set", nargs="+", action="extend", default=[], metavar="'DAY HH:MM'", help="replace the slots ('mon 09:00')"
    )
    slots.add_argument("--clear", action="store_true", help="remove every slot")
    sub.add_argument("--timezone", help="the IANA zone the slots are read in (Europe/Paris); default: unchanged")

    sub = add("status", status, "Show a publish and its targets.")
    sub.add_argument("id", help="the publish id")
    sub.add_argument("--watch", action="store_true", help="poll until every target is published or failed")
    sub.add_argument("--timeout", type=float, default=0, help="with --watch: give up after this many seconds")

    add("approvals", approvals, "List the publishes waiting for approval.")
    sub = add("approve", approve, "Approve a publish waiting for approval.")
    sub.add_argument("id", help="the publish id")
    sub = add("reject", reject, "Reject a publish waiting for approval.")
    sub.add_argument("id", help="the publish id")
    sub.add_argument("--reason", help="why (sent with the post.rejected event)")
    sub = add("unpublish", unpublish, "Take a publish's posts down on their networks.")
    sub.add_argument("id", help="the publish id")
    sub.add_argument("--target", action="append", metavar="TARGET_ID", help="only this target (repeatable)")
    sub.add_argument("--wait", action="store_true", help="then wait until each post is gone (or says why not)")
    sub.add_argument("--timeout", type=float, default=120.0, help="seconds --wait waits at most (default 120)")

    _add_team_commands(add, common)
    return main_parser


Add = Callable[[str, Command, str], argparse.ArgumentParser]


def _nested(parent: argparse.ArgumentParser, common: argparse.ArgumentParser, *, required: bool) -> Add:
    """`add` for the subcommands of a command (`teams create`), taking the global options too."""
    commands = parent.add_subparsers(dest="action", required=required, metavar="ACTION")

    def add(name: str, command: Command, summary: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=summary, description=summary, parents=[common])
        sub.set_defaults(run=command)
        return sub

    return add


def _add_team_commands(add: Add, common: argparse.ArgumentParser) -> None:
    """teams, keys, connect-link and disconnect: a SaaS serving its own customers, a team each."""
    teams = _nested(
        add("teams", teams_list, "Create or list the teams your user owns (a user key)."), common, required=True
    )
    sub = teams("create", teams_create, "Create a team your user owns, one per customer (a user key only).")
    sub.add_argument("name", help="the team's name")
    teams("list", teams_list, "List the teams your user owns.")

    keys = _nested(add("keys", keys_list, "Mint, list or revoke a team's keys (its owner)."), common, required=True)
    sub = keys("create", keys_create, "Mint a key locked to a team; it is printed once.")
    sub.add_argument("--team", required=True, metavar="TEAM_ID", help="the team the key acts in")
    sub.add_argument("--name", required=True, help="what the key is for")
    sub.add_argument(
        "--scope",
        required=True,
        nargs="+",
        action="extend",
        choices=SCOPES,
        metavar="SCOPE",
        help=f"what the key may do, each one your key holds: {', '.join(SCOPES)}",
    )
    sub.add_argument("--expires-at", help="ISO 8601 time it stops working (no offset means UTC); default never")
    sub = keys("list", keys_list, "List a team's keys (never the keys themselves).")
    sub.add_argument("--team", required=True, metavar="TEAM_ID", help="the team")
    sub = keys("revoke", keys_revoke, "Revoke a team's key at once.")
    sub.add_argument("--team", required=True, metavar="TEAM_ID", help="the team")
    sub.add_argument("key_id", metavar="KEY_ID", help="the key's id")

    # `connect-link --redirect-url URL` creates; `connect-link show|list|revoke` read and revoke.
    link = add("connect-link", connect_link_create, "Create a hosted page where a customer connects accounts.")
    link.set_defaults(usage=link.error, check=_connect_link_usage)
    link.add_argument("--redirect-url", help="where the browser goes afterwards (https; http only to localhost)")
    link.add_argument(
        "--platform",
        nargs="+",
        action="extend",
        default=[],
        choices=PLATFORMS,
        metavar="PLATFORM",
        help="the platforms the page offers, in order (default: every one the service can connect)",
    )
    link.add_argument("--expires-in", type=int, metavar="SECONDS", help="how long it is usable (60..604800; 3600)")
    link.add_argument("--name", help='the brand the page names ("Connect your accounts to NAME")')
    link.add_argument("--logo-url", help="the brand's logo (PNG, JPEG or GIF, at most 256 KB); needs --name")
    link.add_argument("--accent-color", metavar="#RRGGBB", help="the page's buttons and links; needs --name")
    links = _nested(link, common, required=False)
    sub = links("show", connect_link_show, "Show a connect link: its status and the accounts connected through it.")
    sub.add_argument("id", help="the link's id")
    links("list", connect_link_list, "List the team's connect links, newest first.")
    sub = links("revoke", connect_link_revoke, "Revoke a connect link: its page answers 410 from now on.")
    sub.add_argument("id", help="the link's id")

    sub = add("disconnect", disconnect, "Disconnect an account, revoking its token where the platform can.")
    sub.add_argument("account_id", metavar="ACCOUNT_ID", help="the account's id")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit status (0, 1 for an error or a failed target, 2 for usage)."""
    args = parser().parse_args(argv)
    # A command's own usage rules that argparse cannot say (connect-link's): exit 2 before any call.
    check = getattr(args, "check", None)
    if check is not None and (problem := check(args)):
        args.usage(problem)
    output = Output(as_json=getattr(args, "json", False))
    try:
        client = Client(getattr(args, "url", None), _key_from_file(getattr(args, "api_key_file", None)))
        code: int = args.run(client, args, output)
    except ClientError as exc:
        output.error(exc)
        return EXIT_ERROR
    except KeyboardInterrupt:
        output.err.print("interrupted")
        return 130
    return code


def entry() -> None:
    """The console script."""
    sys.exit(main())
