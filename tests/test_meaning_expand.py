"""What a meaning query is ranked by beyond its vector (reader/meaning/expand.py): every word of
the query, and feedback from the first papers found, on real papers.

The cache: 300 real arXiv papers of benchmarks/data (titles and abstracts as arXiv gave them), 40
of them asked for by the benchmark's paraphrase queries (each says what its paper is about with
every content word of its title removed or replaced)."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import pytest

from reader.core.similar import like_text
from reader.meaning import build, expand, find, vectors
from reader.models import Author, Paper
from reader.search_index import SearchIndex
from reader.store import Store

DATA = Path(__file__).resolve().parent.parent / "benchmarks" / "data"


def queries() -> dict[str, str]:
    rows = (
        line.split("\t", 1) for line in (DATA / "meaning-queries.tsv").read_text(encoding="utf-8").splitlines() if line and line[0] != "#"
    )
    return {pid: text.strip() for pid, text in rows}


def real_papers() -> list[Paper]:
    """The first 40 papers of the set a query asks for, and the first 260 no query asks for."""
    asked = queries()
    chosen: dict[str, Paper] = {}
    wanted, other = 0, 0
    with gzip.open(DATA / "meaning-papers.jsonl.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            pid = row["id"]
            if "/" in pid or pid in chosen or pid.startswith("26"):
                continue
            if pid in asked and wanted < 40:
                wanted += 1
            elif pid not in asked and other < 260:
                other += 1
            else:
                continue
            stamp = f"20{pid[:2]}-{pid[2:4]}-15T12:00:00Z"
            chosen[pid] = Paper(
                id=pid,
                version=1,
                title=row["title"],
                abstract=row["abstract"],
                authors=(Author("A. Author"),),
                categories=("cs.LG",),
                primary_category="cs.LG",
                published=stamp,
                updated=stamp,
            )
    return list(chosen.values())


@dataclasses.dataclass
class Cache:
    index: vectors.MeaningVectors
    terms: SearchIndex


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Cache:
    data_dir = tmp_path_factory.mktemp("expand") / "data"
    store = Store(data_dir)
    store.add_topic("All", "cat:cs.LG")
    store.save_papers(real_papers(), "All")
    build.update(store)
    index = vectors.MeaningVectors.open(data_dir)
    assert index is not None
    terms = SearchIndex.open(data_dir)
    terms.refresh(store)
    return Cache(index, terms)


def ranked(hits: list[str], pid: str) -> int | None:
    return hits.index(pid) + 1 if pid in hits else None


def test_every_word_of_a_query_finds_the_paper_its_five_rarest_terms_miss(cache):
    pid = "1809.10932"  # "SeqSleepNet: ... Sequence-to-Sequence Automatic Sleep Staging"
    text = queries()[pid]  # "multi-level RNN that labels a whole night of EEG epochs at once"
    five = [like.id for like in like_text(cache.terms, text, limit=10).papers]  # "more like this"'s five terms
    assert pid not in five
    # Words alone (a cache without vectors answers so): every word of the query counts.
    words = [hit.id for hit in find.about(None, cache.terms, text, limit=10).hits]
    assert pid in words
    assert pid in [like.id for like in expand.words_of(cache.terms, text, limit=10).papers]


def test_feedback_from_the_first_papers_found_brings_up_a_paper_worded_otherwise(cache):
    pid = "1812.07715"
    text = queries()[pid]  # "review of label-free neural approaches for radiology scans and clinical pictures"
    query = cache.index.embed(text)
    near = cache.index.nearest(query, find.DEPTH)
    words = [(like.id, like.score) for like in expand.words_of(cache.terms, text, limit=find.DEPTH).papers]
    candidates = list(dict.fromkeys([p for p, _ in near] + [p for p, _ in words]))
    first = [p for p, _ in find.fuse([near, words])[: expand.FEEDBACK_PAPERS]]
    assert pid not in first  # the feedback comes from other papers
    alone = [p for p, _ in expand.feedback(cache.index, query, [], candidates)]
    moved = [p for p, _ in expand.feedback(cache.index, query, first, candidates)]
    assert sorted(alone) == sorted(candidates)  # no paper gained or lost: the candidates ranked again
    assert ranked(moved, pid) < ranked(alone, pid)
    # and reader find ranks it higher
    with_feedback = [hit.id for hit in find.about(cache.index, cache.terms, text, limit=50).hits]
    try:
        weight, expand.FEEDBACK_WEIGHT = expand.FEEDBACK_WEIGHT, 0.0
        without = [hit.id for hit in find.about(cache.index, cache.terms, text, limit=50).hits]
    finally:
        expand.FEEDBACK_WEIGHT = weight
    assert ranked(with_feedback, pid) < ranked(without, pid)


def test_an_exact_phrase_of_a_paper_still_comes_first(cache):
    # In 1809.10932's abstract alone; each of its words is in others too, "sequence" in many
    phrase = "a sequence-to-sequence classification problem"
    hits = find.about(cache.index, cache.terms, phrase, limit=5).hits
    assert hits[0].id == "1809.10932" and hits[0].exact and not any(hit.exact for hit in hits[1:])


@pytest.mark.parametrize("limit", [1, 10, find.DEPTH])
def test_the_words_rank_keeps_the_first_papers_of_the_whole_ranking(cache, limit):
    # only the best `limit` holders are sorted: they are the whole ranking's first, with its scores and reasons
    hidden = {like.id for like in expand.words_of(cache.terms, "agents that plan and use tools", limit=3).papers}
    for text in ("agents that learn from their mistakes", "segmenting organs in medical scans", "agents that plan and use tools"):
        for leave_out in (set(), hidden):
            whole = expand.words_of(cache.terms, text, limit=10**6, leave_out=leave_out)
            first = expand.words_of(cache.terms, text, limit=limit, leave_out=leave_out)
            assert len(whole.papers) > 10 and first.papers == whole.papers[:limit] and first.terms == whole.terms
            assert [like.score for like in whole.papers] == sorted((like.score for like in whole.papers), reverse=True)
            assert not {like.id for like in whole.papers} & leave_out
