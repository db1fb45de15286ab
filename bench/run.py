"""`make bench`: every figure of the benchmark, each beside its ceiling, in one table.

    .venv/bin/python -m bench.run [--quick] [--only web,workers,webhooks]

Runs the figure modules (bench.web, and bench.workers and bench.webhooks when they exist), each
of which starts what it measures and stops it again, prints one table (figure, value, ceiling,
ratio, goal, met) and writes bench/results/latest.json (bench/results/quick.json with --quick)
with the figures, the machine's cores and memory, the commit and the date.

The exit status is 1 only for a broken run: a module that raises (a server that does not start,
a wrong answer); the other modules still run. A missed goal is reported, never a failure.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import importlib.util
import json
import signal
import sys
import time
import traceback
from typing import Any

from bench.common import ROOT, Figure, git_commit, machine

MODULES = ("web", "workers", "webhooks", "campaign", "scale")
RESULTS = ROOT / "bench" / "results"


def _available(name: str) -> bool:
    return importlib.util.find_spec(f"bench.{name}") is not None


def _run(name: str, quick: bool) -> tuple[list[Figure], str | None, float]:
    """(figures, the error of a broken run or None, seconds) of module bench.NAME."""
    started = time.monotonic()
    try:
        figures = list(importlib.import_module(f"bench.{name}").measure(quick))
    except Exception as exc:  # noqa: BLE001 - a broken module is reported; the others still run
        traceback.print_exc()
        return [], f"{type(exc).__name__}: {exc}", time.monotonic() - started
    return figures, None, time.monotonic() - started


def _number(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    text = f"{value:.3g}" if abs(value) < 10 else f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.1f}"
    return f"{text} {unit}".strip()


def _met(met: bool | None) -> str:
    return {True: "yes", False: "NO", None: "-"}[met]


def _align(column: int, cell: str, width: int) -> str:
    return cell.ljust(width) if column in (0, 4) else cell.rjust(width)


def table(figures: list[Figure], broken: dict[str, str]) -> str:
    """The figures as an aligned text table; a broken module is one row saying so."""
    rows = [("figure", "value", "ceiling", "ratio", "goal", "met")]
    for f in figures:
        ratio = "-" if f.ratio is None else f"{f.ratio:.2f}"
        rows.append((f.name, _number(f.value, f.unit), _number(f.ceiling, f.unit), ratio, f.goal, _met(f.met)))
    for name in broken:
        rows.append((f"bench.{name}", "BROKEN", "-", "-", "(see below)", "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(_align(i, cell, w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def _report(figures: list[Figure], broken: dict[str, str], seconds: dict[str, float], quick: bool) -> dict[str, Any]:
    """What results/*.json holds."""
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "commit": git_commit(),
        "quick": quick,
        "machine": machine(),
        "modules": {name: {"seconds": round(s, 1), "broken": broken.get(name)} for name, s in seconds.items()},
        "figures": [f.as_dict() for f in figures],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the short run of CI; writes bench/results/quick.json")
    parser.add_argument("--only", default="", help=f"comma-separated modules among {', '.join(MODULES)}")
    args = parser.parse_args(argv)
    wanted = [m.strip() for m in args.only.split(",") if m.strip()] or list(MODULES)
    unknown = sorted(set(wanted) - set(MODULES))
    if unknown:
        parser.error(f"unknown module(s): {', '.join(unknown)}")
    # A plain `kill` unwinds like Ctrl-C, so every module stops the processes it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    figures, broken, seconds = run_modules(wanted, args.quick, named=bool(args.only))
    report = _report(figures, broken, seconds, args.quick)
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / ("quick.json" if args.quick else "latest.json")
    path.write_text(json.dumps(report, indent=2) + "\n")
    facts = report["machine"]
    memory = facts["memory_bytes"] / 2**30
    print(f"\n{facts['cores']} cores, {memory:.1f} GiB memory, load average {facts['load_average'][0]:.2f}")
    print(table(figures, broken))
    for name, error in broken.items():
        print(f"\nbench.{name} is broken: {error}")
    print(f"\nwritten to {path.relative_to(ROOT)}")
    return 1 if broken else 0


def run_modules(wanted: list[str], quick: bool, named: bool) -> tuple[list[Figure], dict[str, str], dict[str, float]]:
    """(figures, errors of broken modules, seconds per module). A module absent is skipped,
    unless it was `named` on the command line: then it is broken."""
    figures: list[Figure] = []
    broken: dict[str, str] = {}
    seconds: dict[str, float] = {}
    for name in wanted:
        if not _available(name):
            print(f"bench.{name}: not present, skipped", file=sys.stderr)
            if named:
                broken[name] = "the module is not present"
            continue
        print(f"== bench.{name}{' (quick)' if quick else ''}", file=sys.stderr, flush=True)
        found, error, seconds[name] = _run(name, quick)
        figures += found
        if error is not None:
            broken[name] = error
    return figures, broken, seconds


if __name__ == "__main__":
    sys.exit(main())
