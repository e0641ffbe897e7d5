"""Issue 29's figures: `python -m benchmarks.library [--papers N] [--runs N]`.

A loopback arXiv (a process of its own) serves N synthetic papers (benchmarks/cache.py) under one
topic, and a sync fills an empty data directory with them, as a user's first sync would (delay 0).
Then, each in fresh processes, whole-process wall times:
- the first `reader rank` on that cache, never ranked: it reads the features the sync left beside
  each shard; and, for comparison, the same with those files deleted (every word counted again);
- `reader similar ID` (best of --runs, the search index built before);
- `reader import` of 1,000 BibTeX entries of cached papers with `--tag` (a new tag each run).
Machines here are shared and noisy: compare within one run."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import ROOT, as_installed

TODAY = date(2026, 12, 2)
QUERY = "cat:bench"
STAR_EVERY = 97  # papers starred: as benchmarks/cache.py's build_cache stars them
IMPORTED = 1000


def serve(count: int) -> None:
    """The loopback arXiv, until killed."""
    from benchmarks.cache import synthetic_papers
    from tests.arxiv_server import FakeArxiv

    fake = FakeArxiv().start()
    fake.queries[QUERY] = synthetic_papers(count, TODAY)
    print(json.dumps({"api_url": fake.api_url, "rss_url": fake.rss_url}), flush=True)
    while True:
        time.sleep(60)


def fill(data_dir: Path, count: int) -> dict:
    """Sync `count` papers into an empty data directory; its figures."""
    import asyncio

    from reader.arxiv.client import ArxivClient
    from reader.arxiv.options import ClientOptions
    from reader.store import Store, Topic
    from reader.sync.syncer import Syncer

    server = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.library", "serve", str(count)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert server.stdout is not None
        urls = json.loads(server.stdout.readline())
        store = Store(data_dir)
        store.add_topic("Bench", QUERY)
        store.set_setting("examples_added", True)

        async def sync():
            options = ClientOptions(api_url=urls["api_url"], rss_url=urls["rss_url"], delay=0.0, retries=0)
            async with ArxivClient(options) as client:
                return await Syncer(store, client, today=TODAY, horizon_weeks=60).sync_topic(Topic("Bench", QUERY))

        started = time.perf_counter()
        result = asyncio.run(sync())
        seconds = time.perf_counter() - started
    finally:
        server.kill()
    if result.error:
        raise SystemExit(f"the sync failed: {result.error}")
    ids = store.index().ids
    store.set_marks(ids[3::STAR_EVERY], starred=True)
    return {"papers": result.fetched, "seconds": seconds, "ids": ids}


def timed(argv: list[str], runs: int = 1, vary: list[list[str]] | None = None) -> list[float]:
    samples = []
    for run in range(runs):
        started = time.perf_counter()
        subprocess.run([*argv, *(vary[run] if vary else [])], cwd=ROOT, capture_output=True, check=True, timeout=900)
        samples.append(time.perf_counter() - started)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    as_installed()
    os.environ.update({"READER_TODAY": TODAY.isoformat(), "READER_ARXIV_API_URL": "http://127.0.0.1:9/api/query"})
    with tempfile.TemporaryDirectory(prefix="reader-bench-") as work:
        data = Path(work) / "cache"
        filled = fill(data, args.papers)
        reader = [sys.executable, "-m", "reader", "--data-dir", str(data)]
        features = len(list((data / "papers").glob("*.features")))
        shards = len([p for p in (data / "papers").glob("*.json") if not p.name.endswith(".search.json")])
        first_rank = timed([*reader, "rank", "--limit", "20"])[0]
        for path in (data / "papers").glob("*.features"):
            path.unlink()
        counted_rank = timed([*reader, "rank", "--limit", "20"])[0]  # counts every word, saves the files again

        timed([*reader, "list", "--query", "learning", "--limit", "1"])  # the search index built
        ids = filled["ids"]
        similar = timed([*reader, "similar", ids[len(ids) // 2]], args.runs)

        from reader.core.bibtex import export
        from reader.store import Store

        chosen = ids[:: max(1, len(ids) // IMPORTED)][:IMPORTED]
        library = Path(work) / "library.bib"
        library.write_text(export(Store(data).papers_by_id(chosen).values()))
        imported = timed([*reader, "import", str(library)], args.runs, vary=[["--tag", f"bench {run}"] for run in range(args.runs)])

    print(
        f"{args.papers:,} papers synced into an empty data directory: {filled['seconds']:.1f} s, "
        f"{filled['papers'] / filled['seconds']:,.0f} papers/s (loopback arXiv, delay 0); {features} of {shards} shards with features beside them"
    )
    print("| measure | target | result | notes |\n|---|---|---|---|")
    print(f"| first `reader rank` after that sync | ≤ 5 s | {first_rank:.1f} s | whole process; reads the features the sync left |")
    print(f"| the same, features deleted |  | {counted_rank:.1f} s | every shard's words counted again |")
    print(f"| `reader similar ID` | ≤ 1 s | {min(similar):.2f} s | best of {args.runs} (median {statistics.median(similar):.2f} s) |")
    print(
        f"| `reader import` of {len(chosen):,} BibTeX entries, --tag | ≤ 3 s | {min(imported):.2f} s | best of {args.runs} (median {statistics.median(imported):.2f} s), every paper cached |"
    )


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "serve":
        serve(int(sys.argv[2]))
    else:
        main()
