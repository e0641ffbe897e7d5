"""For you's word keys computed a block at a time in numpy: each equals the plain-Python key of
its word, the stop words are those `is_stop` names, and the ranking made from them equals one
counted by a plain reference implementation, term by term."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import sparse

from reader.core import features, word_keys
from reader.core.features import COLUMNS, Corpus, FeatureBlock, Row, column_of, featurize, row_of_paper, sample_keys_of
from reader.core.ranking import Ranking, rank
from reader.core.terms import is_stop, terms
from tests.helpers.bibtex import fixture_papers
from tests.themes import theme_papers

ODD_WORDS = "a 7 12 2026 x1 the of reinforcement abcdefgh abcdefghi abcdefghijklmnop abcdefghijklmnopq " + "z" * 70


def test_each_words_key_is_its_plain_key_and_stop_words_are_those_is_stop_names():
    texts = [row_of_paper(p).words for p in fixture_papers()] + ["", " ", ODD_WORDS, "  two   spaces  ", "y"]
    keyed = word_keys.block_word_keys(texts)
    assert keyed is not None
    keys, counted, owner = keyed
    expected = [(word, i) for i, text in enumerate(texts) for word in text.split()]
    assert len(expected) > 5000 and len(keys) == len(expected)
    assert keys.tolist() == [word_keys.word_key(word) for word, _ in expected]
    assert counted.tolist() == [not is_stop(word) for word, _ in expected]
    assert owner.tolist() == [i for _, i in expected]
    # Distinct words, distinct keys (and columns spread over the table, not bunched).
    distinct = {word: key for (word, _), key in zip(expected, keys.tolist())}
    assert len(set(distinct.values())) == len(distinct)


@pytest.mark.parametrize("odd", ["caf\u00e9 au lait", "tab\tand\nline", "nul\x00byte"])
def test_other_text_is_keyed_one_word_at_a_time_to_the_same_counts(odd):
    rows = [row_of_paper(p) for p in fixture_papers()[:40]]
    rows.append(Row("2611.00001", odd + " reinforcement learning " + odd))
    texts = [row.words for row in rows]
    assert word_keys.block_word_keys(texts) is None
    block = featurize(rows)
    reference = reference_block(rows)
    assert (block.matrix != reference.matrix).nnz == 0


def reference_block(rows: list[Row]) -> FeatureBlock:
    """Counting as a reader would write it, one term at a time: each word and two-word phrase of
    non-stop words, each author and category, keyed with `word_key`."""
    entries: dict[tuple[int, int], int] = {}
    for i, row in enumerate(rows):
        for term in terms(row.words):
            words = term.split()
            if len(words) == 1:
                key = word_keys.word_key(term)
            else:
                key = (word_keys.word_key(words[0]) * features._PAIR + word_keys.word_key(words[1])) & features._MASK
            entries[i, column_of(key)] = entries.get((i, column_of(key)), 0) + 1
        names = [features._author_key(name) for name in row.authors] + [features._category_key(cat) for cat in row.categories]
        for name in names:
            entries[i, column_of(word_keys.word_key(name))] = entries.get((i, column_of(word_keys.word_key(name))), 0) + 1
    (at, counts) = zip(*sorted(entries.items())) if entries else ((), ())
    matrix = sparse.csr_matrix(
        (
            np.array([1 + math.log(count) for count in counts], dtype=np.float32),
            ([i for i, _ in at], [column for _, column in at]),
        ),
        shape=(len(rows), COLUMNS),
    )
    return FeatureBlock([row.id for row in rows], matrix, sample_keys_of([row.id for row in rows]))


def test_the_ranking_equals_one_counted_by_the_reference_to_its_top_twenty():
    papers = [p for group in theme_papers(60).values() for p in group] + fixture_papers()
    rows = [row_of_paper(p) for p in papers]
    blocks = [featurize(rows[start : start + 50]) for start in range(0, len(rows), 50)]
    references = [reference_block(rows[start : start + 50]) for start in range(0, len(rows), 50)]
    for block, reference in zip(blocks, references):
        assert (block.matrix != reference.matrix).nnz == 0
    by_id = {row.id: row for row in rows}
    texts = lambda ids: {pid: by_id[pid] for pid in ids}  # noqa: E731
    agents = sorted(p.id for p in theme_papers(60)["agents"])
    marks = {"starred": set(agents[:5]), "hidden": set(agents[40:42])}
    ours, theirs = rank(Corpus(blocks, texts=texts), **marks), rank(Corpus(references, texts=texts), **marks)
    assert isinstance(ours, Ranking) and isinstance(theirs, Ranking)
    assert [s.id for s in ours.top(20)] == [s.id for s in theirs.top(20)]
    assert [s.because for s in ours.top(20)] == [s.because for s in theirs.top(20)]
    assert ours.scores == pytest.approx(theirs.scores, abs=1e-9)
