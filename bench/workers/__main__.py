"""`python -m bench.workers`: one JSON line for the machine, one a figure, one for the seconds."""

from __future__ import annotations

import argparse
import json
import sys
import time

import bench.workers
from bench.common import machine
from bench.workers import FIGURES, figures


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.workers", description=(bench.workers.__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="the smaller counts used in CI")
    parser.add_argument("--only", action="append", choices=sorted(FIGURES), help="measure only this figure")
    args = parser.parse_args()
    started = time.monotonic()
    print(json.dumps({"machine": machine()}), flush=True)
    for figure in figures(args.quick, args.only):
        print(json.dumps(figure.as_dict()), flush=True)
    print(json.dumps({"seconds": round(time.monotonic() - started, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
