"""Benchmarks: `python -m benchmarks.run` (see benchmarks/README.md). Every script measures the app as an
installed copy runs: see `as_installed`."""

from __future__ import annotations

import compileall
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def as_installed() -> None:
    """Run this process's children as an installed app runs: its modules compiled once (pip
    does so at install), not compiled from source again in every process, as they are when
    PYTHONDONTWRITEBYTECODE is set (it is in some shells here, and it added ~100 ms to every
    process start measured)."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    for package in ("reader", "benchmarks"):
        compileall.compile_dir(ROOT / package, quiet=1)
