"""The "For you" ranking and rising terms at scale: `python -m benchmarks.ranking [--papers N] [--app]`.

Uses benchmarks/cache.py's synthetic papers (sizes drawn from the recorded fixtures) with the
marks build_cache gives them (every 97th starred, every 7th read) plus every 50th hidden, and
prints how long each step takes and the memory it holds. Steps, as the app would run them:
featurize (once per paper, as records load), corpus (again after a sync), rank (after every
change of marks: fit and score), reasons for the 50 papers a screen shows. Figures are medians
of --runs runs; machines here are shared and noisy, so compare within one run."""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable
from datetime import date
from typing import Any

from benchmarks import as_installed
from benchmarks.cache import synthetic_papers
from benchmarks.loopwatch import LoopWatch
from reader.core import features, ranking, rising
from reader.core.ranking import Corpus, featurize, rank, row_of_paper

TODAY = date(2026, 12, 2)
SHARD = 1000  # papers per cache shard (a month's thousand ids)


def timed(step: Callable[[], Any], runs: int) -> tuple[float, Any]:
    samples, result = [], None
    for _ in range(runs):
        gc.collect()
        started = time.perf_counter()
        result = step()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples), result


def held(step: Callable[[], Any]) -> tuple[float, Any]:
    """MB still allocated by what `step` returns (numpy and scipy arrays included)."""
    gc.collect()
    tracemalloc.start()
    result = step()
    gc.collect()
    size = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return size / 1e6, result


async def until_ranked(main: Any, moves: list[float]) -> float:
    """Seconds until the main screen shows a ranking of the current marks, moving the cursor
    (and rendering the list) every 50 ms meanwhile: `moves` gets how long each move took."""
    started = time.perf_counter()
    await asyncio.sleep(0.05)
    while main.triage.ranking_pending or main.triage.ranked_version != main.service.catalog.marks_version:
        moved = time.perf_counter()
        main.paper_list.action_cursor_down()
        for y in range(main.paper_list.size.height):
            main.paper_list.render_line(y)
        moves.append(time.perf_counter() - moved)
        await asyncio.sleep(0.05)
    return time.perf_counter() - started


async def in_the_app(count: int) -> None:
    """The app on a cache of `count` papers: For you chosen, the seconds until its ranking shows
    (first, then after a star, then first again after the app is started anew), the cursor's
    latency and the longest event-loop block meanwhile, and the process's peak memory after."""
    import resource
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    from reader.app import ReaderApp
    from reader.config import Settings
    from reader.service import FOR_YOU
    from reader.store import Store

    first: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as work:
        data = Path(work) / "cache"
        # Built in a process of its own, so that the memory figure is the app's alone.
        subprocess.run(
            [
                sys.executable,
                "-c",
                f"from benchmarks.cache import build_cache; from datetime import date; "
                f"from pathlib import Path; build_cache(Path({str(data)!r}), {count}, date.fromisoformat({TODAY.isoformat()!r}))",
            ],
            check=True,
        )
        before, rss, worst, moves = 0.0, 0.0, 0.0, []
        for start in ("first start", "restart"):  # the restart finds what the first saved (texts, features)
            app = ReaderApp(Store(data), Settings.from_env(), sync_on_start=False)
            async with app.run_test(size=(120, 40)) as pilot:
                main = app.main
                while not main.loaded:
                    await asyncio.sleep(0.05)
                await pilot.pause()
                before = before or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                async with LoopWatch() as watch:
                    main.view = FOR_YOU
                    first[start] = await until_ranked(main, moves)
                    if start == "first start":
                        await pilot.press("s")  # a star: ranked again once marking pauses (2 s), the corpus kept
                        again = await until_ranked(main, moves) - 2.0
                worst = max(worst, watch.worst_ms)
            # The restart's app runs in this process too, beside what the first one left.
            rss = rss or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{count:,} papers in the app, For you chosen")
    print(f"  first ranking shown (texts, features built)  {first['first start']:7.2f} s")
    print(f"  first ranking after a restart              {first['restart']:7.2f} s   (what the first start saved is read)")
    print(f"  again after a star (corpus kept)           {again:7.2f} s   (after the 2 s marking pause)")
    print(f"  cursor move meanwhile, slowest             {max(moves) * 1000:7.1f} ms   (median {statistics.median(moves) * 1000:.1f} ms)")
    print(f"  longest event-loop block meanwhile         {worst:7.1f} ms")
    print(f"  peak memory of the app, first start        {rss:7.0f} MB   ({before:.0f} MB before For you)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--app", action="store_true", help="the app instead: For you chosen on a cache of --papers")
    args = parser.parse_args()
    as_installed()
    if args.app:
        asyncio.run(in_the_app(args.papers))
        return

    papers = synthetic_papers(args.papers, TODAY)
    rows = [row_of_paper(p) for p in papers]
    starred = [p.id for p in papers[3::97]]
    read = [p.id for p in papers[10::7]]
    hidden = [p.id for p in papers[5::50]]
    words = sum(len(r.words.split()) for r in rows)
    print(
        f"{args.papers:,} papers, {words / len(rows):.0f} words each; {len(starred)} starred, "
        f"{len(read)} read, {len(hidden)} hidden; medians of {args.runs} runs"
    )

    started = time.perf_counter()
    from scipy import optimize  # noqa: F401  (what the first rank pays once: the model's fit)

    print(f"  import scipy.optimize (once per process)   {time.perf_counter() - started:7.2f} s")
    featurize(rows[:SHARD])  # warm the word-hash cache as the app's first shard would

    def blocks():
        return [featurize(rows[start : start + SHARD]) for start in range(0, len(rows), SHARD)]

    seconds, _ = timed(blocks, 1)
    print(f"  featurize, shard by shard (once a paper)  {seconds:7.2f} s   ({seconds / words * 1e9:.0f} ns a word)")
    memory, built = held(blocks)
    print(f"    held by the blocks (counts)             {memory:7.0f} MB   ({built[0].matrix.nnz / SHARD:.0f} terms a paper)")
    by_id = {row.id: row for row in rows}  # the reasons' rows, as the cache's records give them

    def texts(ids):
        return {pid: by_id[pid] for pid in ids}

    seconds, corpus = timed(lambda: Corpus(built, texts=texts), args.runs)
    print(f"  corpus: IDF and row norms (after a sync)  {seconds:7.2f} s")
    memory, _ = held(lambda: Corpus(built))
    print(f"    held by the corpus beyond the blocks     {memory:7.0f} MB")
    seconds, result = timed(lambda: rank(corpus, starred=starred, hidden=hidden, read=read), args.runs)
    print(f"  rank: fit and score (after a mark)        {seconds:7.2f} s   ({len(result):,} candidates)")
    started = time.perf_counter()
    result.top(50)
    print(
        f"  reasons for the 50 best, first time       {time.perf_counter() - started:7.2f} s   (the {len(starred)} stars' terms gathered)"
    )
    seconds, top = timed(lambda: result.top(50), args.runs)
    print(f"  reasons for the 50 best, again            {seconds:7.2f} s   e.g. {', '.join(top[0].because)}")
    seconds, _ = timed(lambda: rank(corpus, starred=starred, candidates=[p.id for p in papers[::3]]), args.runs)
    print(f"  rank one topic's third of the papers      {seconds:7.2f} s")

    recent = [(p.published_date, r.words) for p, r in zip(papers, rows) if (TODAY - p.published_date).days < 84]
    seconds, terms = timed(lambda: rising.rising_terms(recent, TODAY), args.runs)
    print(f"  rising terms over {len(recent):,} papers of 12 weeks  {seconds:7.2f} s   ({len(terms)} terms)")
    print(f"  (columns: 2**{features.BITS}; background sample {ranking.BACKGROUND})")


if __name__ == "__main__":
    main()
