"""`manage.py mcp`: the MCP server over stdio, acting with one API key.

The key comes from `--api-key` or `SOCIALPUB_API_KEY` and is checked before the server starts,
as the API checks it; a missing or refused key stops the command with the API's reason.
Standard output belongs to the protocol: everything else goes to standard error.
"""

from __future__ import annotations

import os
from typing import Any

import anyio
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.http import HttpRequest
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from mcpserver.tools import server, stdio_authorization
from teams.authentication import ApiKeyAuthentication

ENV_KEY = "SOCIALPUB_API_KEY"


def _check(authorization: str) -> None:
    asked = HttpRequest()  # the key is read from its header alone, as every API request's is
    asked.META["HTTP_AUTHORIZATION"] = authorization
    request = Request(asked)
    try:
        ApiKeyAuthentication().authenticate(request)
    except AuthenticationFailed as exc:
        raise CommandError(f"The API key was refused: {exc.detail}") from exc


class Command(BaseCommand):
    help = "Serves the MCP tools over stdio with one API key (--api-key or SOCIALPUB_API_KEY)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--api-key", default=None, help=f"The API key to act with (default: ${ENV_KEY}).")

    def handle(self, *args: Any, **options: Any) -> None:
        key = (options["api_key"] or os.environ.get(ENV_KEY, "")).strip()
        if not key:
            raise CommandError(f"No API key: pass --api-key or set {ENV_KEY}.")
        authorization = f"Bearer {key}"
        _check(authorization)
        stdio_authorization.set(authorization)
        anyio.run(server.run_stdio_async)
