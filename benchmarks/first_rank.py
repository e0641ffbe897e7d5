"""The first `reader rank` from candidates against the whole cache's ranking:
`python -m benchmarks.first_rank [--papers N] [--stars K] [--data DIR]`.

Builds (or reuses, with --data) a cache of synthetic papers (benchmarks/cache.py: titles and
abstracts from the recorded fixtures), saves every shard's features and builds the search index,
stars K papers among the newest, then ranks alternately the whole cache's way and from
candidates (service/first_rank.py), each in this process on a fresh corpus, and prints both
times and how far the two top lists agree. Compare within one run: the machine is shared."""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks.cache import build_cache
from reader.core.library import Library
from reader.searchdb import SearchIndex
from reader.service.first_rank import rank_candidates
from reader.service.triage_sets import RankingCorpus
from reader.store import Store

TODAY = date(2026, 12, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--stars", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data", help="a data directory to reuse (its marks replaced), built there when missing")
    args = parser.parse_args()
    data = Path(args.data) if args.data else Path(tempfile.mkdtemp(prefix="reader-first-rank-")) / "data"
    if not data.exists():
        build_cache(data, args.papers, TODAY)
    store = Store(data)
    marks = store.marks()
    store.set_marks(marks.starred | marks.read | marks.hidden, starred=False, read=False, hidden=False)
    newest = Library(store.index(), set(), set(), set()).select()[:2000]
    store.set_marks(newest[3::400][: args.stars], starred=True)
    marks = store.marks()
    RankingCorpus(store).corpus()  # every shard's features saved, as a sync leaves them
    index = SearchIndex.open(data)
    index.refresh(store)
    print(f"{len(store.index().ids):,} papers, {len(marks.starred)} stars")
    whole_s, fast_s = [], []
    for _ in range(args.runs):
        started = time.perf_counter()
        whole = RankingCorpus(store).rank(starred=marks.starred, read=marks.read, hidden=marks.hidden)
        whole_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        fast = rank_candidates(store, index, starred=marks.starred, read=marks.read, hidden=marks.hidden)
        fast_s.append(time.perf_counter() - started)
    index.close()
    assert fast is not None and hasattr(fast, "ids") and hasattr(whole, "ids")
    print(f"whole cache: {statistics.median(whole_s):.2f} s  ({', '.join(f'{s:.2f}' for s in whole_s)})")
    print(f"candidates:  {statistics.median(fast_s):.2f} s  ({', '.join(f'{s:.2f}' for s in fast_s)}); {len(fast):,} candidates")
    for top in (10, 20, 50, 100):
        shared = len(set(whole.ids[:top]) & set(fast.ids[:top]))
        print(f"top {top}: {shared} of {top} shared")


if __name__ == "__main__":
    main()
