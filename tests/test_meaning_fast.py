"""How a meaning query reads what it ranks, quickly and to the same answer: the vectors stored as
16-bit codes and a scale (reader/meaning/quantized.py; an index of float16 vectors still read),
and the words rank summed over the search index's row numbers (reader/search_index/weighed.py)
equal to `best_likes` over each word's set of ids.

The cache: real papers (tests/helpers/meaning.py), each also saved again under another id (so
many papers tie, as copies do at scale), a few saved again with other words (the search index's
rows of the replaced text left behind)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from reader.core.similar import weighed_by_sets
from reader.meaning import build, expand, find, vectors
from reader.meaning.quantized import Quantized, quantize, row_type
from reader.search_index import SearchIndex
from reader.store import Store
from tests.conftest import run
from tests.helpers.meaning import TOPIC, real_papers

QUERIES = [
    "agents that learn from their mistakes",
    "segmenting organs in medical scans",
    "keyword spotting on small devices",
    "reinforcement learning with verifiable rewards for reasoning",
    "quantum error correction",
    "imitation of expert demonstrations by robots",
]


def copies(papers):
    return [dataclasses.replace(paper, id=f"2512.{i:05d}", abs_url="", pdf_url="") for i, paper in enumerate(papers)]


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Store:
    data_dir = tmp_path_factory.mktemp("fast") / "data"
    store = Store(data_dir)
    store.add_topic(TOPIC, "cat:cs.LG")
    store.set_setting("examples_added", True)
    papers = real_papers(150)
    store.save_papers(papers + copies(papers), TOPIC)
    SearchIndex.open(data_dir).refresh(store)
    # Replaced with other words: the index's rows of the old words stay behind the new ones.
    store.save_papers(
        [dataclasses.replace(paper, version=2, abstract=papers[-1 - i].abstract) for i, paper in enumerate(papers[:20])], TOPIC
    )
    assert build.update(store)[0].ready
    return store


@pytest.fixture(scope="module")
def terms(cache):
    index = SearchIndex.open(cache.data_dir)
    index.refresh(cache)
    yield index
    index.close()


class BySets:
    """The search index, its words rank made from each word's set of ids (the plain way)."""

    def __init__(self, index: SearchIndex):
        self.index = index

    def __getattr__(self, name):
        return getattr(self.index, name)

    def best_weighed(self, weighed, *, limit, leave_out=()):
        return weighed_by_sets(self.index, weighed, limit=limit, leave_out=leave_out)


@pytest.mark.parametrize("limit", [1, 10, find.DEPTH, 10 * find.DEPTH, 10**6])
def test_the_words_rank_by_rows_is_the_rank_by_sets_of_ids(terms, limit):
    plain = BySets(terms)
    hidden = {like.id for like in expand.words_of(terms, QUERIES[0], limit=5).papers} | {"2512.00003", "2512.00100"}
    for text in QUERIES:
        for leave_out in (set(), hidden):
            fast = expand.words_of(terms, text, limit=limit, leave_out=leave_out)
            assert fast == expand.words_of(plain, text, limit=limit, leave_out=leave_out)
            assert fast.papers and not {like.id for like in fast.papers} & leave_out
    # ties: a paper and its copy score alike, and the first by id comes first
    whole = expand.words_of(terms, QUERIES[0], limit=10**6).papers
    assert len({like.score for like in whole}) < len(whole) / 2


def test_words_alone_answer_alike_by_rows_and_by_sets(terms):
    for text in QUERIES:
        assert find.about(None, terms, text, limit=30) == find.about(None, BySets(terms), text, limit=30)


@pytest.mark.parametrize("options", [[], ["--limit", "3"], ["--topic", TOPIC], ["--unread", "--limit", "40"]])
def test_reader_find_answers_alike_by_rows_and_by_sets(capsys, cache, monkeypatch, options):
    monkeypatch.setenv("READER_DATA_DIR", str(cache.data_dir))
    cache.set_marks(["2512.00001", "2512.00002"], read=True)
    answers = []
    for words_rank in (SearchIndex.best_weighed, lambda self, weighed, **given: weighed_by_sets(self, weighed, **given)):
        monkeypatch.setattr(SearchIndex, "best_weighed", words_rank)
        for text in QUERIES[:3]:
            code, out, err = run(capsys, "find", text, *options, "--json")
            assert code == 0, err
            answers.append(json.loads(out))
    half = len(answers) // 2
    assert answers[:half] == answers[half:] and all(answers)


def test_vectors_are_stored_as_16_bit_codes_and_a_scale_and_scanned_as_read(cache):
    index = vectors.MeaningVectors.open(cache.data_dir)
    assert index is not None and index.meta["format"] == vectors.FORMAT == 3 and isinstance(index.vectors, Quantized)
    stored = np.load(vectors.files(index.directory, index.meta["stamp"])[1])
    assert stored.dtype == row_type(index.model.dimensions) and stored.shape == (len(index.ids),)
    papers = real_papers(150)[20:60]
    placed, _ = index.model.embed([f"{p.title} {p.title} {p.abstract}" for p in papers])
    read = np.stack([index.vector(p.id) for p in papers])
    assert np.abs(read - placed).max() < 3e-4  # (placed in float16, as the workers send them: float16's rounding, not the codes')
    query = index.embed(QUERIES[0])
    assert np.abs(index.scores(query) - np.asarray(index.vectors) @ query).max() < 1e-5
    # codes and scale: a row is its codes times its scale to within half a step (~1e-5), the largest code ±32,767
    codes, scales = quantize(placed)
    assert np.abs(codes * scales[:, None] - placed).max() <= scales.max() / 2 + 1e-9 < 2e-5 and np.abs(codes).max(axis=1).min() == 32_767


def _as_format_2(data_dir: Path) -> tuple[list[tuple[str, float]], np.ndarray]:
    """The stored index written again as an older reader wrote it (float16 vectors, format 2);
    the papers nearest QUERIES[0] and the first paper's vector before."""
    index = vectors.MeaningVectors.open(data_dir)
    assert index is not None
    before = index.nearest(index.embed(QUERIES[0]), 20), index.vector(index.ids[0])
    directory = data_dir / vectors.DIRECTORY
    written = directory / "written.npy"
    np.save(written, np.asarray(index.vectors).astype(np.float16))
    written.replace(vectors.files(directory, index.meta["stamp"])[1])
    (directory / "meta.json").write_text(json.dumps(dict(index.meta, format=2)))
    return before


def test_an_index_of_float16_vectors_is_still_read_then_written_anew_by_the_next_update(tmp_path):
    store = Store(tmp_path / "data")
    store.add_topic(TOPIC, "cat:cs.LG")
    papers = real_papers(260)
    store.save_papers(papers[:200], TOPIC)
    assert build.update(store)[0].ready
    before, first = _as_format_2(store.data_dir)
    old = vectors.MeaningVectors.open(store.data_dir)
    assert old is not None and old.meta["format"] == 2 and old.vectors.dtype == np.float16
    near = old.nearest(old.embed(QUERIES[0]), 20)
    assert [pid for pid, _ in near] == [pid for pid, _ in before] and np.allclose([s for _, s in near], [s for _, s in before], atol=1e-3)
    assert build.update(store)[1] is not None  # nothing arrived: read as it is
    assert json.loads((store.data_dir / "meaning" / "meta.json").read_text())["format"] == 2
    store.save_papers(papers[200:], TOPIC)
    new = build.update(store)[1]
    assert new is not None and new.meta["format"] == 3 and isinstance(new.vectors, Quantized) and len(new.ids) == 260
    assert np.abs(new.vector(old.ids[0]) - first).max() < 1e-3
