"""Export figures: `python -m benchmarks.export [--sizes 1000 10000] [--runs 5]`.

A benchmark cache (benchmarks/cache.py: titles and author lists from the recorded fixtures, so
many papers share a first author, year and first title word, as a prolific group's do) has every
paper starred; then `reader export --starred -o FILE` runs as a whole process, in each format:

    first   a copy of the data directory no export has touched (the keys are given, and recorded)
    again   the same data directory after an export (every key is recorded already)

Medians of `--runs` runs. The machine is shared: compare figures within one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import as_installed

ROOT = Path(__file__).resolve().parent.parent
TODAY = date(2026, 12, 2)
FORMATS = ("bibtex", "ris", "csl-json")


def export_seconds(data_dir: Path, format: str, target: Path) -> float:
    env = {**os.environ, "READER_TODAY": TODAY.isoformat()}
    command = [sys.executable, "-m", "reader", "--data-dir", str(data_dir), "export", "--starred", "--format", format, "-o", str(target)]
    started = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    if result.returncode != 0 or not result.stderr.startswith("wrote "):
        raise SystemExit(f"export failed: {result.stderr[-2000:]}")
    return time.perf_counter() - started


def measure(built: Path, work: Path, size: int, runs: int) -> None:
    print(f"\n{size:,} starred papers (medians of {runs} runs)")
    for format in FORMATS:
        first, again = [], []
        for run in range(runs):
            data = work / f"data-{format}-{run}"
            shutil.copytree(built, data)
            first.append(export_seconds(data, format, work / "out"))
            again.append(export_seconds(data, format, work / "out"))
            shutil.rmtree(data)
        print(f"  {format:<9} first {statistics.median(first):6.2f} s   again {statistics.median(again):6.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    as_installed()
    sys.path.insert(0, str(ROOT))
    from benchmarks.cache import build_cache
    from reader.store import Store

    work = Path(tempfile.mkdtemp(prefix="reader-bench-export-"))
    try:
        for size in args.sizes:
            built = work / f"built-{size}"
            papers = build_cache(built, size, TODAY)
            Store(built).set_marks([p.id for p in papers], starred=True)
            measure(built, work, size, args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
