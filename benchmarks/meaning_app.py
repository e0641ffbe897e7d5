"""Meaning in the app at scale: the `~` query's ranking (what the filter's worker runs between the
last keystroke's quiet and the list) and `m`'s fused likeness, through the library service.
`python -m benchmarks.meaning_app [--papers N]`.

The cache: the benchmark's real papers (benchmarks/meaning.py) again and again under new ids, its
search index and meaning index built first (not timed here: benchmarks.meaning times the build)."""

from __future__ import annotations

import argparse
import dataclasses
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

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    args = parser.parse_args()
    real = real_papers().papers
    papers = []
    for i in range(args.papers):
        model = real[i % len(real)]
        pid = f"{2001 + (i // 90000) * 101:04d}.{i % 90000:05d}"
        papers.append(dataclasses.replace(model, id=pid, published=f"20{pid[:2]}-{pid[2:4]}-15T12:00:00Z"))
    with tempfile.TemporaryDirectory() as folder:
        data_dir = Path(folder)
        store = make_store(data_dir, papers)
        build.update(store)
        service = LibraryService(store, load_settings({"data_dir": str(data_dir)}, {}))
        service.open()
        service.prepare_search(None)
        started = time.perf_counter()
        service.meaning.about(QUERIES[0], ALL)
        first = time.perf_counter() - started
        timings: dict[str, list[float]] = {"all papers": [], "one topic": []}
        for _ in range(3):
            for query in QUERIES:
                for name, view in (("all papers", ALL), ("one topic", View.of_topic("All"))):
                    started = time.perf_counter()
                    service.meaning.about(query, view)
                    timings[name].append(time.perf_counter() - started)
        like = []
        for paper in papers[:: max(1, len(papers) // 10)][:10]:
            started = time.perf_counter()
            service.meaning.similar(paper.id, limit=50, leave_out=set())
            like.append(time.perf_counter() - started)
        service.close()
    print(f"{args.papers:,} papers")
    print(f"  ~ query, the first (opens the meaning index): {first:.3f} s")
    for name, values in timings.items():
        print(f"  ~ query, {name}: median {statistics.median(values):.3f} s, worst {max(values):.3f} s")
    print(f"  m (likeness fused with meaning, 50 papers): median {statistics.median(like):.3f} s, worst {max(like):.3f} s")


if __name__ == "__main__":
    main()
