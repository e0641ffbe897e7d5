"""Cited by: `python -m benchmarks.citedby [--papers 10000] [--texts 1000] [--runs 5] [--against DIR]`.

Builds a cache of `--papers` papers with `--texts` stored full texts, each indexed as it is stored
(as a fetched text is), each with 40 references to cached papers, then measures: the cited-by
lookup in process (the index brought up to date first: a stat of every text, no text read),
the detail view's quick count, `reader refs ID --cited-by` as a whole process, and, for scale,
the index rebuilt from every stored text (what a missing or older index costs once). With
`--against DIR` (a checkout of the code before), the whole process of that checkout too, in turn.
Target: cited-by ≤ 0.3 s."""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

from benchmarks import add_against, alternated_wall, as_installed

TODAY = date(2026, 12, 2)
REFERENCES = 40


def build(data_dir: Path, papers: int, texts: int) -> str:
    """The cache and its stored, indexed texts; the id the most texts cite."""
    from benchmarks.cache import build_cache, model_papers
    from reader.fulltext.document import HEADING, PARAGRAPH, REFERENCE, Block, Document
    from reader.fulltext.store import TextStore
    from reader.fulltext.text_index import TextIndex

    cached = build_cache(data_dir, papers, TODAY)
    abstracts = [paper.abstract for paper in model_papers()]
    rng = random.Random(40)
    store, index = TextStore(data_dir), TextIndex(data_dir)
    ids = [paper.id for paper in cached]
    popular = ids[len(ids) // 2]
    for paper in cached[:: max(1, len(cached) // texts)][:texts]:
        cited = rng.sample(ids, REFERENCES - 1) + ([popular] if rng.random() < 0.3 else [])
        references = [Block(REFERENCE, f"[{n}] Someone. A title. arXiv:{pid}.", pid, n) for n, pid in enumerate(cited, 1)]
        body = [Block(PARAGRAPH, rng.choice(abstracts)) for _ in range(30)]
        document = Document(paper.id, paper.version, "html", (*body, Block(HEADING, "References"), *references))
        index.index_stored(document, store.save(document))
    return popular


def median_ms(function: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--texts", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=5)
    add_against(parser)
    args = parser.parse_args()
    as_installed()
    from reader.fulltext.text_index import TextIndex

    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        started = time.perf_counter()
        popular = build(data_dir, args.papers, args.texts)
        built = time.perf_counter() - started
        print(f"cache of {args.papers:,} papers with {args.texts:,} stored texts built and indexed in {built:.1f} s", file=sys.stderr)
        index = TextIndex(data_dir)
        citing = index.cited_by(popular) or []
        lookup = median_ms(lambda: index.cited_by(popular), args.runs)
        quick = median_ms(lambda: index.cited_by(popular, quick=True), args.runs)
        env = {
            **os.environ,
            "READER_DATA_DIR": str(data_dir),
            "READER_TODAY": TODAY.isoformat(),
            "READER_CONFIG_DIR": str(Path(tmp) / "config"),
            "READER_LOG_DIR": str(Path(tmp) / "log"),
        }
        command = [sys.executable, "-m", "reader", "refs", popular, "--cited-by"]
        whole, before = alternated_wall(command, env, args.runs, args.against)
        index.path.unlink()
        rebuilt = median_ms(lambda: index.cited_by(popular), 1)
    rows = [
        (
            "cited-by lookup",
            "≤ 0.3 s",
            f"{lookup:.0f} ms",
            f"in process, median of {args.runs}: {len(citing)} citing texts; every text stat'ed, none read",
        ),
        ("detail view's count (quick)", "≤ 0.3 s", f"{quick:.0f} ms", "the same, never rebuilding"),
        (
            "reader refs ID --cited-by",
            "≤ 0.3 s",
            str(whole),
            f"whole process, median of {args.runs}" + (f"; {before} from {args.against}, in turn" if before is not None else ""),
        ),
        ("index rebuilt from the texts", "once", f"{rebuilt / 1000:.1f} s", "index missing or of an older format: every text read"),
    ]
    print(f"\n#### Cited by: {args.papers:,} papers, {args.texts:,} stored texts\n")
    print("| measure | target | result | notes |\n|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
