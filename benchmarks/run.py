"""The performance benchmark: `python -m benchmarks.run` (see benchmarks/README.md).

Builds realistic caches of 1,000, 10,000 and 100,000 papers (from the recorded fixtures in
tests/fixtures), then measures each in fresh processes and prints one table per size. Figures are
medians of several runs; compare ratios within one run, as machines here are shared and noisy."""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import as_installed

ROOT = Path(__file__).resolve().parent.parent
TODAY = date(2026, 12, 2)


def probe(*args: str) -> dict:
    env = {**os.environ, "READER_TODAY": TODAY.isoformat(), "READER_ARXIV_API_URL": "http://127.0.0.1:9/api/query"}
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.probe", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        raise SystemExit(f"probe {args[0]} failed:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}")
    return json.loads(lines[-1])


def wall(*argv: str, runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, cwd=ROOT, capture_output=True, check=True, timeout=600)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def startup(kind: str, data_dir: Path | None, runs: int) -> float:
    samples = []
    for _ in range(runs):
        args = ["startup", str(data_dir)] if kind == "reader" else ["bare"]
        samples.append(probe(*args, str(time.time()))["seconds"])
    return statistics.median(samples)


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import textual

    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, Textual {textual.__version__}, {platform.system()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="100000", help="cache sizes measured in full (issues 10 and 13 set targets at 100,000)")
    parser.add_argument("--runs", type=int, default=3, help="runs per timed figure (median)")
    parser.add_argument("--sync-papers", type=int, default=10000, help="papers ingested by the sync figure")
    parser.add_argument("--search-growth", default="300000", help="larger caches measured for the search index only ('' for none)")
    args = parser.parse_args()
    as_installed()
    sys.path.insert(0, str(ROOT))
    from benchmarks import outside, search
    from benchmarks.cache import build_cache

    print(f"machine: {machine()}")
    print(f"date: {time.strftime('%Y-%m-%d')}; medians of {args.runs} runs\n")
    work = Path(tempfile.mkdtemp(prefix="reader-bench-"))
    searched: dict[int, dict] = {}
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            data = work / f"cache-{size}"
            started = time.perf_counter()
            papers = build_cache(data, size, TODAY)
            built = time.perf_counter() - started
            reader_cli = [sys.executable, "-m", "reader", "--data-dir", str(data)]
            star_id = papers[len(papers) // 2].id
            bare = startup("bare", None, args.runs)
            first_start = probe("first", str(data))  # builds the search index the rest uses
            first = startup("reader", data, args.runs)
            inside = probe("interact", str(data))
            star = wall(*reader_cli, "star", star_id, runs=args.runs)
            sync_dir = work / f"sync-{size}"
            shutil.copytree(data, sync_dir)
            synced = probe("sync", str(sync_dir), str(args.sync_papers))
            shutil.rmtree(sync_dir, ignore_errors=True)
            contended_dir = work / f"contended-{size}"
            shutil.copytree(data, contended_dir)
            contention = probe("contended", str(contended_dir), str(args.sync_papers))
            shutil.rmtree(contended_dir, ignore_errors=True)
            outside_dir = work / f"outside-{size}"
            shutil.copytree(data, outside_dir)
            changes = outside.measure(outside_dir, args.runs)  # reader commands beside the running app
            shutil.rmtree(outside_dir, ignore_errors=True)
            searched[size] = search.measure(data, args.runs)
            index = searched[size]
            slowest_filter = max(inside["filters"].items(), key=lambda item: item[1])
            cli = index["cli_ms"]
            # measure, target (issue 10 or 13), result, notes
            rows = [
                (
                    "first painted list (headless)",
                    "≤ bare + 500 ms",
                    f"{first * 1000:.0f} ms",
                    f"bare Textual app {bare * 1000:.0f} ms; +{(first - bare) * 1000:.0f} ms",
                ),
                (
                    "first start on a new cache, ready to filter",
                    "≤ 5 s",
                    f"{first_start['ready_s']:.1f} s",
                    "the search index built (in child processes) while the list shows",
                ),
                (
                    "CPU quiet after start, existing cache",
                    "≤ 3 s",
                    f"{inside['loaded_s']:.1f} s",
                    "open, count, chart, index refresh; nothing loads after",
                ),
                (
                    "filter in the app",
                    "≤ 30 ms",
                    f"{slowest_filter[1]:.0f} ms",
                    f"slowest of {len(inside['filters'])} queries ({slowest_filter[0]}): select from the index, list, visible cards",
                ),
                (
                    "cursor move",
                    "≤ 5 ms",
                    f"{inside['cursor_ms']:.1f} ms",
                    f"handler + redraw of the list; Pilot round trip {inside['pilot_cursor_ms']:.0f} ms vs {inside['pilot_unbound_ms']:.0f} ms for an unbound key",
                ),
                ("star toggle", "", f"{inside['star_ms']:.1f} ms", "handler (counts, sidebar, write queued to the writer thread) + redraw"),
                (
                    "star while a sync saves papers",
                    "≤ 20 ms",
                    f"{contention['star_saved_max_ms']:.0f} ms",
                    f"slowest of {contention['stars']} stars until saved on disk and redrawn (median {contention['star_saved_median_ms']:.0f} ms); each write of user.json or its copy {contention['user_write_median_ms']:.1f} ms median, {contention['user_write_max_ms']:.0f} ms max",
                ),
                (
                    "longest event-loop block, app syncing",
                    "≤ 50 ms",
                    f"{contention['max_block_ms']:.0f} ms",
                    f"{args.sync_papers:,} papers synced into this cache by the app's child process, stars pressed meanwhile",
                ),
                (
                    "detail view opened",
                    "≤ 20 ms",
                    f"{inside['detail_cpu_ms']:.0f} ms CPU, {inside['detail_ms']:.0f} ms wall",
                    "Enter (record read ahead) to the view drawn and settled: the main thread's CPU, and the wall time, which includes Textual's frame pacing (a frame at most every 1/60 s)",
                ),
                (
                    "longest garbage-collector pause (app)",
                    "",
                    f"{inside['gc_max_ms']:.1f} ms",
                    f"{inside['gc_passes']:,} passes while the figures above were taken: the loaded cache is frozen out of them (one full pass over it took 40-75 ms)",
                ),
                ("peak RSS (app)", "≤ 200 MB", f"{inside['rss_mb']:.0f} MB", f"sync process {synced['rss_mb']:.0f} MB"),
                (
                    "reader list --query",
                    "≤ 300 ms",
                    f"{max(cli.values()):.0f} ms",
                    "whole process; slowest of: " + ", ".join(f"{q} {v:.0f}" for q, v in cli.items()),
                ),
                (
                    "sync ingest",
                    "≥ 3,000 papers/s",
                    f"{synced['papers_per_s']:,.0f} papers/s",
                    f"{synced['papers']:,} papers, delay 0, into this cache; longest event-loop block {synced['max_block_ms']:.0f} ms",
                ),
                (
                    "search index kept current after that sync",
                    "",
                    f"{index['sync_papers_per_s']:,.0f} papers/s",
                    "refresh of the shards the new papers went to",
                ),
                ("CLI reader star", "", f"{star * 1000:.0f} ms", "wall, process start to exit"),
            ]
            rows += outside.rows(changes)
            rows += [(measure, "", result, notes) for measure, result, notes in search.rows(index)]
            print(f"### {size:,} papers (cache built in {built:.1f} s)\n")
            print("| measure | target | result | notes |\n|---|---|---|---|")
            for row in rows:
                print("| " + " | ".join(row) + " |")
            print(flush=True)
            shutil.rmtree(data, ignore_errors=True)
        for size in (int(s) for s in args.search_growth.split(",") if s):
            data = work / f"cache-{size}"
            build_cache(data, size, TODAY)
            searched[size] = search.measure(data, args.runs)
            shutil.rmtree(data, ignore_errors=True)
        print(f"### Search index as the cache grows (filter times, matches in brackets; {os.cpu_count()} cores)\n")
        print(search.growth_table(searched), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
