"""Output for scripts: JSON on standard output, and tables that are never cut when piped."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table


def print_json(data: Any) -> None:
    """One JSON document on standard output, on one line (what ``jq`` reads)."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, allow_nan=False) + "\n")
    sys.stdout.flush()


def rounded(x: float, digits: int = 6) -> float:
    """A float for JSON: finite, and without noise in the last digits."""
    return round(x, digits) if math.isfinite(x) else 0.0


def print_table(console: Console, table: Table) -> None:
    """Print ``table`` whole: on a terminal it fits the window as usual; into a pipe or a file
    it is as wide as its content needs, never cut at 80 columns."""
    if console.is_terminal:
        console.print(table)
        return
    width = Measurement.get(console, console.options.update(width=10_000), table).maximum
    before = console.width
    console.width = max(width, before)
    try:
        console.print(table)
    finally:
        console.width = before
