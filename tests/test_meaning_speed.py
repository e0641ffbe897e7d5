"""The fast paths of search by meaning answer as the full computation does: likeness that asks a
common term's papers only among the rarer terms' best (core/similar.py's `bounded`), on 400 real
papers (tests/helpers/meaning.py), through `reader find`, `reader similar` and the app's service,
with the meaning index built and without it (another process building: words answer)."""

from __future__ import annotations

import json
import multiprocessing
import random
import shutil
from contextlib import contextmanager
from functools import partial

import numpy as np
import pytest

from reader.core import similar
from reader.core.terms import terms
from reader.meaning import build, find, place
from reader.meaning.vectors import DIRECTORY, LOCK, MeaningVectors
from reader.store.files import file_lock
from tests.conftest import run
from tests.helpers.meaning import meaning_store

QUERIES = [
    "agents that learn from their mistakes",
    "segmenting organs in medical scans",
    "speech recognition for low resource languages",
    "reward models for reasoning with verifiable rewards",
    "learning",
    "a multi-agent system of language model agents that plan and use tools",
    "quantum error correction",
    "imitation learning from demonstrations",
]
PAPERS = ["2103.13887", "2005.10622"]  # asked for the papers like them
TOP = 20


@pytest.fixture
def cache(learned_data_dir, monkeypatch):
    monkeypatch.setenv("READER_DATA_DIR", str(learned_data_dir))
    return learned_data_dir


def answers(capsys) -> list[list[tuple]]:
    """Every query's and paper's top TOP from the command line: ids, scores and reasons."""
    found = []
    for text in QUERIES:
        code, out, err = run(capsys, "find", text, "--limit", str(TOP), "--json")
        assert code == 0, err
        found.append([(row["id"], row["score"], row["because"], row["words"], row["exact"]) for row in json.loads(out)])
    for pid in PAPERS:
        code, out, err = run(capsys, "similar", pid, "--limit", str(TOP), "--json")
        assert code == 0, err
        found.append([(row["id"], row["score"], row["because"], row["meaning"]) for row in json.loads(out)])
    return found


@contextmanager
def unbounded(monkeypatch):
    """Likeness lists every term's papers whole, wherever it is asked for (the full computation)."""
    with monkeypatch.context() as patched:
        patched.setattr(similar, "like_paper", partial(similar.like_paper, bounded=False))
        patched.setattr(similar, "like_text", partial(similar.like_text, bounded=False))
        yield


def both_ways(monkeypatch, capsys) -> tuple[list, list]:
    with unbounded(monkeypatch):
        full = answers(capsys)
    return full, answers(capsys)


@pytest.mark.slow
@pytest.mark.parametrize("depth", [find.DEPTH, 20])  # 20: most papers of 400 never listed for a common term
def test_the_command_lines_answer_as_the_full_computation_with_and_without_an_index(capsys, cache, monkeypatch, depth):
    monkeypatch.setattr(find, "DEPTH", depth)
    from reader.search_index import SearchIndex

    asked = []

    real = SearchIndex.matching_among

    def counted(self, node, ids):
        asked.append(len(ids))
        return real(self, node, ids)

    monkeypatch.setattr(SearchIndex, "matching_among", counted)
    full, fast = both_ways(monkeypatch, capsys)
    assert fast == full and all(len(rows) == TOP for rows in full)
    if depth == 20:
        assert asked  # the bounded path was taken
    # Without the index: another process is building it, so words alone answer, as they did.
    shutil.rmtree(cache / DIRECTORY)
    (cache / DIRECTORY).mkdir()
    with file_lock(cache / DIRECTORY / LOCK, wait=0, what="a build"):
        words_full, words_fast = both_ways(monkeypatch, capsys)
    assert words_fast == words_full and words_full != full


def test_likeness_asks_a_common_terms_papers_only_among_the_best_and_answers_the_same(cache, monkeypatch):
    from reader.models import Paper
    from reader.search_index import SearchIndex
    from reader.store import Store

    store = Store(cache)
    terms = SearchIndex.open(cache)
    terms.refresh(store)
    papers = store.load_papers()
    asked: list[int] = []
    real = terms.matching_among

    def counted(node, ids):
        asked.append(len(ids))
        return real(node, ids)

    monkeypatch.setattr(terms, "matching_among", counted)
    try:
        for limit in (5, 20, 200):
            for text in QUERIES:
                full = similar.like_text(terms, text, limit=limit, leave_out={"2103.13887"}, bounded=False)
                assert similar.like_text(terms, text, limit=limit, leave_out={"2103.13887"}) == full
            for pid in PAPERS:
                paper: Paper = papers[pid]
                full_like = similar.like_paper(terms, paper, limit=limit, bounded=False)
                assert similar.like_paper(terms, paper, limit=limit) == full_like
    finally:
        terms.close()
    assert asked and max(asked) < len(papers)  # some common term was asked of a few papers, not listed whole


def test_the_apps_service_answers_as_the_full_computation(cache, monkeypatch):
    from reader.config import load_settings
    from reader.service import ALL, LibraryService, View
    from reader.store import Store

    service = LibraryService(Store(cache), load_settings({"data_dir": str(cache)}, {}))
    service.open()
    service.prepare_search(None)
    monkeypatch.setattr(find, "DEPTH", 20)

    def answers() -> list:
        found: list = []
        for text in QUERIES:
            for view in (ALL, View.of_topic("Learning")):
                about = service.meaning.about(text, view, limit=TOP)
                found.append((about.by, [(hit.id, hit.score, hit.because, hit.words) for hit in about.hits]))
        for pid in PAPERS:
            found.append(service.meaning.similar(pid, limit=TOP, leave_out={"2005.10622"})[1])
        return found

    try:
        with unbounded(monkeypatch):
            full = answers()
        assert answers() == full and full[0][0] == "meaning and words"
    finally:
        service.close()


def test_find_and_similar_never_import_scipy_or_scikit_learn(cache):
    """What a query runs on: numpy alone (scikit-learn's import alone took a `reader similar` 2 s)."""
    import os
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from reader.cli import main\n"
        f"assert main(['find', {QUERIES[0]!r}]) == 0 and main(['similar', {PAPERS[0]!r}]) == 0\n"
        "print(sorted(name for name in ('scipy', 'sklearn') if name in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=dict(os.environ, READER_DATA_DIR=str(cache)), capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1] == "[]", done.stderr


def _built(data_dir) -> tuple[list[str], object, object]:
    index = MeaningVectors.open(data_dir)
    assert index is not None
    return list(index.ids), np.asarray(index.vectors), index.model


def test_a_build_in_worker_processes_stores_what_one_process_does(tmp_path, monkeypatch):
    store = meaning_store(tmp_path / "data", build=False)
    monkeypatch.setattr(place, "BATCH", 60)  # several tasks, each a few shards, shared by the workers
    build.update(store)
    alone = _built(store.data_dir)
    monkeypatch.setattr(place, "PARALLEL_FROM", 0)  # the workers read, and place, even 400 papers
    started = list(multiprocessing.active_children())
    build.update(store, rebuild=True)
    ids, vectors, model = _built(store.data_dir)
    assert ids == alone[0] and len(ids) == 400
    assert np.array_equal(vectors, alone[1])  # each paper's vector is its own words' alone: bit for bit
    assert np.array_equal(model.components, alone[2].components) and model.unknown_share == alone[2].unknown_share
    assert list(multiprocessing.active_children()) == started  # the workers ended with the build


class _Counted:
    """A TermIndex of made-up counts: `at_least`, a random lower bound of each; every term counted
    in full is remembered."""

    def __init__(self, counts: dict[str, int], seed: int):
        self.counts, self.random, self.in_full = counts, random.Random(seed), []

    def _term(self, node) -> str:
        return " ".join(node.parts[0].words)

    def document_counts(self, nodes, *, at_least=False):
        if at_least:
            return [self.random.randint(0, self.counts[self._term(node)]) for node in nodes]
        self.in_full += [self._term(node) for node in nodes]
        return [self.counts[self._term(node)] for node in nodes]

    def paper_count(self):
        return 1_000


@pytest.mark.parametrize("seed", range(40))
def test_distinctive_terms_counting_common_terms_in_part_choose_what_counting_all_in_full_does(seed):
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(60)]
    text = " " + " ".join(rng.choice(words) for _ in range(150)) + " "  # repeated words, and their pairs
    counts = {term: rng.choice([1, 2, 3, 50, 50, 400, 900]) for term in set(terms(text))}  # ties; 1: no other paper (left out)
    plain = similar.distinctive_terms(_Counted(counts, seed), text, indexed=True, bounded=False)
    bounded = _Counted(counts, seed)
    assert similar.distinctive_terms(bounded, text, indexed=True) == plain
    assert len(bounded.in_full) < len(counts)


def test_likeness_counts_a_papers_common_terms_in_full_no_more(cache):
    from reader.search_index import SearchIndex
    from reader.store import Store

    store = Store(cache)
    index = SearchIndex.open(cache)
    index.refresh(store)
    in_full: list[int] = []
    real = index.document_counts

    def counted(nodes, *, at_least=False):
        in_full.append(0 if at_least else len(nodes))
        return real(nodes, at_least=at_least)

    index.document_counts = counted  # type: ignore[method-assign]
    try:
        paper = store.load_papers()[PAPERS[0]]
        plain = similar.like_paper(index, paper, limit=TOP, bounded=False)
        every_term, in_full[:] = sum(in_full), []
        assert similar.like_paper(index, paper, limit=TOP) == plain
    finally:
        index.close()
    assert sum(in_full) < every_term  # (at 400 papers a partition's counts bound the weights loosely)
