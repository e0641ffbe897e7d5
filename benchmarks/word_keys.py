"""For you's words keyed in numpy (featurizer 2) against one at a time with blake2b (featurizer 1):
`python -m benchmarks.word_keys [--papers N]`.

Prints, for each keying, alternated in one process:
- the CPU of counting (`featurize`) per 1,000 papers, shard by shard, over N synthetic papers
  (benchmarks/cache.py's) and over the 4,082 real abstracts of benchmarks/data;
- the quality of For you on the real papers: for each of their labels held by 40 papers or more,
  five random papers of the label starred (three draws), the share of the 20 best others that
  hold the label (precision at 20), averaged; and how much the two keyings' top 20s overlap;
- the top 20s' overlap on the N synthetic papers with five stars.
Featurizer 1 is rebuilt here as it was (a dict of blake2b keys, a lookup per word): the same
ranking code otherwise."""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

from benchmarks import as_installed
from benchmarks.cache import synthetic_papers
from reader.core import features
from reader.core.features import Corpus, Row, featurize, row_of_paper, row_of_texts
from reader.core.ranking import Ranking, rank

SHARD = 1000
TODAY = date(2026, 12, 2)
DATA = Path(__file__).parent / "data" / "meaning-papers.jsonl.gz"
MIN_LABEL = 40  # papers a label needs to be asked about
DRAWS = 3  # star draws per label
TOP = 20


def _blake2b(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


@contextmanager
def keying(name: str) -> Iterator[None]:
    """Features counted with `name`'s keys: "numpy" (this build) or "blake2b" (featurizer 1)."""
    saved = features.block_word_keys, features.word_key
    if name == "blake2b":
        features.block_word_keys, features.word_key = (lambda texts: None), _blake2b
    features._HASHES.clear()
    try:
        yield
    finally:
        features.block_word_keys, features.word_key = saved
        features._HASHES.clear()


def counting_cpu(rows: list[Row]) -> float:
    """CPU ms of featurize per 1,000 papers, shard by shard (the key cache warmed by a first shard,
    as a sync's counting process has it after its first)."""
    featurize(rows[:SHARD])
    started = time.process_time()
    for start in range(0, len(rows), SHARD):
        featurize(rows[start : start + SHARD])
    return (time.process_time() - started) / len(rows) * 1e6


def corpus_of(rows: list[Row]) -> Corpus:
    by_id = {row.id: row for row in rows}
    blocks = [featurize(rows[start : start + SHARD]) for start in range(0, len(rows), SHARD)]
    return Corpus(blocks, texts=lambda ids: {pid: by_id[pid] for pid in ids if pid in by_id})


def top_ids(corpus: Corpus, starred: list[str]) -> list[str]:
    result = rank(corpus, starred=starred)
    assert isinstance(result, Ranking)
    return result.ids[:TOP]


def real_rows() -> tuple[list[Row], dict[str, set[str]]]:
    rows, labels = [], {}
    with gzip.open(DATA, "rt") as file:
        for line in file:
            paper = json.loads(line)
            rows.append(row_of_texts(paper["id"], paper["title"], paper["abstract"], (), ()))
            labels[paper["id"]] = set(paper["labels"])
    return rows, labels


def quality(rows: list[Row], labels: dict[str, set[str]], draws: list[tuple[str, list[str]]]) -> tuple[float, list[list[str]]]:
    corpus = corpus_of(rows)
    precisions, tops = [], []
    for label, starred in draws:
        top = top_ids(corpus, starred)
        tops.append(top)
        precisions.append(sum(label in labels[pid] for pid in top) / TOP)
    return statistics.mean(precisions), tops


def overlap(first: list[list[str]], second: list[list[str]]) -> float:
    return statistics.mean(len(set(a) & set(b)) / TOP for a, b in zip(first, second))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    args = parser.parse_args()
    as_installed()
    synthetic = [row_of_paper(p) for p in synthetic_papers(args.papers, TODAY)]
    real, labels = real_rows()
    by_label: dict[str, list[str]] = {}
    for pid in sorted(labels):
        for label in labels[pid]:
            by_label.setdefault(label, []).append(pid)
    rng = random.Random(5)
    draws = [(label, rng.sample(ids, 5)) for label, ids in sorted(by_label.items()) if len(ids) >= MIN_LABEL for _ in range(DRAWS)]
    names = ["blake2b", "numpy"]
    cpu: dict[str, dict[str, list[float]]] = {name: {"synthetic": [], "real": []} for name in names}
    for turn in range(3):  # alternated: a noisy moment touches both
        for name in names if turn % 2 == 0 else names[::-1]:
            with keying(name):
                cpu[name]["synthetic"].append(counting_cpu(synthetic))
                cpu[name]["real"].append(counting_cpu(real))
    for name in names:
        print(
            f"{name:8} featurize: {statistics.median(cpu[name]['synthetic']):6.1f} ms CPU per 1,000 synthetic papers, "
            f"{statistics.median(cpu[name]['real']):6.1f} per 1,000 real ones (median of 3)"
        )
    found: dict[str, tuple[float, list[list[str]]]] = {}
    stars = [row.id for row in synthetic[3 : 3 + 97 * 5 : 97]]
    synthetic_tops: dict[str, list[str]] = {}
    for name in names:
        with keying(name):
            found[name] = quality(real, labels, draws)
            synthetic_tops[name] = top_ids(corpus_of(synthetic), stars)
    labelled = len({label for label, _ in draws})
    for name in names:
        print(
            f"{name:8} For you on {len(real):,} real papers: precision at {TOP} {found[name][0]:.3f} ({labelled} labels, {len(draws)} draws of 5 stars)"
        )
    print(f"top {TOP} shared by the two keyings: {overlap(found['blake2b'][1], found['numpy'][1]):.2f} on the real papers (mean)")
    shared = len(set(synthetic_tops["blake2b"]) & set(synthetic_tops["numpy"]))
    print(f"top {TOP} shared by the two keyings: {shared} of {TOP} on {args.papers:,} synthetic papers, five stars")


if __name__ == "__main__":
    main()
