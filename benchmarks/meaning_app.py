"""Meaning in the app at scale: the `~` query's ranking (what the filter's worker runs between the
last keystroke's quiet and the list) and `m`'s fused likeness, through the library service.
`python -m benchmarks.meaning_app [--papers N]`.

The cache: the benchmark's real papers (benchmarks/meaning.py) again and again under new ids, its
search index and meaning index built first (not timed here: benchmarks.meaning times the build)."""

from __future__ import annotations

import argparse
import dataclasses
import resource
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.meaning import make_store, real_papers
from reader.config import load_settings

QUERIES = ["agents that learn from their mistakes", "segmenting organs in medical scans", "keyword spotting on small devices"]


def main() -> None:
    from reader.meaning import build
    from reader.service import ALL, LibraryService, View
    from reader.store import Store

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--data", type=Path, help="a data directory with its meaning index built (used as it is; its first topic is asked)")
    parser.add_argument("--rounds", type=int, default=3, help="times each query is asked")
    parser.add_argument("--about-only", action="store_true", help="the ~ queries alone (no m)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if args.data is not None:
            data_dir = args.data
            store = Store(data_dir, check_user_files=False)
            ids = store.index_order().ids
            asked = [ids[i] for i in range(0, len(ids), max(1, len(ids) // 10))][:10]
        else:
            data_dir = Path(folder)
            papers = _papers(args.papers)
            store = make_store(data_dir, papers)
            asked = [paper.id for paper in papers[:: max(1, len(papers) // 10)][:10]]
        build.update(store)
        topic = store.topics()[0].name if args.data is not None else "All"
        service = LibraryService(store, load_settings({"data_dir": str(data_dir)}, {}))
        service.open()
        service.prepare_search(None)
        started = time.perf_counter()
        service.meaning.about(QUERIES[0], ALL)
        first = time.perf_counter() - started
        timings: dict[str, list[tuple[float, float]]] = {"all papers": [], "one topic": [], "m": []}

        def timed(name: str, ask) -> None:
            started, cpu = time.perf_counter(), time.process_time()
            ask()
            timings[name].append((time.perf_counter() - started, time.process_time() - cpu))

        for _ in range(args.rounds):
            for query in QUERIES:
                for name, view in (("all papers", ALL), ("one topic", View.of_topic(topic))):
                    timed(name, lambda query=query, view=view: service.meaning.about(query, view))
        for pid in [] if args.about_only else asked:
            timed("m", lambda pid=pid: service.meaning.similar(pid, limit=50, leave_out=set()))
        rss = _rss_mb()
        service.close()
    print(f"{len(store.index_order().ids):,} papers; this process's RSS after the queries {rss[0]:.0f} MB, peak {rss[1]:.0f} MB")
    print(f"  ~ query, the first (opens the meaning index): {first:.3f} s")
    for name, values in timings.items():
        if not values:
            continue
        walls, cpus = [wall for wall, _ in values], [cpu for _, cpu in values]
        what = "m (likeness fused with meaning, 50 papers)" if name == "m" else f"~ query, {name}"
        print(f"  {what}: median {statistics.median(walls):.3f} s (CPU {statistics.median(cpus):.3f} s), worst {max(walls):.3f} s")


def _papers(count: int) -> list:
    real = real_papers().papers
    papers = []
    for i in range(count):
        model = real[i % len(real)]
        pid = f"{2001 + (i // 90000) * 101:04d}.{i % 90000:05d}"
        papers.append(dataclasses.replace(model, id=pid, published=f"20{pid[:2]}-{pid[2:4]}-15T12:00:00Z"))
    return papers


def _rss_mb() -> tuple[float, float]:
    """This process's resident memory now and at its peak (MB)."""
    status = Path("/proc/self/status").read_text()
    now = next((int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmRSS:")), 0.0)
    return now, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    main()
