"""The chart of a post's metrics over time, drawn as inline SVG by templates/analytics/_chart.html.

`metrics_chart` turns a post's samples into a `Chart`. At each moment a sync stored samples, the
post's value of a metric is the sum over its published targets of each one's latest sample so
far: a target not read at that moment counts with its previous value, as the post's totals
showed then (a platform reporting no views adds nothing, as in the API's totals). Those moments
are then placed in a fixed viewBox: time from left to right, counts from 0 at the bottom to a
round top, one line per metric. Everything is computed here; the template only draws.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter
from typing import Any

from django.utils import timezone

from analytics.models import MetricsSample
from config.datetime_input import local_text

METRICS = {"views": "Views", "likes": "Likes", "comments": "Comments", "shares": "Shares"}
WIDTH, HEIGHT = 720, 320
LEFT, RIGHT, TOP, BOTTOM = 64, 24, 16, 56  # margins around the plot: room for the axes' labels
PLOT_WIDTH, PLOT_HEIGHT = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
# Dots mark each sample while they stay apart; beyond this many the lines alone read better.
DOTS_UP_TO = 60
TIME_FORMAT = "%Y-%m-%d %H:%M"


@dataclass(frozen=True)
class Moment:
    """The post's totals when a sync stored samples."""

    taken_at: dt.datetime
    values: dict[str, int]


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
    moments: list[Moment]
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
        values = {metric: sum(getattr(s, metric) or 0 for s in latest.values()) for metric in METRICS}
        moments.append(Moment(taken_at=taken_at, values=values))
    return moments


def metrics_chart(samples: Iterable[MetricsSample], metrics: Sequence[str] = tuple(METRICS)) -> Chart | None:
    """The chart of the samples, a line for each of `metrics` (views dwarf the others: leaving
    them out scales the chart to the rest); None when there are no samples yet."""
    moments = post_moments(samples)
    if not moments:
        return None
    shown = {metric: label for metric, label in METRICS.items() if metric in metrics} or METRICS
    largest = max(moment.values[metric] for moment in moments for metric in shown)
    step = _step(largest)
    top = step * max(1, math.ceil(largest / step))
    x_of = _time_scale(moments[0].taken_at, moments[-1].taken_at)
    lines = [_line(metric, label, moments, x_of, top) for metric, label in shown.items()]
    y_ticks = [Tick(at=_y(value, top), label=_compact(value)) for value in range(0, top + 1, step)]
    return Chart(
        moments=moments,
        lines=lines,
        y_ticks=y_ticks,
        x_ticks=_x_ticks(moments),
        description=_describe(moments, shown),
    )


def _step(largest: int) -> int:
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


def _y(value: int, top: int) -> float:
    return round(TOP + PLOT_HEIGHT - value / top * PLOT_HEIGHT, 1)


def _line(metric: str, label: str, moments: list[Moment], x_of: Callable[[dt.datetime], float], top: int) -> Line:
    coordinates = [(x_of(m.taken_at), _y(m.values[metric], top)) for m in moments]
    return Line(
        metric=metric,
        label=label,
        points=" ".join(f"{x},{y}" for x, y in coordinates),
        dots=coordinates if len(coordinates) <= DOTS_UP_TO else [],
        latest=moments[-1].values[metric],
    )


def _x_ticks(moments: list[Moment]) -> list[Tick]:
    # The team's zone, as every time on a dashboard page.
    first, last = timezone.localtime(moments[0].taken_at), timezone.localtime(moments[-1].taken_at)
    if first == last:
        return [Tick(at=LEFT + PLOT_WIDTH / 2, label=first.strftime(TIME_FORMAT))]
    middle = timezone.localtime(first + (last - first) / 2)
    return [
        Tick(at=LEFT, label=first.strftime(TIME_FORMAT), anchor="start"),
        Tick(at=LEFT + PLOT_WIDTH / 2, label=middle.strftime(TIME_FORMAT), anchor="middle", optional=True),
        Tick(at=WIDTH - RIGHT, label=last.strftime(TIME_FORMAT), anchor="end"),
    ]


def _describe(moments: list[Moment], shown: dict[str, str]) -> str:
    first, last = moments[0], moments[-1]
    changes = "; ".join(
        f"{label} from {first.values[metric]:,} to {last.values[metric]:,}" for metric, label in shown.items()
    )
    count = f"{len(moments)} sample{'s' if len(moments) != 1 else ''}"
    period = f"{timezone.localtime(first.taken_at):{TIME_FORMAT}} to {local_text(last.taken_at, TIME_FORMAT)}"
    return f"{count}, {period}: {changes}."
