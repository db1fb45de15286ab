from __future__ import annotations

from django.db import connection
from django.db.utils import Error as DatabaseError
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_safe

from config.broker import broker_reachable


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except DatabaseError:
        return False


@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database and the broker answer, 503 otherwise. No authentication."""
    checks = {"database": _database_ok(), "broker": broker_reachable()}
    healthy = all(checks.values())
    body = {
        "status": "ok" if healthy else "unavailable",
        "checks": {k: "ok" if v else "down" for k, v in checks.items()},
    }
    return JsonResponse(body, status=200 if healthy else 503)
