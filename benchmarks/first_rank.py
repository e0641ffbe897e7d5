"""The first `reader rank` from candidates against the whole cache's ranking:
`python -m benchmarks.first_rank [--papers N | --real] [--stars K] [--data DIR] [--runs R] [--candidates C] [--topic NAME]`.

Builds (or reuses, with --data) a cache of synthetic papers (benchmarks/cache.py: titles and
abstracts from the recorded fixtures), saves every shard's features and document counts (as a
sync leaves them) and builds the search index, stars K papers among the newest (replacing the
cache's marks: use a copy), then ranks alternately the whole cache's way (today's path) and from
candidates (service/first_rank.py), each in this process from nothing, and prints both times
and how far the two top lists agree. Compare within one run: the machine is shared.

--real: the 4,180 real papers of benchmarks/data (see SOURCES.md) instead, K of one subject
folder starred (a reader's interest); --candidates bounds the candidates lower than the default
(at 4,180 papers the default takes every paper sharing a term). --topic: both rank only that
topic's papers (`reader rank --topic`; the synthetic cache's Learning holds a fifth of it)."""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks.cache import build_cache
from reader.core.catalog import Catalog
from reader.core.ranking import Ranking
from reader.search_index import SearchIndex
from reader.service import first_rank
from reader.service.ranking_corpus import RankingCorpus
from reader.store import Store

TODAY = date(2026, 12, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--stars", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data", help="a data directory to reuse (its marks replaced), built there when missing")
    parser.add_argument("--real", action="store_true", help="the real papers of benchmarks/data")
    parser.add_argument("--candidates", type=int, help=f"the bound on the candidates (default {first_rank.CANDIDATES:,})")
    parser.add_argument("--topic", help="rank only this topic's papers")
    args = parser.parse_args()
    if args.candidates:
        first_rank.CANDIDATES = args.candidates
    data = Path(args.data) if args.data else Path(tempfile.mkdtemp(prefix="reader-first-rank-")) / "data"
    if args.real:
        from benchmarks.meaning import make_store, real_papers

        real = real_papers()
        store = Store(data) if data.exists() else make_store(data, real.papers)
        folder = sorted({label for labels in real.labels.values() for label in labels})[0]
        chosen = sorted(pid for pid, labels in real.labels.items() if folder in labels)[::7][: args.stars]
        print(f"stars: {args.stars} of '{folder}'")
    else:
        if not data.exists():
            build_cache(data, args.papers, TODAY)
        store = Store(data)
        chosen = Catalog(store.index(), set(), set(), set()).select()[:2000][3::400][: args.stars]
    marks = store.marks()
    store.set_marks(marks.starred | marks.read | marks.hidden, starred=False, read=False, hidden=False)
    store.set_marks(chosen, starred=True)
    marks = store.marks()
    RankingCorpus(store).corpus()  # every shard's features and counts saved, as a sync leaves them
    index = SearchIndex.open(data)
    index.refresh(store)
    among = Catalog(store.index(), marks.read, marks.starred, marks.hidden).select(topic=args.topic) if args.topic else None
    topic = f", ranked among the {len(among):,} of {args.topic}" if among is not None else ""
    print(f"{len(store.index().ids):,} papers, {len(marks.starred)} stars{topic}")
    whole_s, fast_s = [], []
    for _ in range(args.runs):
        started = time.perf_counter()
        whole = RankingCorpus(store).rank(starred=marks.starred, read=marks.read, hidden=marks.hidden, candidates=among)
        whole_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        fast = first_rank.rank_from_candidates(store, index, starred=marks.starred, read=marks.read, hidden=marks.hidden, among=among)
        fast_s.append(time.perf_counter() - started)
    index.close()
    assert isinstance(fast, Ranking) and isinstance(whole, Ranking)
    print(f"whole cache:     {statistics.median(whole_s):.2f} s  ({', '.join(f'{s:.2f}' for s in whole_s)})")
    print(
        f"from candidates: {statistics.median(fast_s):.2f} s  ({', '.join(f'{s:.2f}' for s in fast_s)}); {len(fast):,} ranked of {len(whole):,}"
    )
    for top in (10, 20, 50, 100):
        shared = len(set(whole.ids[:top]) & set(fast.ids[:top]))
        same_order = whole.ids[:top] == fast.ids[:top]
        print(f"top {top}: {shared} of {top} shared{' (same order)' if same_order else ''}")


if __name__ == "__main__":
    main()
