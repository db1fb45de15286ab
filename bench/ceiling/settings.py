"""The service's settings (same apps, models, database and Redis), stripped to bare DRF: no
middleware, no authentication, permissions or throttles, stock parser, renderer and paging."""

from __future__ import annotations

from config.settings import *  # noqa: F403

MIDDLEWARE = []
ROOT_URLCONF = "bench.ceiling.urls"
WSGI_APPLICATION = "bench.ceiling.wsgi.application"
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "DEFAULT_THROTTLE_CLASSES": [],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    "UNAUTHENTICATED_USER": None,
}
