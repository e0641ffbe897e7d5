"""The longest event-loop block while the list is paged through, each topic's chart is shown for
the first time and `o`, `p`, `y` are pressed: the reads behind them (cards, weeks counted,
records) are the workers' (target: the longest block <= 20 ms). Prints a JSON line:

    max_block_pages_ms    the longest block while paging down
    max_block_charts_ms   ... while each topic's chart is shown for the first time
    max_block_keys_ms     ... while o, p and y are pressed
    ui_cpu_PHASE_ms       the UI thread's CPU time in each (on a loaded machine the blocks
                          include waits for a core; this does not)
    page_cards_ms    median of a page down until its cards are drawn (the worker's read included)

`python -m benchmarks.ui_thread [--papers N] [--pages N]` builds a cache under a temporary folder."""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
import webbrowser
from datetime import date
from pathlib import Path

from benchmarks.cache import build_cache
from benchmarks.loopwatch import LoopWatch

TODAY = date(2026, 12, 2)


async def session(data_dir: Path, pages: int) -> dict:
    from textual.worker import WorkerCancelled

    from reader.app import ReaderApp
    from reader.config import Settings
    from reader.service import View
    from reader.store import Store

    webbrowser.open = lambda url, *args, **kwargs: True  # nothing is opened: the key's own work is measured
    app = ReaderApp(Store(data_dir), Settings.from_env(), sync_on_start=False)
    app.copy_to_clipboard = lambda text: None
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        while not main.loaded:
            await asyncio.sleep(0.05)
        await app.workers.wait_for_complete()
        await pilot.pause()
        plist = main.paper_list
        page_ms = []
        blocks, cpu = {}, {}

        async def settle() -> None:
            for _ in range(20):  # an exclusive worker replaced by a newer one is no failure
                try:
                    await app.workers.wait_for_complete()
                    break
                except WorkerCancelled:
                    await pilot.pause()
            await pilot.pause()

        cpu_started = time.thread_time()
        async with LoopWatch() as watch:
            for _ in range(pages):
                started = time.perf_counter()
                await pilot.press("pagedown")
                while plist.cached_card(plist.current or "") is None:  # its card read and drawn
                    await pilot.pause()
                page_ms.append((time.perf_counter() - started) * 1000)
        blocks["pages"], cpu["pages"] = watch.worst_ms, (time.thread_time() - cpu_started) * 1000
        cpu_started = time.thread_time()
        async with LoopWatch() as watch:
            for topic in main.service.topics:
                main.view = View.of_topic(topic.name)
                await settle()
        blocks["charts"], cpu["charts"] = watch.worst_ms, (time.thread_time() - cpu_started) * 1000
        cpu_started = time.thread_time()
        async with LoopWatch() as watch:
            await pilot.press("o", "p", "y")
            await settle()
        blocks["keys"], cpu["keys"] = watch.worst_ms, (time.thread_time() - cpu_started) * 1000
    figures = {f"max_block_{phase}_ms": round(worst, 1) for phase, worst in blocks.items()}
    figures.update({f"ui_cpu_{phase}_ms": round(spent, 1) for phase, spent in cpu.items()})
    return {**figures, "page_cards_ms": round(statistics.median(page_ms), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=20000, help="papers in the cache")
    parser.add_argument("--pages", type=int, default=40, help="page downs through the list")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data_dir = Path(folder)
        build_cache(data_dir, args.papers, TODAY)
        print(json.dumps({"papers": args.papers, **asyncio.run(session(data_dir, args.pages))}))


if __name__ == "__main__":
    main()
