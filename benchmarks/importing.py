"""`reader import` of a large library: `python -m benchmarks.importing [--entries N] [--cached N]`.

A benchmark cache (benchmarks/cache.py) of `--cached` papers, and a .bib file of `--entries`
entries as a long-kept library holds them: a third cite a cached paper by its arXiv id, a third
by its exact title and first author only, a third are papers that are not on arXiv (a title and an
author, no id); one entry in a thousand misses the brace closing its title (not in the copy `--update` is
given: it refuses a file with a broken entry). Then, as a whole
process, `reader import FILE --tag T` (every paper it matches is cached: arXiv is not asked), and
`reader export --update` of the same file. One figure each (wall time, fresh process); the
machine is shared: compare within one run."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks import ROOT, as_installed

TODAY = date(2026, 12, 2)
BROKEN_EVERY = 1000


def library(papers: list, entries: int, *, broken: bool = True) -> str:
    """The .bib text: ids, titles of cached papers, titles of papers not on arXiv, some broken."""
    parts = []
    for i in range(entries):
        paper = papers[i % len(papers)]
        author = paper.authors[0].name if paper.authors else "Anonymous"
        title = "{" + paper.title + ("}" if i % BROKEN_EVERY != 1 or not broken else "")
        if i % 3 == 0:
            parts.append(f"@misc{{id{i},\n  title = {title},\n  eprint = {{{paper.id}}},\n  archivePrefix = {{arXiv}},\n}}\n")
        elif i % 3 == 1:
            parts.append(f"@article{{title{i},\n  title = {title},\n  author = {{{author}}},\n}}\n")
        else:
            parts.append(f"@book{{book{i},\n  title = {{A Book Not on arXiv, Volume {i}}},\n  author = {{{author}}},\n}}\n")
    return "\n".join(parts)


def timed(argv: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv[3:5])} failed ({result.returncode}):\n{result.stderr[-2000:]}")
    return seconds, (result.stdout.splitlines() or [""])[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=80_000)
    parser.add_argument("--cached", type=int, default=30_000, help="papers in the cache")
    args = parser.parse_args()
    as_installed()
    os.environ.update({"READER_TODAY": TODAY.isoformat(), "READER_ARXIV_API_URL": "http://127.0.0.1:9/api/query"})
    from benchmarks.cache import build_cache

    with tempfile.TemporaryDirectory(prefix="reader-bench-") as work:
        data = Path(work) / "cache"
        papers = build_cache(data, args.cached, TODAY)
        bib = Path(work) / "library.bib"
        bib.write_text(library(papers, args.entries), encoding="utf-8")
        reader = [sys.executable, "-m", "reader", "--data-dir", str(data)]
        timed([*reader, "list", "--query", "learning", "--limit", "1"])  # the search index built, as after a sync
        imported, summary = timed([*reader, "import", str(bib), "--tag", "bench"])
        size = bib.stat().st_size
        whole = Path(work) / "whole.bib"  # --update refuses a file with a broken entry
        whole.write_text(library(papers, args.entries, broken=False), encoding="utf-8")
        updated, _ = timed([*reader, "export", "--tag", "bench", "--update", str(whole)])
    print(
        f"| `reader import` of {args.entries:,} BibTeX entries ({size / 1e6:.1f} MB), {args.cached:,} papers cached, --tag "
        f"| ≤ 10 s | {imported:.1f} s | {summary} |"
    )
    print(f"| `reader export --tag --update` of that file | ≤ 10 s | {updated:.1f} s | the same parser |")


if __name__ == "__main__":
    main()
