"""Changes made by other processes, as the running app takes them in (issue 28): `python -m
benchmarks.outside DATA_DIR` runs the app (headless) on a built cache and measures, printing a
JSON line:

    topic_drawn_s   `reader topics add` exiting -> the sidebar drawing the topic (target <= 5 s)
    star_drawn_s    `reader star` exiting -> the card drawing the star
    max_block_ms    the longest event-loop block while those were taken in (target <= 50 ms)
    idle_cpu_s      the app's CPU time (every thread) over a minute with nothing changing
                    (target <= 0.2 s)

`measure(data_dir, runs)` runs it in a fresh process (benchmarks/run.py calls it)."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.loopwatch import LoopWatch

ROOT = Path(__file__).resolve().parent.parent
IDLE_SECONDS = 60.0


def measure(data_dir: Path, runs: int = 3) -> dict:
    env = {**os.environ, "READER_ARXIV_API_URL": "http://127.0.0.1:9/api/query", "READER_ARXIV_RSS_URL": "http://127.0.0.1:9/rss/"}
    argv = [sys.executable, "-m", "benchmarks.outside", str(data_dir), str(runs)]
    result = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        raise SystemExit(f"benchmarks.outside failed:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}")
    return json.loads(lines[-1])


def rows(found: dict) -> list[tuple[str, str, str, str]]:
    """(measure, target, result, notes) for the benchmark's table."""
    return [
        (
            "reader topics add, until the app draws the topic",
            "≤ 5 s",
            f"{found['topic_drawn_s']:.2f} s",
            f"median of {found['runs']}, slowest {found['topic_drawn_max_s']:.2f} s; the app stats four files once a second",
        ),
        ("reader star, until the app draws the star", "", f"{found['star_drawn_s']:.2f} s", f"median of {found['runs']}"),
        (
            "longest event-loop block, taking changes in",
            "≤ 50 ms",
            f"{found['max_block_ms']:.0f} ms",
            "from each command's start until the change is drawn and settled (topics: the cache's state read again in a worker)",
        ),
        ("idle CPU over a minute, nothing changing", "≤ 0.2 s", f"{found['idle_cpu_s']:.2f} s", "the app's process, every thread"),
    ]


async def probe(data_dir: str, runs: int) -> None:
    from reader.app import ReaderApp
    from reader.app.widgets.paper_list import PaperList
    from reader.app.widgets.sidebar import TopicSidebar
    from reader.config import Settings
    from reader.store import Store

    drawn: dict[str, float] = {}  # what the probe waits for -> when it was first drawn
    wanted: dict[str, object] = {}

    def watching(cls, name: str, test) -> None:
        original = cls.render_line

        def render_line(self, y):
            strip = original(self, y)
            if name in wanted and name not in drawn and test(self, wanted[name]):
                drawn[name] = time.perf_counter()
            return strip

        cls.render_line = render_line

    watching(TopicSidebar, "topic", lambda sidebar, topic: any(view.name == topic for view in sidebar.views))
    watching(PaperList, "star", lambda plist, paper_id: paper_id in plist.catalog.starred)

    async def cli(*args: str) -> float:
        """Run `reader ARGS` as another terminal would; when it exited."""
        argv = [sys.executable, "-m", "reader", "--data-dir", data_dir, *args]
        await asyncio.to_thread(subprocess.run, argv, check=True, capture_output=True)
        return time.perf_counter()

    async def until_drawn(name: str, value: object, *args: str) -> float:
        drawn.pop(name, None)
        wanted[name] = value
        exited = await cli(*args)
        while name not in drawn:
            await asyncio.sleep(0.005)
        settled = asyncio.Event()
        app.screen.call_after_refresh(settled.set)
        await settled.wait()
        await asyncio.sleep(1.5)  # the rest of it (triage, counts) is taken in too
        del wanted[name]
        return drawn[name] - exited

    app = ReaderApp(Store(Path(data_dir)), Settings.from_env(), sync_on_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        while not main.loaded:
            await asyncio.sleep(0.05)
        await pilot.pause()
        await asyncio.sleep(5)  # start-up work done (counts, index refresh, triage)
        topics, stars = [], []
        async with LoopWatch() as watch:
            for run in range(runs):
                topics.append(await until_drawn("topic", f"Bench {run}", "topics", "add", f"Bench {run}", f"ti:bench{run}"))
                paper_id = next(pid for pid in main.paper_list.ids[run:] if pid not in main.service.catalog.starred)  # on screen
                stars.append(await until_drawn("star", paper_id, "star", paper_id))
        await asyncio.sleep(3)
        started = time.process_time()
        await asyncio.sleep(IDLE_SECONDS)
        idle = time.process_time() - started
        print(
            json.dumps(
                {
                    "runs": runs,
                    "topic_drawn_s": statistics.median(topics),
                    "topic_drawn_max_s": max(topics),
                    "star_drawn_s": statistics.median(stars),
                    "max_block_ms": watch.worst_ms,
                    "idle_cpu_s": idle,
                    "reads": main.query_one("OutsideWatch").reads,  # type: ignore[attr-defined]
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    os.environ.setdefault("READER_TODAY", "2026-12-02")
    asyncio.run(probe(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3))
