"""The benchmark's known-item paraphrase queries (benchmarks/data): each names a paper of the set,
no paper is asked for by two sets (a held-out query is for a paper tuning never saw), and no query
holds a content word of its paper's title (stemmed, as the search index and the model stem it)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from reader.meaning.model import stop_stems, tokens

DATA = Path(__file__).resolve().parent.parent / "benchmarks" / "data"
SETS = ("meaning-queries.tsv", "meaning-queries-heldout.tsv", "meaning-queries-heldout2.tsv", "meaning-queries-heldout3.tsv")


def asked(name: str) -> dict[str, str]:
    rows = (line.split("\t", 1) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line and line[0] != "#")
    return {pid: text.strip() for pid, text in rows}


def test_every_set_names_other_papers_of_the_set_without_their_title_words():
    with gzip.open(DATA / "meaning-papers.jsonl.gz", "rt", encoding="utf-8") as lines:
        titles = {row["id"]: row["title"] for row in map(json.loads, lines)}
    stop = stop_stems()
    seen: set[str] = set()
    for name in SETS:
        queries = asked(name)
        assert len(queries) >= 40, name
        assert not seen & set(queries), f"{name} asks for papers another set asks for"
        seen |= set(queries)
        assert set(queries) <= set(titles), name
        worded = {pid for pid, text in queries.items() if set(tokens(text, stop)) & set(tokens(titles[pid], stop))}
        assert not worded, f"{name}: queries holding a word of their paper's title: {sorted(worded)}"
