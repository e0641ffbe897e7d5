"""One measurement in a fresh process; prints a JSON line. Run by benchmarks/run.py.

startup DATA_DIR T0   time from T0 (the parent's clock before it started us) to the first
                      painted list of real cards
bare T0               the same for a bare Textual app: the floor
first DATA_DIR        the app's first start on a cache without a search index: seconds until
                      the index answers filters (it is built meanwhile)
interact DATA_DIR     cursor, star, read, filter and detail-view latencies inside the app; peak RSS
contended DATA_DIR N  the app syncing N fresh papers into the cache while 50 stars are pressed:
                      each star's time until saved and redrawn, the longest event-loop block
sync DATA_DIR N       ingest N papers from a loopback arXiv (its own process): papers/s and
                      the longest time the event loop was blocked
serve N               that loopback arXiv
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import statistics
import sys
import time
from array import array
from pathlib import Path

from benchmarks.loopwatch import LoopWatch


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def gc_pauses() -> list[float]:
    """The garbage collector's passes from now on, in ms (each holds the event loop)."""
    import gc

    pauses: list[float] = []
    started = [0.0]

    def timed(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pauses.append((time.perf_counter() - started[0]) * 1000)

    gc.callbacks.append(timed)
    return pauses


def emit(**values) -> None:
    print(json.dumps(values), flush=True)


def startup(data_dir: str, t0: float) -> None:
    from reader.app import ReaderApp
    from reader.app.widgets.paper_list import PaperList
    from reader.config import Settings
    from reader.store import Store

    original = PaperList.render_line

    def render_line(self, y):
        strip = original(self, y)
        if self.ids and self._card_data.get(self.ids[0]) is not None and not getattr(app, "_painted", False):
            app._painted = True
            emit(seconds=time.time() - t0)
            app.call_later(app.exit)
        return strip

    PaperList.render_line = render_line
    app = ReaderApp(Store(Path(data_dir)), Settings.from_env(), sync_on_start=False)
    app.run(headless=True, size=(120, 40))


def bare(t0: float) -> None:
    from textual.app import App
    from textual.widgets import Static

    class Bare(App):
        def compose(self):
            yield Static("hello")

        def on_mount(self):
            self.call_after_refresh(self.painted)

        def painted(self):
            emit(seconds=time.time() - t0)
            self.exit()

    Bare().run(headless=True, size=(120, 40))


async def interact(data_dir: str) -> None:
    from reader.app import ReaderApp
    from reader.app.screens.detail import DetailScreen
    from reader.config import Settings
    from reader.store import Store

    started = time.perf_counter()
    app = ReaderApp(Store(Path(data_dir)), Settings.from_env(), sync_on_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        while not main.loaded:
            await asyncio.sleep(0.05)
        loaded_s = time.perf_counter() - started
        await pilot.pause()
        pauses = gc_pauses()  # from here on: the app in use

        plist = main.paper_list

        def handler_ms(action, repeat: int = 30) -> float:
            """The key's handler plus redrawing every visible line of the list, in-process."""
            samples = []
            for _ in range(repeat):
                started = time.perf_counter()
                action()
                for y in range(plist.size.height):
                    plist.render_line(y)
                samples.append(time.perf_counter() - started)
            return statistics.median(samples) * 1000

        async def round_trip_ms(key: str, repeat: int = 15) -> float:
            """Pilot's press-and-settle round trip, which includes Textual's own scheduling."""
            samples = []
            for _ in range(repeat):
                started = time.perf_counter()
                await pilot.press(key)
                await pilot.pause()
                samples.append(time.perf_counter() - started)
            return statistics.median(samples) * 1000

        results = {
            "cursor_ms": handler_ms(plist.action_cursor_down),
            "star_ms": handler_ms(main.action_toggle_star),
            "read_ms": handler_ms(main.action_toggle_read),
            "pilot_cursor_ms": await round_trip_ms("j"),
            "pilot_unbound_ms": await round_trip_ms("f12"),
        }
        filters = {}
        from benchmarks.search import CLI_QUERIES, QUERIES
        from reader.core.query import parse
        from reader.packed_ids import PackedIds
        from reader.service import ALL, FOR_YOU
        from reader.service.ranker import RankedList

        # For you's order is a ranking's, unrelated to the list's: a shuffle stands in for one
        # (a real ranking takes ~20 s to make at 100,000 papers); the first select makes what
        # the ranking's worker would have made beforehand.
        ranked = random.Random(0).sample(list(plist.ids), len(plist.ids))
        ranking = RankedList(PackedIds.pack(ranked) or ranked, array("d", bytes(8 * len(ranked))), {})  # as it comes from its process
        main.service.for_you = ranking
        main.service.select(FOR_YOU, query=parse(CLI_QUERIES[0], implicit_and=True))
        main.triage.take_ranking(ranking, main.service.catalog.marks_version, len(ranked))  # taken in as the app takes one
        cases = [(ALL, text, text) for text in QUERIES.values()] + [(FOR_YOU, f"For you: {text}", text) for text in CLI_QUERIES]
        for view, name, template in cases:
            text = template.replace("{middle}", plist.ids[len(plist.ids) // 2])
            samples = []
            for _ in range(3):
                # What the filter's worker does (parse, select from the index), then what the UI's
                # thread does with the answer (list, counts in the filter box, the visible cards).
                started = time.perf_counter()
                node = parse(text, implicit_and=True)
                ids = main.service.select(view, query=node)
                main.list_filter.apply(text, node, ids, None)
                for y in range(plist.size.height):
                    plist.render_line(y)
                samples.append(time.perf_counter() - started)
                main.list_filter.apply("", None, None, None)
                await pilot.pause()
            filters[name.replace(template, text)] = statistics.median(samples) * 1000
        del ids, ranked, ranking  # the app keeps what it shows; the probe's own lists would be walked by the collector
        # Enter on a paper the cursor has rested on (its record read ahead), until the detail
        # view's frames are drawn and nothing is left to lay out or paint (call_after_refresh).
        # Wall time includes Textual's frame pacing (a frame at most every 1/60 s); the main
        # thread's CPU time is the work.
        detail_wall, detail_cpu = [], []
        for _ in range(9):
            plist.action_cursor_down()
            await pilot.pause()
            await asyncio.sleep(0.1)  # the cursor rests on the paper (its record is read ahead after 60 ms)
            settled = asyncio.Event()
            started, cpu_started = time.perf_counter(), time.thread_time()
            plist.action_open()
            while not (isinstance(app.screen, DetailScreen) and app.screen.paper is not None):
                await asyncio.sleep(0)
            app.screen.call_after_refresh(settled.set)
            await settled.wait()
            detail_wall.append(time.perf_counter() - started)
            detail_cpu.append(time.thread_time() - cpu_started)
            app.screen.action_close()
            await pilot.pause()
        results["filter_ms"] = max(filters.values())
        results["detail_ms"] = statistics.median(detail_wall) * 1000
        results["detail_cpu_ms"] = statistics.median(detail_cpu) * 1000
        results["loaded_s"] = loaded_s
        results["filters"] = filters
        results["rss_mb"] = rss_mb()
        results["gc_max_ms"] = max(pauses, default=0.0)
        results["gc_passes"] = len(pauses)
        emit(**results)


async def first(data_dir: str) -> None:
    """Seconds from the app's start to its search index answering, on a cache without one."""
    import shutil

    from reader.app import ReaderApp
    from reader.config import Settings
    from reader.store import Store

    shutil.rmtree(Path(data_dir) / "search", ignore_errors=True)
    started = time.perf_counter()
    app = ReaderApp(Store(Path(data_dir)), Settings.from_env(), sync_on_start=False)
    async with app.run_test(size=(120, 40)):
        while not app.main.loaded:
            await asyncio.sleep(0.02)
        emit(ready_s=time.perf_counter() - started)


async def contended(data_dir: str, count: int) -> None:
    """Stars pressed while a sync saves papers: each star's time until it is saved (the writer
    thread's write done) and the list redrawn, and the longest event-loop block meanwhile."""
    import dataclasses
    import subprocess

    from reader.app import ReaderApp
    from reader.arxiv.client import ClientOptions
    from reader.config import Settings
    from reader.store import Store, mirrored

    writes = []  # each write of user.json or its copy (fsync included): does the sync's disk work delay it?
    write_atomic = mirrored.write_atomic

    def timed_write(path, payload):
        started = time.perf_counter()
        write_atomic(path, payload)
        writes.append(time.perf_counter() - started)

    mirrored.write_atomic = timed_write
    server = subprocess.Popen([sys.executable, "-m", "benchmarks.probe", "serve", str(count)], stdout=subprocess.PIPE, text=True)
    try:
        api_url = json.loads(server.stdout.readline())["api_url"]
        store = Store(Path(data_dir))
        store.add_topic("Fresh", "ti:fresh") if store.topic("Fresh") is None else None
        options = ClientOptions(api_url=api_url, rss_url=api_url, delay=0.0, retries=0)
        reach_every_paper = dataclasses.replace(Settings.from_env(), sync_weeks=60)  # the fresh papers span a year
        app = ReaderApp(store, reach_every_paper, client_options=options, sync_on_start=False)
        async with app.run_test(size=(120, 40)) as pilot:
            main = app.main
            while not main.loaded:
                await asyncio.sleep(0.05)
            await pilot.pause()
            async with LoopWatch() as watch:
                writes.clear()
                main.sync.start([store.topic("Fresh")])
                stars = []
                plist = main.paper_list
                while main.status.syncing and len(stars) < 50:
                    started = time.perf_counter()
                    paper_id = plist.current
                    future = main.service.set_marks(paper_id, starred=paper_id not in main.service.catalog.starred)
                    for y in range(plist.size.height):
                        plist.render_line(y)
                    await asyncio.wrap_future(future)
                    stars.append(time.perf_counter() - started)
                    plist.action_cursor_down()
                    await asyncio.sleep(0.02)
                while main.status.syncing:
                    await asyncio.sleep(0.05)
    finally:
        server.kill()
    emit(
        stars=len(stars),
        star_saved_max_ms=max(stars) * 1000 if stars else None,
        star_saved_median_ms=statistics.median(stars) * 1000 if stars else None,
        max_block_ms=watch.worst_ms,
        user_write_max_ms=max(writes) * 1000 if writes else None,
        user_write_median_ms=statistics.median(writes) * 1000 if writes else None,
    )


def serve(count: int) -> None:
    """A loopback arXiv in its own process (as the real one would be), until killed."""
    from benchmarks.cache import fresh_papers
    from tests.arxiv_server import FakeArxiv

    fake = FakeArxiv().start()
    fake.queries["ti:fresh"] = fresh_papers(count)
    emit(api_url=fake.api_url)
    while True:
        time.sleep(60)


async def sync(data_dir: str, count: int) -> None:
    import subprocess
    from datetime import date

    from reader.arxiv.client import ArxivClient, ClientOptions
    from reader.store import Store, Topic
    from reader.sync.syncer import Syncer

    server = subprocess.Popen([sys.executable, "-m", "benchmarks.probe", "serve", str(count)], stdout=subprocess.PIPE, text=True)
    try:
        api_url = json.loads(server.stdout.readline())["api_url"]
        store = Store(Path(data_dir))
        async with LoopWatch() as watch:
            options = ClientOptions(api_url=api_url, rss_url=api_url, delay=0.0, retries=0)
            started = time.perf_counter()
            async with ArxivClient(options) as client:
                syncer = Syncer(store, client, today=date(2026, 12, 2), horizon_weeks=60)
                report = await syncer.sync_topic(Topic("Fresh", "ti:fresh"))
            elapsed = time.perf_counter() - started
    finally:
        server.kill()
    emit(
        papers=report.fetched,
        new=report.new,
        error=report.error,
        papers_per_s=report.fetched / elapsed,
        max_block_ms=watch.worst_ms,
        rss_mb=rss_mb(),
    )


def main() -> None:
    mode = sys.argv[1]
    if mode == "startup":
        startup(sys.argv[2], float(sys.argv[3]))
    elif mode == "bare":
        bare(float(sys.argv[2]))
    elif mode == "first":
        asyncio.run(first(sys.argv[2]))
    elif mode == "interact":
        asyncio.run(interact(sys.argv[2]))
    elif mode == "contended":
        asyncio.run(contended(sys.argv[2], int(sys.argv[3])))
    elif mode == "sync":
        asyncio.run(sync(sys.argv[2], int(sys.argv[3])))
    elif mode == "serve":
        serve(int(sys.argv[2]))
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    os.environ.setdefault("READER_TODAY", "2026-12-02")
    main()
