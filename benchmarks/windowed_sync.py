"""A first sync of one topic far past arXiv's result cap: `python -m benchmarks.windowed_sync`.

A loopback arXiv in its own process serves N papers (100,000 by default) for one query and, like
arXiv's search backend, no result past position 10,000 of any query; the sync (delay 0) must split
the horizon into submittedDate windows to fetch them all. Prints the request count, the papers per
second from the first request to the last save, and the longest event-loop block meanwhile."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import as_installed, loopback_arxiv, serve_until_closed
from benchmarks.loopwatch import LoopWatch

ROOT = Path(__file__).resolve().parent.parent
TODAY = date(2026, 12, 2)
QUERY = "cat:cs.LG OR cat:cs.AI"
HORIZON_WEEKS = 60  # the synthetic papers span the year before TODAY


def serve(count: int, cap: int) -> None:
    """The loopback arXiv (`loopback_arxiv`'s child)."""
    from benchmarks.cache import synthetic_papers
    from tests.arxiv_server import FakeArxiv

    fake = FakeArxiv().start()
    fake.cap = cap
    fake.queries[QUERY] = sorted(synthetic_papers(count, TODAY), key=lambda p: p.published, reverse=True)
    serve_until_closed(fake)


async def sync(api_url: str, data_dir: Path) -> dict:
    from reader.arxiv.client import ArxivClient, ClientOptions
    from reader.store import Store, Topic
    from reader.sync.syncer import Syncer

    store = Store(data_dir)
    store.add_topic("ML", QUERY)
    async with LoopWatch() as watch:
        options = ClientOptions(api_url=api_url, rss_url=api_url, delay=0.0, retries=0)
        started = time.perf_counter()
        async with ArxivClient(options) as client:
            result = await Syncer(store, client, today=TODAY, horizon_weeks=HORIZON_WEEKS).sync_topic(Topic("ML", QUERY))
        elapsed = time.perf_counter() - started
    state = store.sync_file.sync_state("ML")
    return {
        "papers": result.fetched,
        "cached": len(store.index()),
        "arxiv_total": result.arxiv_total,
        "requests": result.requests,
        "error": result.error,
        "seconds": elapsed,
        "papers_per_s": result.fetched / elapsed,
        "max_block_ms": watch.worst_ms,
        "spans": len(state.spans),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--cap", type=int, default=10_000, help="the server's result cap (arXiv's: 10,000)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    as_installed()
    sys.path.insert(0, str(ROOT))
    if args.serve:
        serve(args.papers, args.cap)
        return
    from reader.sync import syncer as sync_module

    if args.cap != sync_module.ARXIV_RESULT_CAP:
        sync_module.ARXIV_RESULT_CAP = args.cap
    served = loopback_arxiv("benchmarks.windowed_sync", "--papers", str(args.papers), "--cap", str(args.cap))
    with served as server, tempfile.TemporaryDirectory(prefix="reader-windowed-") as work:
        figures = asyncio.run(sync(server.api_url, Path(work) / "data"))
    floor = -(-args.papers // sync_module.BULK_PAGE_SIZE)
    print(f"windowed first sync of one topic: {args.papers:,} papers, result cap {args.cap:,}, delay 0")
    print(
        f"  fetched {figures['papers']:,}, cached {figures['cached']:,}, arXiv total {figures['arxiv_total']:,}, error: {figures['error']}"
    )
    print(f"  requests {figures['requests']:,} (floor at {sync_module.BULK_PAGE_SIZE:,} a page: {floor:,})")
    print(
        f"  {figures['seconds']:.1f} s: {figures['papers_per_s']:,.0f} papers/s; longest event-loop block {figures['max_block_ms']:.0f} ms"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
