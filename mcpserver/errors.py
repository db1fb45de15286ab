"""The refusals of `/mcp` that the SDK's transport answers in plain text, as the API's error
object: an MCP client over HTTP reads the same `{"error": {...}}` as every other client. (A
Host outside ALLOWED_HOSTS never reaches the SDK: Django answers it with the API's 400.)"""

from __future__ import annotations

from config.errors import ApplicationError, Forbidden


class OriginNotAllowed(Forbidden):
    code = "ORIGIN_NOT_ALLOWED"
    message = "A web page may call /mcp only from this service's own origin."


class NotJson(ApplicationError):
    status_code = 415
    code = "UNSUPPORTED_MEDIA_TYPE"
    message = "Send the JSON-RPC message with Content-Type: application/json."


# By the status the SDK gives each (mcp.server.transport_security).
SDK_REFUSALS: dict[int, type[ApplicationError]] = {403: OriginNotAllowed, 400: NotJson}
