"""The calls the data-scale figures add to the workers' helper (`bench.workers.helper`): one
team's history grown to a given number of publishes by copying a few real-shaped publishes in
bulk SQL (PostgreSQL's generate_series; no API, no ORM per row), and what it holds.

Each copy n is a publish with two targets (X and Bluesky), their attempts, their metrics and
three metrics samples each, at a moment spread over the two years before the run (a hash of n,
so the same n always lands at the same moment and the tables' rows agree). One in a hundred is
scheduled in the two weeks ahead, three are partial (the X target failed), the rest published.
Ids are derived from n (md5), so growing from 10k to 100k adds the copies 10,001 to 100,000.
"""

from __future__ import annotations

from bench.workers.helper import CALLS_SCRIPT, SERVE

SCALE_CALLS = r'''
import hashlib, uuid
from django.db import connection, transaction
from analytics.totals import refresh
from analytics.models import MetricsSample, PostMetrics, PostTotals
from publishing.models import DeliveryAttempt

BATCH = 50_000
TWO_YEARS, TWO_WEEKS = 2 * 365 * 86400, 14 * 86400
KINDS = {  # kind -> the copies it takes (n % 100)
    "scheduled": "n %% 100 = 0",
    "partial": "n %% 100 BETWEEN 1 AND 3",
    "published": "n %% 100 > 3",
}

def _template(team, accounts, kind, now):
    """One publish of `kind`, as delivery leaves it: its two targets, their attempts, metrics
    and samples."""
    from teams.models import Membership, Role
    owner = Membership.objects.get(team_id=team, role=Role.OWNER).user_id
    at = now - dt.timedelta(days=1)
    scheduled = kind == "scheduled"
    publish = Publish.objects.create(
        team_id=team, created_by_id=owner, content=f"Scale template ({kind}): our spring release is out",
        publish_mode="scheduled" if scheduled else "immediate", confirmed=True, status=kind,
        scheduled_at=now + dt.timedelta(days=1) if scheduled else None,
        released_at=None if scheduled else at, completed_at=None if scheduled else at + dt.timedelta(seconds=2),
        published_at=None if scheduled else at + dt.timedelta(seconds=1),
    )
    for platform, account in accounts.items():
        failed = kind == "partial" and platform == "x"
        state = "scheduled" if scheduled else "failed" if failed else "published"
        target = Target(
            publish=publish, account_id=account, platform=platform, state=state, attempt_count=0 if scheduled else 1,
            platform_post_id="" if state != "published" else f"{platform}-1000",
            platform_post_url="" if state != "published" else f"https://example.com/{platform}/1000",
            error_code="PLATFORM_ERROR" if failed else "", error_message="Refused." if failed else "",
            published_at=at + dt.timedelta(seconds=1) if state == "published" else None,
        )
        target.save()
        if scheduled:
            continue
        DeliveryAttempt.objects.create(
            target=target, number=1, state="failed" if failed else "published", tries=1,
            request={"text": publish.content, "media_ids": [], "platform_settings": {}},
            response={"kind": "failed" if failed else "published", "post_id": target.platform_post_id or None},
            error_code=target.error_code, error_message=target.error_message, http_status=403 if failed else 201,
            started_at=at, finished_at=at + dt.timedelta(seconds=1),
        )
        if failed:
            continue
        PostMetrics.objects.create(
            target=target, views=None if platform == "bluesky" else 1200, likes=40, comments=3, shares=5,
            last_sync_at=at + dt.timedelta(hours=6), next_sync_at=now + dt.timedelta(days=30),
        )
        MetricsSample.objects.bulk_create(
            MetricsSample(target=target, taken_at=at + dt.timedelta(hours=h), views=100 * h, likes=h)
            for h in (1, 6, 24)
        )
    refresh([publish.pk])
    return str(publish.pk)

def _insert(model, alias, overrides, source):
    """INSERT of copies of `model`'s rows `alias` read from `source` (its FROM and WHERE), each
    column copied unless `overrides` gives its expression."""
    columns = [f.column for f in model._meta.concrete_fields]
    values = ", ".join(overrides.get(c, f"{alias}.{c}") for c in columns)
    return f"INSERT INTO {model._meta.db_table} ({', '.join(columns)}) SELECT {values} FROM {source}"

# The copy's moment: past ones over two years before `now`, scheduled ones in the two weeks after.
HASH = "(hashtext('scale' || n) & 2147483647)"
AT = {
    "scheduled": f"%(now)s + ({HASH} %% {TWO_WEEKS}) * interval '1 second'",
    "past": f"%(now)s - ({HASH} %% {TWO_YEARS}) * interval '1 second'",
}

def _grow_kind(template, kind, lo, hi, now):
    at = AT["scheduled" if kind == "scheduled" else "past"]
    copies = f"generate_series(%(lo)s, %(hi)s) n"
    of_template = f"tt.publish_id = %(template)s AND {KINDS[kind]}"
    targets = f"{copies}, publishing_target tt"
    pid, tid = "md5('p' || n)::uuid", "md5('t' || n || tt.platform)::uuid"
    sampled = f"{at} + (ts.taken_at - tt.published_at)"

    def later(column, seconds):
        return f"CASE WHEN {column} IS NULL THEN NULL ELSE {at} + interval '{seconds} seconds' END"

    statements = [
        _insert(Publish, "tp", {
            "id": pid, "created_at": f"{at} - interval '1 minute'", "updated_at": at,
            "content": "tp.content || ' #' || n", "scheduled_at": later("tp.scheduled_at", 0),
            "released_at": later("tp.released_at", 0), "completed_at": later("tp.completed_at", 2),
            "published_at": later("tp.published_at", 1),
        }, f"{copies}, publishing_publish tp WHERE tp.id = %(template)s AND {KINDS[kind]}"),
        _insert(Target, "tt", {
            "id": tid, "publish_id": pid, "created_at": f"{at} - interval '1 minute'", "updated_at": at,
            "published_at": later("tt.published_at", 1),
            "platform_post_id": "CASE WHEN tt.platform_post_id = '' THEN '' ELSE tt.platform_post_id || '-' || n END",
        }, f"{targets} WHERE {of_template}"),
        _insert(DeliveryAttempt, "ta", {
            "id": "md5('a' || n || tt.platform || ta.number)::uuid", "target_id": tid, "created_at": at,
            "updated_at": at, "started_at": at, "finished_at": f"{at} + interval '1 second'",
        }, f"{targets} JOIN publishing_deliveryattempt ta ON ta.target_id = tt.id WHERE {of_template}"),
        _insert(PostMetrics, "tm", {
            "id": "md5('m' || n || tt.platform)::uuid", "target_id": tid, "created_at": at, "updated_at": at,
            "views": "CASE WHEN tm.views IS NULL THEN NULL ELSE (hashtext('v' || n) & 65535) END",
            "likes": "(hashtext('l' || n) & 1023)", "comments": "(hashtext('c' || n) & 63)",
            "shares": "(hashtext('s' || n) & 127)", "last_sync_at": f"{at} + interval '6 hours'",
        }, f"{targets} JOIN analytics_postmetrics tm ON tm.target_id = tt.id WHERE {of_template}"),
        _insert(MetricsSample, "ts", {
            "id": "md5('s' || n || tt.platform || ts.id)::uuid", "target_id": tid,
            "created_at": sampled, "updated_at": sampled, "taken_at": sampled,
        }, f"{targets} JOIN analytics_metricssample ts ON ts.target_id = tt.id WHERE {of_template}"),
    ]
    if kind == "scheduled":
        statements.append(_insert(ScheduledRelease, "tr", {
            "id": "md5('r' || n)::uuid", "publish_id": pid, "created_at": at, "updated_at": at, "due_at": at,
        }, f"{copies}, publishing_scheduledrelease tr WHERE tr.publish_id = %(template)s AND {KINDS[kind]}"))
    params = {"lo": lo, "hi": hi, "template": template, "now": now}
    with transaction.atomic(), connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement, params)

TABLES = (Publish, Target, DeliveryAttempt, PostMetrics, MetricsSample, PostTotals)

def grow(team, accounts, size, now):
    """Grow the team's copies to `size` (its templates made on the first call): the seconds
    the copies took, and the rows of each table then."""
    now = dt.datetime.fromtimestamp(now, dt.timezone.utc)
    templates = getattr(grow, "templates", None)
    if templates is None:
        templates = grow.templates = {kind: _template(team, accounts, kind, now) for kind in KINDS}
        grow.size = 0
    started = time.perf_counter()
    for lo in range(grow.size + 1, size + 1, BATCH):
        hi = min(size, lo + BATCH - 1)
        for kind, template in templates.items():
            _grow_kind(template, kind, lo, hi, now)
        refresh(uuid.UUID(hashlib.md5(f"p{n}".encode()).hexdigest()) for n in range(lo, hi + 1))  # the copies' ids
    grow.size = max(grow.size, size)
    copied = time.perf_counter() - started
    with connection.cursor() as cursor:  # as autovacuum leaves a history this old: its pages all-visible
        cursor.execute("VACUUM ANALYZE")
    rows = {}
    with connection.cursor() as cursor:
        for model in TABLES:
            cursor.execute(f"SELECT count(*) FROM {model._meta.db_table}")
            rows[model._meta.db_table] = cursor.fetchone()[0]
    return {"seconds": copied, "rows": rows}

def sample_ids(team):
    """A published publish (for the detail pages) and an account (for the account filter)."""
    publish = Publish.objects.filter(team_id=team, status="published").order_by("-created_at").first()
    return {"publish": str(publish.pk), "account": str(publish.targets.first().account_id)}

def owner_username(team):
    """The name the team's owner signs in with (seed_demo's fresh data tags it)."""
    from teams.models import Membership, Role
    return Membership.objects.select_related("user").get(team_id=team, role=Role.OWNER).user.get_username()

CALLS.update({f.__name__: f for f in (grow, sample_ids, owner_username)})
'''

SCALE_HELPER = CALLS_SCRIPT + SCALE_CALLS + SERVE
