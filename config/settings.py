"""Settings, every one read from an environment variable with a safe default.

`APP_ENV` selects the defaults: `development` (the default, what `make run` and the tests use)
needs no server and no secret; `production` refuses to start without `SECRET_KEY` and
`FIELD_ENCRYPTION_KEYS`. See the README's configuration table for every variable.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import django_stubs_ext
import environ

from config import fernet_keys

# Lets annotations such as `admin.ModelAdmin[Team]` work at run time, not only for mypy.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"
VAR_DIR.mkdir(exist_ok=True)

env = environ.Env()

APP_ENV = env.str("APP_ENV", default="development")
if APP_ENV not in {"development", "production"}:
    raise environ.ImproperlyConfigured("APP_ENV must be 'development' or 'production'")
DEVELOPMENT = APP_ENV == "development"


def _development_secret(name: str) -> str:
    """A random secret kept under var/ so that every local process (web, worker, beat,
    manage.py) agrees on it and it survives restarts. Never used in production."""
    path = VAR_DIR / name
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


# --- Core -------------------------------------------------------------------------------
# https://docs.djangoproject.com/en/5.2/ref/settings/#secret-key
if DEVELOPMENT:
    SECRET_KEY = env.str("SECRET_KEY", default="") or _development_secret("secret_key")
else:
    SECRET_KEY = env.str("SECRET_KEY")
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
PUBLIC_BASE_URL = env.str("PUBLIC_BASE_URL", default=f"http://127.0.0.1:{env.int('PORT', default=8000)}")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "teams",
    "accounts",
    "media",
    "webhooks",
    "publishing",
    "analytics",
    "mcpserver",
    "notifications",
    "demo",
]

MIDDLEWARE = [
    "config.middleware.ReleaseMiddleware",
    "config.middleware.RequestIdMiddleware",
    "config.middleware.TimeZoneMiddleware",
    "config.middleware.LengthRequiredMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "accounts.login_throttle.LoginThrottleMiddleware",
    "config.middleware.ContentSecurityPolicyMiddleware",
]

ROOT_URLCONF = "config.urls"
# API paths take an optional trailing slash themselves; a redirect would drop a POST body.
APPEND_SLASH = False
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "publishing.context_processors.approvals_waiting",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------
# https://django-environ.readthedocs.io/en/latest/types.html#environ-env-db-url
# PostgreSQL in CI and production; a SQLite file under var/ needs no server for `make run`.
DATABASES = {"default": env.db_url("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # web, worker and beat share the file: wait for locks instead of failing at once, and take
    # the write lock at BEGIN so two writers never deadlock upgrading a read lock.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
else:
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend, its health check without a round trip when the socket says enough.
    DATABASES["default"]["ENGINE"] = "config.postgres"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# On PostgreSQL the hot writes and reads (a create's insert and accounts, the worker's claim,
# start and answer, a webhook's event, claim and success) run fixed statements; false runs
# their ORM twins, the path every other database takes (config.db.fixed_statements), so the
# two can be compared on one database, in the tests and in `make bench`.
DB_FIXED_STATEMENTS = env.bool("DB_FIXED_STATEMENTS", default=True)

# --- Redis: broker, cache, rate limits --------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "config.cache.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Jobs -------------------------------------------------------------------------------
SCHEDULER_TICK_SECONDS = env.float("SCHEDULER_TICK_SECONDS", default=5.0)
# A scheduled publish is checked against its accounts as they are now (publishing.preflight)
# this long before its time, so that a problem shows while there is time to fix it.
PREFLIGHT_SECONDS = env.int("PREFLIGHT_SECONDS", default=600)
# Sending one target (a 500 MB video upload included) must end within these limits; an
# attempt still `sending` after DISPATCH_STALE_SECONDS had its worker die mid-call.
DISPATCH_SOFT_TIME_LIMIT = env.int("DISPATCH_SOFT_TIME_LIMIT", default=900)
DISPATCH_TIME_LIMIT = env.int("DISPATCH_TIME_LIMIT", default=960)
DISPATCH_STALE_SECONDS = env.int("DISPATCH_STALE_SECONDS", default=DISPATCH_TIME_LIMIT + 60)
# An unknown attempt whose post the platform's read-back does not find is failed (with that
# evidence) only once it is this old: a platform may show a post some time after making it.
RECONCILE_ABSENT_AFTER_SECONDS = env.float("RECONCILE_ABSENT_AFTER_SECONDS", default=600.0)
# A read-back the reconciler takes is leased this long, so a parallel run skips it; a run that
# dies mid-check (its worker killed) leaves the target waiting this long for the next one.
RECONCILE_CHECK_LEASE_SECONDS = env.float("RECONCILE_CHECK_LEASE_SECONDS", default=300.0)
# A job the broker took but no worker claimed this long after is handed over again (the
# broker lost it: a Redis restarted without persistence).
DISPATCH_RELAY_AFTER_SECONDS = env.float("DISPATCH_RELAY_AFTER_SECONDS", default=120.0)

# How often metrics of published posts are synced (analytics.services says which are due).
ANALYTICS_SYNC_SECONDS = env.float("ANALYTICS_SYNC_SECONDS", default=900.0)
# A post's "Refresh now" starts one read of its metrics at most once in this window.
ANALYTICS_REFRESH_SECONDS = env.int("ANALYTICS_REFRESH_SECONDS", default=60)

# --- Celery -----------------------------------------------------------------------------
# https://docs.celeryq.dev/en/stable/userguide/configuration.html
# Without Redis, kombu's filesystem transport is a broker that needs no server and works
# across processes (web, worker and beat each open the same folder).
BROKER_DIR = Path(env.str("BROKER_DIR", default=str(VAR_DIR / "broker")))
CELERY_BROKER_URL = REDIS_URL or "filesystem://localhost/"  # the host is ignored; naming one avoids a warning
if not REDIS_URL:
    for _folder in ("queue", "control"):
        (BROKER_DIR / _folder).mkdir(parents=True, exist_ok=True)
# kombu's Redis transport, kept running when the broker connection drops (config.broker_transport);
# without Redis, kombu's filesystem transport writing each message whole (config.folder_transport).
CELERY_BROKER_TRANSPORT = "config.broker_transport:Transport" if REDIS_URL else "config.folder_transport:Transport"
CELERY_BROKER_CONNECTION_TIMEOUT = env.float("BROKER_CONNECT_TIMEOUT", default=3.0)
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = (
    {
        # At least twice the longest hard time limit, or Redis redelivers running tasks.
        "visibility_timeout": 2 * 3600,
        # Producer connections are pooled: a broker that stops answering (or a connect that
        # hangs) fails a hand-over within these bounds instead of holding the request.
        "socket_connect_timeout": CELERY_BROKER_CONNECTION_TIMEOUT,
        "socket_timeout": env.float("BROKER_SOCKET_TIMEOUT", default=10.0),
    }
    if REDIS_URL
    else {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        # The folder is polled; kombu's default of 1 s caps a worker at one task a second.
        "polling_interval": 0.05,
    }
)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_SOFT_TIME_LIMIT = 300
CELERY_TASK_TIME_LIMIT = 360
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Celery's Django fixup closes every database connection after every task unless this is set;
# a worker process then reconnects only every this many tasks (config.celery also applies
# CONN_MAX_AGE and CONN_HEALTH_CHECKS around each task, as Django does around a request).
CELERY_DB_REUSE_MAX = env.int("CELERY_DB_REUSE_MAX", default=1000)
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = "UTC"
# Each lane is a queue with a worker of its own (Procfile; config.lanes says what each carries).
CELERY_TASK_ROUTES = {
    "publishing.deliver": {"queue": "dispatch"},  # a post with a video: on `uploads` (the job's lane)
    "publishing.check": {"queue": "uploads"},  # processing polls and read-backs
    "publishing.release_due": {"queue": "control"},
    "publishing.relay": {"queue": "control"},
    "publishing.reconcile": {"queue": "control"},
    "media.fetch_source": {"queue": "fetch"},
    "media.sweep_fetches": {"queue": "fetch"},
    "media.*": {"queue": "media"},
    "webhooks.*": {"queue": "webhooks"},
    "analytics.*": {"queue": "analytics"},
    "notifications.*": {"queue": "default"},
}
# How many slots of a lane one team may hold at once (config.lanes.team_share); a task of a
# team over its share goes back to the broker for LANE_RETRY_SECONDS instead of waiting.
LANE_TEAM_SHARES = {
    "fetch": env.int("FETCH_TEAM_CONCURRENCY", default=2),
    "media": env.int("MEDIA_TEAM_CONCURRENCY", default=1),
    "webhooks": env.int("WEBHOOK_TEAM_CONCURRENCY", default=4),
    "analytics": env.int("ANALYTICS_TEAM_CONCURRENCY", default=1),
}
LANE_RETRY_SECONDS = env.float("LANE_RETRY_SECONDS", default=2.0)
# Each account posts no faster than its platform documents (accounts.pacing); off only for
# benchmarks that push thousands of posts through a few sandbox accounts.
PACE_ACCOUNTS = env.bool("PACE_ACCOUNTS", default=True)
# Retention: the rows of machinery (not of the publishing record) that the purges remove, and
# how often they run. Delivery jobs are the outbox (each attempt keeps what was sent); webhook
# deliveries, their attempt logs and their events are the delivery history of the API.
PURGE_SECONDS = env.float("PURGE_SECONDS", default=3600.0)
DONE_JOB_RETENTION_SECONDS = env.float("DONE_JOB_RETENTION_SECONDS", default=24 * 3600.0)
WEBHOOK_DELIVERY_RETENTION_SECONDS = env.float("WEBHOOK_DELIVERY_RETENTION_SECONDS", default=30 * 24 * 3600.0)
# A post's metrics samples (its chart): every one of its last METRICS_SAMPLE_DAILY_AFTER_DAYS,
# then the day's last, and none over METRICS_SAMPLE_RETENTION_DAYS old (a post's latest values
# and its totals stay). Bounded per post: about 100 a day while fresh, one a day after.
METRICS_SAMPLE_DAILY_AFTER_DAYS = env.int("METRICS_SAMPLE_DAILY_AFTER_DAYS", default=7)
METRICS_SAMPLE_RETENTION_DAYS = env.int("METRICS_SAMPLE_RETENTION_DAYS", default=365)
# Installed into django-celery-beat's database schedule when beat starts.
CELERY_BEAT_SCHEDULE = {
    "media-sweep-fetches": {"task": "media.sweep_fetches", "schedule": 60.0},
    "media-sweep-probes": {"task": "media.sweep_probes", "schedule": 5 * 60.0},
    "media-delete-unconfirmed": {"task": "media.delete_unconfirmed", "schedule": 15 * 60.0},
    "accounts-refresh-tokens": {"task": "accounts.refresh_tokens", "schedule": 10 * 60.0},
    "accounts-warn-expiring": {"task": "accounts.warn_expiring", "schedule": 3600.0},
    "webhooks-sweep": {"task": "webhooks.sweep", "schedule": env.float("WEBHOOK_SWEEP_SECONDS", default=5.0)},
    "publishing-release-due": {"task": "publishing.release_due", "schedule": SCHEDULER_TICK_SECONDS},
    "publishing-relay": {"task": "publishing.relay", "schedule": 15.0},
    "publishing-preflight": {"task": "publishing.preflight", "schedule": 60.0},
    "publishing-purge-idempotency-keys": {"task": "publishing.purge_idempotency_keys", "schedule": PURGE_SECONDS},
    "publishing-purge-done-jobs": {"task": "publishing.purge_done_jobs", "schedule": PURGE_SECONDS},
    "webhooks-purge-deliveries": {"task": "webhooks.purge_deliveries", "schedule": PURGE_SECONDS},
    "analytics-purge-samples": {"task": "analytics.purge_samples", "schedule": PURGE_SECONDS},
    "publishing-reconcile": {"task": "publishing.reconcile", "schedule": env.float("RECONCILE_SECONDS", default=5.0)},
    "analytics-sync": {"task": "analytics.sync", "schedule": ANALYTICS_SYNC_SECONDS},
}
CELERY_TASK_ALWAYS_EAGER = False

# --- Email -------------------------------------------------------------------------------
# https://django-environ.readthedocs.io/en/latest/types.html#environ-env-email-url
# Notifications (notifications/mails.py) go through Django's email backend, chosen by EMAIL_URL:
# `smtp+tls://user:password@host:587` (or `smtp://`, `smtps://`), `consolemail://` (the default:
# each mail is printed by the worker that sends it, for development) or `dummymail://` (none).
# Links in mails start with PUBLIC_BASE_URL.
vars().update(env.email_url("EMAIL_URL", default="consolemail://"))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Social Publishing <notifications@localhost>")
# Seconds each step of an SMTP conversation may take, so a stuck server cannot hold a worker.
EMAIL_TIMEOUT = env.float("EMAIL_TIMEOUT", default=10.0)

# --- Outbound HTTP and the platforms ----------------------------------------------------
SANDBOX_PORT = env.int("SANDBOX_PORT", default=8100)
SANDBOX_URL = env.str("SANDBOX_URL", default=f"http://127.0.0.1:{SANDBOX_PORT}").rstrip("/")
PLATFORM_TIMEOUT_SECONDS = env.float("PLATFORM_TIMEOUT_SECONDS", default=30.0)
# Each platform's app credentials (X_CLIENT_ID, X_CLIENT_SECRET, ...). With them, the dashboard
# connects real accounts; without them, development connects sandbox accounts and production
# cannot connect that platform. The sandbox (SANDBOX_URL) exists only in development.
for _platform in ("X", "INSTAGRAM", "TIKTOK", "YOUTUBE", "FACEBOOK", "LINKEDIN", "PINTEREST", "THREADS"):
    globals()[f"{_platform}_CLIENT_ID"] = env.str(f"{_platform}_CLIENT_ID", default="")
    globals()[f"{_platform}_CLIENT_SECRET"] = env.str(f"{_platform}_CLIENT_SECRET", default="")
LINKEDIN_API_VERSION = env.str("LINKEDIN_API_VERSION", default="202507")
# An account's live options (TikTok creator info, Pinterest boards, YouTube categories) are
# kept this long in the cache; a failed read is not kept. YouTube's categories are those of
# this region (ISO 3166-1 alpha-2).
CAPABILITIES_CACHE_SECONDS = env.int("CAPABILITIES_CACHE_SECONDS", default=300)
# `refresh=true` reads the platform again at most once per account in this window; sooner, the
# cached options answer (API and compose page alike).
CAPABILITIES_REFRESH_SECONDS = env.int("CAPABILITIES_REFRESH_SECONDS", default=60)
YOUTUBE_REGION_CODE = env.str("YOUTUBE_REGION_CODE", default="US")
SSRF_ALLOW_PRIVATE = env.bool("SSRF_ALLOW_PRIVATE", default=False)
# CIDRs that user-supplied URLs may reach although they are not public (an operator allow-list).
SSRF_ALLOWED_NETWORKS = env.list("SSRF_ALLOWED_NETWORKS", default=[])
# URL prefixes (scheme, host, port and a path ending in "/") that user-supplied URLs may reach
# although their host is not public: no other port or path of that host opens. In development,
# the sandbox's webhook inbox, so `make run` can deliver webhooks to it.
SSRF_ALLOWED_URL_PREFIXES = env.list(
    "SSRF_ALLOWED_URL_PREFIXES", default=[f"{SANDBOX_URL}/_sandbox/inbox/"] if DEVELOPMENT else []
)
# CA bundle for https to user-supplied URLs (certifi's when unset), e.g. behind a corporate CA.
OUTBOUND_CA_BUNDLE = env.str("OUTBOUND_CA_BUNDLE", default="") or None

WEBHOOK_RETRY_DELAYS = env.list("WEBHOOK_RETRY_DELAYS", cast=float, default=[60, 300, 1800, 7200, 43200])
# After a secret rotation the replaced secret keeps signing beside the new one this long.
WEBHOOK_SECRET_OVERLAP_SECONDS = env.float("WEBHOOK_SECRET_OVERLAP_SECONDS", default=24 * 3600.0)
# Test events and redeliveries a minute, per webhook: each is an attempt at its receiver.
WEBHOOK_TEST_PER_MINUTE = env.int("WEBHOOK_TEST_PER_MINUTE", default=5)
# The circuit breaker (webhooks/circuit.py): after this many attempts in a row that time out or
# cannot connect, a webhook's deliveries wait for the cool-down, doubled at each reopening up to
# the maximum, before one is tried as a probe.
WEBHOOK_CIRCUIT_TIMEOUTS = env.int("WEBHOOK_CIRCUIT_TIMEOUTS", default=5)
WEBHOOK_CIRCUIT_COOLDOWN_SECONDS = env.float("WEBHOOK_CIRCUIT_COOLDOWN_SECONDS", default=60.0)
WEBHOOK_CIRCUIT_MAX_COOLDOWN_SECONDS = env.float("WEBHOOK_CIRCUIT_MAX_COOLDOWN_SECONDS", default=3600.0)

# --- Secrets at rest --------------------------------------------------------------------
# Fernet keys (comma-separated, newest first) for OAuth tokens and webhook secrets; older
# keys keep decrypting while a rotation re-encrypts (`manage.py rotate_field_keys`).
# Development derives one from SECRET_KEY; production checks them here, so that a process
# with a missing or malformed key refuses to start rather than fail on the first token.
FIELD_ENCRYPTION_KEYS = [key.strip() for key in env.list("FIELD_ENCRYPTION_KEYS", default=[]) if key.strip()]
if FIELD_ENCRYPTION_KEYS or not DEVELOPMENT:
    fernet_keys.fernets(FIELD_ENCRYPTION_KEYS)

# --- API --------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["teams.authentication.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["teams.permissions.HasScope"],
    "DEFAULT_THROTTLE_CLASSES": ["config.throttling.KeyRateThrottle"],
    "DEFAULT_PAGINATION_CLASS": "config.pagination.PagePagination",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.parsers.BoundedJSONParser"],
    "DEFAULT_SCHEMA_CLASS": "config.schema.ApiAutoSchema",
    "EXCEPTION_HANDLER": "config.handlers.exception_handler",
    "UNAUTHENTICATED_USER": None,
    "PAGE_SIZE": 20,
}
# JSON request bodies: larger ones are a 413, deeper ones a 400 (config/parsers.py).
API_MAX_BODY_BYTES = 1024 * 1024
API_MAX_BODY_DEPTH = 32
# Django reads request.body (what DRF gives JSON parsers, and forms) no further than this.
DATA_UPLOAD_MAX_MEMORY_SIZE = API_MAX_BODY_BYTES
# Requests per minute per API key, by bucket (spec §8).
RATE_LIMITS = {"create_publish": 30, "retry": 30, "default": 120}
# /mcp's own requests (initialize, tools/list, each tool call's message); a tool call also
# counts against the bucket of the REST operation it runs (mcpserver/http.py).
RATE_LIMITS["mcp"] = 120
# Per webhook and team: its test events and redeliveries together (config.throttling.ObjectRateThrottle).
RATE_LIMITS["webhook_test"] = WEBHOOK_TEST_PER_MINUTE
RATE_LIMIT_KEY_PREFIX = env.str("RATE_LIMIT_KEY_PREFIX", default="ratelimit")
# Web processes that count apart when Redis is unset or down: each allows its share of a limit
# (config/throttling.py). The Procfile runs two gunicorn workers.
RATE_LIMIT_LOCAL_PROCESSES = env.int("RATE_LIMIT_LOCAL_PROCESSES", default=env.int("WEB_CONCURRENCY", default=2))

SPECTACULAR_SETTINGS = {
    "TITLE": "Social Publishing API",
    "DESCRIPTION": (
        "Publish text and media to X, Instagram, TikTok, YouTube, Facebook, LinkedIn, "
        "Pinterest, Threads and Bluesky with one request. Authenticate with "
        "`Authorization: Bearer sk_...`; each operation names the scope it needs. Errors "
        'always have the shape `{"error": {"type", "code", "message", "request_id", '
        '"details"?}}` and every response carries `X-Request-ID`.'
    ),
    "VERSION": "1.0.0",
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI served from this service, not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.schema.strip_trailing_slashes",
    ],
    "ENUM_NAME_OVERRIDES": {
        "PlatformEnum": "accounts.models.Platform",
        "WeekdayEnum": "accounts.schedules.DAYS",
        "AccountStatusEnum": "accounts.models.AccountStatus",
        "PublishStatusEnum": "publishing.models.PublishStatus",
        "PublishModeEnum": "publishing.models.PublishMode",
        "CreateModeEnum": "publishing.models.CREATE_MODES",
        "TargetStatusEnum": "publishing.models.TARGET_STATUSES",
        "AttemptStateEnum": "publishing.models.AttemptState",
        "MediaStateEnum": "media.models.MediaState",
        "WebhookDeliveryStatusEnum": "webhooks.models.DeliveryState",
        "WarningCodeEnum": "publishing.duplicate_content.WARNING_CODES",
    },
}

# --- Auth, sessions, security -----------------------------------------------------------
# Password logins (dashboard and admin) slow down per client address (accounts/login_throttle.py):
# after LOGIN_FAILURE_LIMIT failures of one username from one address, or
# LOGIN_ADDRESS_FAILURE_LIMIT of any usernames, the next try waits LOGIN_DELAY_SECONDS, doubling
# with each further failure up to LOGIN_DELAY_MAX_SECONDS; failures are forgotten a day after
# the last. The same username from another address is never slowed.
LOGIN_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=5)
LOGIN_ADDRESS_FAILURE_LIMIT = env.int("LOGIN_ADDRESS_FAILURE_LIMIT", default=20)
LOGIN_DELAY_SECONDS = env.int("LOGIN_DELAY_SECONDS", default=30)
LOGIN_DELAY_MAX_SECONDS = env.int("LOGIN_DELAY_MAX_SECONDS", default=900)
LOGIN_FAILURE_MEMORY_SECONDS = env.int("LOGIN_FAILURE_MEMORY_SECONDS", default=86400)
# How many proxies in front of the service append to X-Forwarded-For (config/proxies.py): the
# client's address is read that many entries from the right; 0 (no proxy) uses REMOTE_ADDR.
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/dashboard/home/"
LOGOUT_REDIRECT_URL = "/login/"
SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# The admin shows a new API key once, as a message: kept in the session (encrypted), never in a cookie.
MESSAGE_STORAGE = "config.messages.EncryptedSessionStorage"
# https://docs.djangoproject.com/en/5.2/ref/middleware/#referrer-policy
SECURE_REFERRER_POLICY = "same-origin"
if not DEVELOPMENT:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    # https://docs.djangoproject.com/en/5.2/ref/middleware/#http-strict-transport-security
    # HTTPS only, behind a proxy that terminates TLS and sets X-Forwarded-Proto (and strips
    # the client's own): Django trusts that header to tell https from http.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # probed over plain http from inside the network
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=365 * 86400)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    # Asking browsers' preload list to include the domain is the operator's decision (it is slow
    # to undo), so it is off unless asked for, and the check suggesting it is silenced then.
    SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
    if not SECURE_HSTS_PRELOAD:
        SILENCED_SYSTEM_CHECKS = ["security.W021"]

# Every HTML page carries a Content-Security-Policy (config/middleware.py): scripts and styles
# from this service only; images and video also from the media storage, whose address is read
# from it. Further origins media URLs may point to (a CDN in front of the bucket), comma-separated.
CSP_MEDIA_ORIGINS = env.list("CSP_MEDIA_ORIGINS", default=[])

# --- Internationalisation and time ------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files -----------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]  # the dashboard's stylesheet and scripts
STATIC_ROOT.mkdir(exist_ok=True)  # `collectstatic` fills it; whitenoise warns while it is missing
MEDIA_ROOT = VAR_DIR / "media"
STORAGES: dict[str, dict[str, object]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"allow_overwrite": True}},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# --- Media uploads ----------------------------------------------------------------------
# https://django-storages.readthedocs.io/en/latest/backends/amazon-S3.html
# With a bucket, uploads go straight to S3 (or any S3 API) through presigned PUT URLs;
# without one they go to this service, which streams them into MEDIA_ROOT.
AWS_STORAGE_BUCKET_NAME = env.str("AWS_STORAGE_BUCKET_NAME", default="")
if AWS_STORAGE_BUCKET_NAME:
    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": AWS_STORAGE_BUCKET_NAME,
            "endpoint_url": env.str("AWS_S3_ENDPOINT_URL", default="") or None,
            "region_name": env.str("AWS_S3_REGION_NAME", default="us-east-1"),
            "access_key": env.str("AWS_ACCESS_KEY_ID", default="") or None,
            "secret_key": env.str("AWS_SECRET_ACCESS_KEY", default="") or None,
            "addressing_style": env.str("AWS_S3_ADDRESSING_STYLE", default="auto"),
            "signature_version": "s3v4",
            "file_overwrite": True,
            "default_acl": None,
            "querystring_auth": True,
        },
    }
MEDIA_MAX_BYTES = 500 * 1024 * 1024  # spec §8: 500 MB per file
MEDIA_UPLOAD_URL_SECONDS = 15 * 60  # spec §8: presigned URLs live 15 minutes
MEDIA_DOWNLOAD_URL_SECONDS = env.int("MEDIA_DOWNLOAD_URL_SECONDS", default=60 * 60)
MEDIA_UNCONFIRMED_RETENTION_HOURS = 24  # spec §8
# A source_url fetch (media.fetch_source, on the `fetch` lane) ends by its deadline, and sooner
# (FETCH_TOO_SLOW) once, after the grace period, it has averaged less than the minimum rate, or
# sends nothing at all for a while. At the 50 KB/s floor a 500 MB file would take ~2.8 hours;
# 300 s carries ~15 MB at the floor and the whole 500 MB at ~1.7 MB/s, so one fetch holds one of
# its team's FETCH_TEAM_CONCURRENCY slots for 5 minutes at most.
MEDIA_FETCH_DEADLINE_SECONDS = env.float("MEDIA_FETCH_DEADLINE_SECONDS", default=300.0)
MEDIA_FETCH_MIN_BYTES_PER_SECOND = env.int("MEDIA_FETCH_MIN_BYTES_PER_SECOND", default=50 * 1024)
MEDIA_FETCH_MIN_RATE_AFTER_SECONDS = env.float("MEDIA_FETCH_MIN_RATE_AFTER_SECONDS", default=10.0)
# Probing (ffprobe) and fitted renditions (Pillow, ffmpeg) run in workers, never in a web
# thread, each as a subprocess bounded by a wall clock, CPU seconds and address space. Without
# the binaries, probing records `skipped` and no rendition can be made.
FFPROBE_BINARY = env.str("FFPROBE_BINARY", default="ffprobe")
FFMPEG_BINARY = env.str("FFMPEG_BINARY", default="ffmpeg")
MEDIA_PROBE_TIMEOUT_SECONDS = env.float("MEDIA_PROBE_TIMEOUT_SECONDS", default=30.0)
MEDIA_PROCESS_MEMORY_BYTES = env.int("MEDIA_PROCESS_MEMORY_BYTES", default=2 * 1024**3)
# Fitted renditions are made by the `media.fit` task in the media lane (never in a dispatch
# thread), each by one bounded subprocess: ffmpeg for videos, `media/fit_image.py` (Pillow)
# for images. One rendition may take this long.
MEDIA_FIT_TIMEOUT_SECONDS = env.float("MEDIA_FIT_TIMEOUT_SECONDS", default=DISPATCH_SOFT_TIME_LIMIT / 3)
# Videos longer than this are not transcoded (the create names the problem instead).
MEDIA_FIT_MAX_VIDEO_SECONDS = env.float("MEDIA_FIT_MAX_VIDEO_SECONDS", default=600.0)
# The most one fit may decode, in megapixels: width x height x frames (a video's duration x
# frame rate; an image's first frame, all a JPEG keeps). A fit over it is refused before any
# work, and a create whose media would need one is a 400. 10,000 (a 1080p30 video of 160 s,
# 4K30 of 40 s) keeps a transcode well inside MEDIA_FIT_TIMEOUT_SECONDS at the ~100 megapixels
# a second x264 `veryfast` makes on two cores.
MEDIA_FIT_BUDGET_MEGAPIXELS = env.int("MEDIA_FIT_BUDGET_MEGAPIXELS", default=10_000)
# Hostile media: refused whatever the platform, as probed (or sniffed, while the probe runs).
MEDIA_MAX_DIMENSION = env.int("MEDIA_MAX_DIMENSION", default=16384)
MEDIA_MAX_PIXELS = env.int("MEDIA_MAX_PIXELS", default=100_000_000)
MEDIA_MAX_DURATION_SECONDS = env.float("MEDIA_MAX_DURATION_SECONDS", default=4 * 3600.0)

# --- Logging ----------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "config.middleware.RequestIdLogFilter"},
        "client_errors": {"()": "config.middleware.ClientErrorLogFilter"},
    },
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["request_id", "client_errors"],
        },
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # The MCP SDK's session manager starts and stops once per /mcp request (mcpserver.http).
        "mcp.server.streamable_http_manager": {"level": "WARNING"},
    },
}
# Celery's own line per task sent, received and succeeded (the periodic tasks run every few
# seconds): off unless asked for, so a publish's outcome (publishing.delivery) and every
# error stay readable. Failures of tasks are logged either way.
LOG_EVERY_TASK = env.bool("LOG_EVERY_TASK", default=False)
