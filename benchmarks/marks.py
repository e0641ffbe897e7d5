"""User state figures at a large cache: `python -m benchmarks.marks [--size 100000]`.

A benchmark cache (benchmarks/cache.py: a seventh of the papers read) gains a tenth hidden, two
visits and a few watches; then each change the app makes on a key press is timed through the
store (user.json and its copy written, as the writer thread does), and the look-ups a "New" or
"Updated" view needs. The same again with every paper read (the largest user.json a cache of
this size can have). Medians and maxima of 20 changes.

    star / hide / read    Store.set_marks of one paper (read also keeps the version read)
    visit                 Store.record_visit
    new_ids / updated_ids the papers new since the previous visit / updated since read
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import as_installed

ROOT = Path(__file__).resolve().parent.parent
TODAY = date(2026, 12, 2)


def timed(function, runs: int = 20) -> tuple[float, float]:
    samples = []
    for i in range(runs):
        started = time.perf_counter()
        function(i)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples), max(samples)


def measure(store, label: str) -> None:
    ids = store.index().ids
    size = (store.data_dir / "user.json").stat().st_size
    print(f"\n{label}: user.json {size / 1e6:.1f} MB, {len(store.marks().read):,} read, {len(store.marks().hidden):,} hidden")
    picks = ids[5 : len(ids) : max(1, len(ids) // 20)]
    for name, change in (
        ("star", {"starred": True}),
        ("unstar", {"starred": False}),
        ("hide", {"hidden": True}),
        ("unhide", {"hidden": False}),
        ("read", {"read": True}),
    ):
        median, worst = timed(lambda i, change=change: store.set_marks([picks[i % len(picks)]], **change))
        print(f"  {name:<12} {median:6.1f} ms median, {worst:6.1f} ms max")
    median, worst = timed(lambda i: store.record_visit("app" if i % 2 else "Agents"))
    print(f"  {'visit':<12} {median:6.1f} ms median, {worst:6.1f} ms max")
    for name, look_up in (
        ("new_ids", lambda i: store.new_ids()),
        ("new_ids topic", lambda i: store.new_ids("Agents")),
        ("updated_ids", lambda i: store.updated_ids()),
    ):
        median, worst = timed(look_up, runs=5)
        print(f"  {name:<12} {median:6.1f} ms median, {worst:6.1f} ms max")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000)
    args = parser.parse_args()
    as_installed()
    sys.path.insert(0, str(ROOT))
    from benchmarks.cache import build_cache
    from reader.store import Store

    work = Path(tempfile.mkdtemp(prefix="reader-bench-marks-"))
    try:
        papers = build_cache(work / "data", args.size, TODAY)
        store = Store(work / "data")
        store.set_marks([p.id for p in papers[::10]], hidden=True)
        for i in range(5):
            store.add_watch(f"watch {i}", f"au:name{i}")
        store.record_visit("app")
        store.record_visit("app")
        measure(store, f"{args.size:,} papers, a seventh read")
        store.set_marks([p.id for p in papers], read=True)
        measure(store, f"{args.size:,} papers, every one read")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
