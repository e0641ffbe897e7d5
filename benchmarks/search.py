"""Search index figures: `python -m benchmarks.search [--sizes 100000,300000]` (also run by
benchmarks/run.py). Each size gets a fresh benchmark cache; every figure comes from a fresh
process, so the first build is a first build and nothing is warm but the OS's file cache.

    first build      SearchIndex.refresh on a cache with no index (ready to filter after it)
    refresh          the same call when nothing changed (what every `reader list --query` pays)
    filter           matching(query) plus putting the matches in list order (the index's ids),
                     median of 5, for plain words, phrases, each field, AND / OR / ANDNOT, dates
    cards            cards() for the 50 newest papers
    after a sync     refresh of the shards a sync of 10,000 new papers wrote (papers/s)
    list --query     `reader list --query Q --limit 20`, process start to exit
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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
QUERIES = {
    "plain words": "deep neural",
    "plain word, common": "learning",
    "phrase": '"language model"',
    "ti:": "ti:learning",
    "au:": "au:wang",
    "abs: phrase": 'abs:"reinforcement learning"',
    "co:": "co:pages",
    "jr:": 'jr:"phys rev"',
    "cat:": "cat:cs.LG",
    "cat: archive": "cat:cs",
    "id:": "id:{middle}",  # the id of the cache's middle paper
    "AND": "ti:learning AND cat:cs.LG",
    "OR": "au:smith OR au:wang OR au:zhang",
    "ANDNOT": "learning ANDNOT ti:agent",
    "nested": "(ti:agent OR ti:agents) AND (abs:tool OR abs:tools) ANDNOT cat:cs.RO",
    "date range": "submittedDate:[202609 TO 202610] AND abs:agents",
}
CLI_QUERIES = ("ti:learning", "deep neural", "cat:cs")
SYNC_PAPERS = 10_000  # papers a sync adds before the index is brought up to date


def probe(data_dir: str) -> None:
    """In this (fresh) process: first build, refresh, filters, cards; prints one JSON line."""
    from reader.core.query import parse
    from reader.search_index import SearchIndex
    from reader.store import Store

    store = Store(Path(data_dir))
    shutil.rmtree(Path(data_dir) / "search", ignore_errors=True)
    index = SearchIndex.open(Path(data_dir))
    started = time.perf_counter()
    index.refresh(store)
    first_build = time.perf_counter() - started
    started = time.perf_counter()
    index.refresh(store)
    refresh = time.perf_counter() - started
    order = store.index().ids
    filters = {}
    for name, text in QUERIES.items():
        text = text.replace("{middle}", order[len(order) // 2])
        node = parse(text, implicit_and=True)
        samples = []
        for _ in range(5):
            started = time.perf_counter()
            matched = index.matching(node)
            shown = [pid for pid in order if pid in matched]
            samples.append(time.perf_counter() - started)
        filters[name] = {"query": text, "ms": statistics.median(samples) * 1000, "matches": len(shown)}
    started = time.perf_counter()
    cards = index.cards(order[:50])
    cards_ms = (time.perf_counter() - started) * 1000
    assert len(cards) == 50
    size = sum(p.stat().st_size for p in (Path(data_dir) / "search").iterdir())
    from benchmarks.cache import fresh_papers
    from reader.store.data_dir import shard_of

    fresh = fresh_papers(SYNC_PAPERS)
    store.save_papers(fresh, "Fresh")
    started = time.perf_counter()
    index.refresh(store, shards=sorted({shard_of(p.id) for p in fresh}))
    synced = time.perf_counter() - started
    print(
        json.dumps(
            {
                "papers": len(order),
                "first_build_s": first_build,
                "refresh_ms": refresh * 1000,
                "filters": filters,
                "cards_ms": cards_ms,
                "index_mb": size / 1e6,
                "sync_papers_per_s": SYNC_PAPERS / synced,
                "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        ),
        flush=True,
    )


def measure(data_dir: Path, runs: int = 5) -> dict:
    """Every figure for one cache (which gets its index built on the way)."""
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks.search", "probe", str(data_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        raise SystemExit(f"search probe failed:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}")
    figures = json.loads(lines[-1])
    figures["cli_ms"] = {}
    for query in CLI_QUERIES:
        argv = [sys.executable, "-m", "reader", "--data-dir", str(data_dir), "list", "--query", query, "--limit", "20"]
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run(argv, cwd=ROOT, capture_output=True, check=True, timeout=600)
            samples.append(time.perf_counter() - started)
        figures["cli_ms"][query] = statistics.median(samples) * 1000
    return figures


def rows(figures: dict) -> list[tuple[str, str, str]]:
    """Rows for benchmarks/run.py's table."""
    filters = figures["filters"]
    slowest = max(filters.values(), key=lambda f: f["ms"])
    cli = figures["cli_ms"]
    return [
        (
            "search index, first build",
            f"{figures['first_build_s']:.1f} s",
            f"new cache, ready to filter after it; {figures['index_mb']:.0f} MB on disk; {os.cpu_count()} cores",
        ),
        ("search index refresh, nothing changed", f"{figures['refresh_ms']:.0f} ms", "paid by every reader list --query"),
        (
            "filter from the index",
            f"{slowest['ms']:.0f} ms",
            f"slowest of {len(filters)} queries ({slowest['query']}, {slowest['matches']:,} matches), in list order",
        ),
        ("50 cards from the index", f"{figures['cards_ms']:.1f} ms", ""),
        (
            "index kept current after a sync",
            f"{figures['sync_papers_per_s']:,.0f} papers/s",
            f"refresh of the shards {SYNC_PAPERS:,} new papers went to",
        ),
        ("reader list --query (index)", f"{max(cli.values()):.0f} ms", "slowest of: " + ", ".join(f"{q} {v:.0f}" for q, v in cli.items())),
    ]


def growth_table(by_size: dict[int, dict]) -> str:
    sizes = sorted(by_size)
    head = "| measure | " + " | ".join(f"{s:,} papers" for s in sizes) + " |"
    lines = [head, "|---" * (len(sizes) + 1) + "|"]

    def row(label: str, values: list[str]) -> None:
        lines.append(f"| {label} | " + " | ".join(values) + " |")

    row("first build", [f"{by_size[s]['first_build_s']:.1f} s" for s in sizes])
    row("refresh, nothing changed", [f"{by_size[s]['refresh_ms']:.0f} ms" for s in sizes])
    row("index on disk", [f"{by_size[s]['index_mb']:.0f} MB" for s in sizes])
    for name in QUERIES:
        row(
            f"`{by_size[sizes[-1]]['filters'][name]['query']}`",
            [f"{by_size[s]['filters'][name]['ms']:.1f} ms ({by_size[s]['filters'][name]['matches']:,})" for s in sizes],
        )
    row("50 cards", [f"{by_size[s]['cards_ms']:.1f} ms" for s in sizes])
    row("refresh after a sync", [f"{by_size[s]['sync_papers_per_s']:,.0f} papers/s" for s in sizes])
    for query in CLI_QUERIES:
        row(f"reader list --query `{query}`", [f"{by_size[s]['cli_ms'][query]:.0f} ms" for s in sizes])
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100000,300000")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    as_installed()
    sys.path.insert(0, str(ROOT))
    from benchmarks.cache import build_cache

    work = Path(tempfile.mkdtemp(prefix="reader-search-bench-"))
    by_size = {}
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            data = work / f"cache-{size}"
            build_cache(data, size, TODAY)
            by_size[size] = measure(data, args.runs)
            shutil.rmtree(data, ignore_errors=True)
        print(f"### Search index: growth (filter times with matches in brackets; {os.cpu_count()} cores)\n")
        print(growth_table(by_size), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("READER_TODAY", TODAY.isoformat())
    if sys.argv[1:2] == ["probe"]:
        probe(sys.argv[2])
    else:
        main()
