"""`manage.py mcp`: the MCP server over stdio, acting with one API key.

The key comes from `SOCIALPUB_API_KEY` or from a file (`--api-key-file PATH`), never from the
command line, where every user of the machine can read it (`ps`). It is checked before the
server starts, as the API checks it; a missing or refused key stops the command with the
API's reason. Standard output belongs to the protocol: everything else goes to standard error.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import anyio
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.http import HttpRequest
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from mcpserver.tools import server, stdio_authorization
from teams.authentication import ApiKeyAuthentication

ENV_KEY = "SOCIALPUB_API_KEY"
KEY_ON_COMMAND_LINE = (
    "--api-key is not accepted: a key on the command line is visible to every user of this machine. "
    f"Set {ENV_KEY} or pass --api-key-file PATH."
)


class RefuseKeyOnCommandLine(argparse.Action):
    """Kept, hidden, so `--api-key sk_...` gets a reason (and is not read as an abbreviation
    of --api-key-file)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any, **__: Any) -> None:
        parser.error(KEY_ON_COMMAND_LINE)


def _read_key(path: str) -> str:
    try:
        key = Path(path).read_text().strip()
    except OSError as exc:
        raise CommandError(f"Cannot read the API key file {path}: {exc.strerror}.") from exc
    except UnicodeDecodeError as exc:
        raise CommandError(f"The API key file {path} is not text.") from exc
    if not key:
        raise CommandError(f"The API key file {path} is empty.")
    return key


def _check(authorization: str) -> None:
    asked = HttpRequest()  # the key is read from its header alone, as every API request's is
    asked.META["HTTP_AUTHORIZATION"] = authorization
    request = Request(asked)
    try:
        ApiKeyAuthentication().authenticate(request)
    except AuthenticationFailed as exc:
        raise CommandError(f"The API key was refused: {exc.detail}") from exc


class Command(BaseCommand):
    help = f"Serves the MCP tools over stdio with one API key (${ENV_KEY} or --api-key-file)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--api-key-file", metavar="PATH", help=f"a file holding the API key to act with (else ${ENV_KEY})"
        )
        parser.add_argument("--api-key", nargs="?", action=RefuseKeyOnCommandLine, help=argparse.SUPPRESS)

    def handle(self, *args: Any, **options: Any) -> None:
        path = options["api_key_file"]
        key = _read_key(path) if path else os.environ.get(ENV_KEY, "").strip()
        if not key:
            raise CommandError(f"No API key: set {ENV_KEY} or pass --api-key-file PATH.")
        authorization = f"Bearer {key}"
        _check(authorization)
        stdio_authorization.set(authorization)
        anyio.run(server.run_stdio_async)
