"""Charts of metrics over time, drawn as inline SVG by templates/analytics/_chart.html.

A post's curve (`post_moments`): at each moment a sync stored samples, the post's value of a
metric is the sum over its published targets of each one's latest sample so far: a target not
read at that moment counts with its previous value, as the post's totals showed then (a
platform reporting no views adds nothing, as in the API's totals). An account's curve comes as
moments too (one a day, `analytics.selectors.account_daily_totals`).

`metrics_charts` draws moments as two charts, each on its own scale: views (reach), and likes,
comments and shares (engagement), so a few likes never lie flat under thousands of views. Each
chart has counts from 0 at the bottom to a round top in round steps, and time from left to
right labelled at round moments (seconds, minutes, hours or days, chosen by the span) with
fewer labels than points. Everything is computed here; the template only draws.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter
from typing import Any

from django.utils import timezone

from analytics.models import MetricsSample
from config.datetime_input import local_text

METRICS = {"views": "Views", "likes": "Likes", "comments": "Comments", "shares": "Shares"}
# Each chart's metrics share one scale: counts of the same order of magnitude.
GROUPS = {
    "reach": ("Views", ("views",)),
    "engagement": ("Likes, comments and shares", ("likes", "comments", "shares")),
}
WIDTH, HEIGHT = 720, 300
LEFT, RIGHT, TOP, BOTTOM = 64, 24, 16, 56  # margins around the plot: room for the axes' labels
PLOT_WIDTH, PLOT_HEIGHT = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
# Dots mark each sample while they stay apart; beyond this many the lines alone read better.
DOTS_UP_TO = 60
TIME_FORMAT = "%Y-%m-%d %H:%M"
# Time labels: at most this many, at multiples of the smallest of these steps (seconds) that
# keeps within it. Multiples of a day fall on midnight UTC.
MAX_X_TICKS = 6
MINUTE, HOUR, DAY = 60, 3600, 86400
TIME_STEPS = (
    *(1, 2, 5, 10, 15, 30),
    *(MINUTE * n for n in (1, 2, 5, 10, 15, 30)),
    *(HOUR * n for n in (1, 2, 3, 6, 12)),
    *(DAY * n for n in (1, 2, 7, 14, 30, 91, 365)),
)


@dataclass(frozen=True)
class Moment:
    """Totals at one moment (views None where no platform of them reports views)."""

    taken_at: dt.datetime
    values: dict[str, int | None]


@dataclass(frozen=True)
class Line:
    metric: str
    label: str
    points: str  # the polyline's "x,y x,y ..."
    dots: list[tuple[float, float]]
    latest: int


@dataclass(frozen=True)
class Tick:
    at: float
    label: str
    anchor: str = "middle"
    optional: bool = False  # left out where the chart is drawn narrow


@dataclass(frozen=True)
class Chart:
    key: str
    title: str
    lines: list[Line]
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    description: str
    width: int = WIDTH
    height: int = HEIGHT
    plot: dict[str, float] = field(
        default_factory=lambda: {"left": LEFT, "right": WIDTH - RIGHT, "top": TOP, "bottom": HEIGHT - BOTTOM}
    )


def post_moments(samples: Iterable[MetricsSample]) -> list[Moment]:
    """The post's totals at each moment samples were taken (`samples` ordered by `taken_at`)."""
    latest: dict[Any, MetricsSample] = {}
    moments = []
    for taken_at, group in groupby(samples, key=attrgetter("taken_at")):
        latest.update((sample.target_id, sample) for sample in group)
        values: dict[str, int | None] = {
            metric: sum(getattr(s, metric) or 0 for s in latest.values()) for metric in METRICS
        }
        if all(s.views is None for s in latest.values()):
            values["views"] = None
        moments.append(Moment(taken_at=taken_at, values=values))
    return moments


def metrics_charts(moments: list[Moment], *, min_step: int = 1) -> list[Chart]:
    """A chart per group of metrics the moments report (none without moments); time labels at
    multiples of `min_step` seconds at least (a day, for daily totals)."""
    if not moments:
        return []
    x_of = _time_scale(moments[0].taken_at, moments[-1].taken_at)
    x_ticks = time_ticks(moments[0].taken_at, moments[-1].taken_at, min_step=min_step)
    return [
        _chart(key, title, metrics, moments, x_of, x_ticks)
        for key, (title, metrics) in GROUPS.items()
        if any(moment.values[metric] is not None for moment in moments for metric in metrics)
    ]


def _chart(
    key: str,
    title: str,
    metrics: tuple[str, ...],
    moments: list[Moment],
    x_of: Callable[[dt.datetime], float],
    x_ticks: list[Tick],
) -> Chart:
    largest = max(moment.values[metric] or 0 for moment in moments for metric in metrics)
    step = value_step(largest)
    top = step * max(1, math.ceil(largest / step))
    return Chart(
        key=key,
        title=title,
        lines=[_line(metric, moments, x_of, top) for metric in metrics],
        y_ticks=[Tick(at=_y(value, top), label=_compact(value)) for value in range(0, top + 1, step)],
        x_ticks=x_ticks,
        description=_describe(moments, metrics),
    )


def value_step(largest: int) -> int:
    """A round step (1, 2 or 5 times a power of ten) that splits 0..largest in at most 4 parts."""
    rough = max(1.0, largest / 4)
    power = int(10 ** math.floor(math.log10(rough)))
    return next(factor * power for factor in (1, 2, 5, 10) if factor * power >= rough)


def _compact(value: int) -> str:
    """A tick's label, short enough for the margin: 1,500, 15k, 2.5M."""
    if value < 10_000:
        return f"{value:,}"
    if value < 1_000_000:
        return f"{value / 1000:g}k"
    return f"{value / 1_000_000:g}M"


def _time_scale(first: dt.datetime, last: dt.datetime) -> Callable[[dt.datetime], float]:
    span = (last - first).total_seconds()

    def x_of(moment: dt.datetime) -> float:
        if not span:  # one moment: in the middle
            return round(LEFT + PLOT_WIDTH / 2, 1)
        return round(LEFT + (moment - first).total_seconds() / span * PLOT_WIDTH, 1)

    return x_of


def _y(value: int | None, top: int) -> float:
    return round(TOP + PLOT_HEIGHT - (value or 0) / top * PLOT_HEIGHT, 1)


def _line(metric: str, moments: list[Moment], x_of: Callable[[dt.datetime], float], top: int) -> Line:
    coordinates = [(x_of(m.taken_at), _y(m.values[metric], top)) for m in moments]
    return Line(
        metric=metric,
        label=METRICS[metric],
        points=" ".join(f"{x},{y}" for x, y in coordinates),
        dots=coordinates if len(coordinates) <= DOTS_UP_TO else [],
        latest=moments[-1].values[metric] or 0,
    )


def time_ticks(first: dt.datetime, last: dt.datetime, *, min_step: int = 1) -> list[Tick]:
    """Labels of the time axis from `first` to `last`: at round moments, each label distinct
    and as short as the span allows (times within a day, dates across days)."""
    # Labelled in the team's zone, as every time on a dashboard page; round moments are round
    # there (its offset at `first`).
    first, last = timezone.localtime(first), timezone.localtime(last)
    x_of = _time_scale(first, last)
    span = (last - first).total_seconds()
    if not span:
        return [Tick(at=x_of(first), label=first.strftime(TIME_FORMAT))]
    step = next((s for s in TIME_STEPS if s >= min_step and span / s <= MAX_X_TICKS - 1), TIME_STEPS[-1])
    offset = int((first.utcoffset() or dt.timedelta()).total_seconds())
    start = math.ceil((first.timestamp() + offset) / step) * step - offset
    moments = [
        timezone.localtime(dt.datetime.fromtimestamp(at, tz=dt.UTC))
        for at in range(start, int(last.timestamp()) + 1, step)
    ]
    if not moments:  # a span under a second
        moments, step = [first, last], 1
    label = _time_label(step, first, last)
    return [
        Tick(at=x_of(moment), label=label(moment), anchor=_anchor(x_of(moment)), optional=index % 2 == 1)
        for index, moment in enumerate(moments)
    ]


def _time_label(step: int, first: dt.datetime, last: dt.datetime) -> Callable[[dt.datetime], str]:
    """How a label reads: days when the steps are days (with the year when the span crosses
    one), else times (with the day when the span crosses midnight), seconds when steps are."""
    crosses_year, crosses_day = first.year != last.year, first.date() != last.date()

    def label(moment: dt.datetime) -> str:
        date = f"{moment.day} {moment:%b}" + (f" {moment.year}" if crosses_year else "")
        if step >= DAY:
            return date
        time = moment.strftime("%H:%M:%S" if step < MINUTE else "%H:%M")
        return f"{date} {time}" if crosses_day else time

    return label


def _anchor(x: float) -> str:
    # A label at an edge grows inwards, so it never runs off the picture.
    if x < LEFT + 40:
        return "start"
    return "end" if x > WIDTH - RIGHT - 40 else "middle"


def _describe(moments: list[Moment], metrics: tuple[str, ...]) -> str:
    first, last = moments[0], moments[-1]
    changes = "; ".join(
        f"{METRICS[metric]} from {first.values[metric] or 0:,} to {last.values[metric] or 0:,}" for metric in metrics
    )
    count = f"{len(moments)} sample{'s' if len(moments) != 1 else ''}"
    period = f"{timezone.localtime(first.taken_at):{TIME_FORMAT}} to {local_text(last.taken_at, TIME_FORMAT)}"
    return f"{count}, {period}: {changes}."
