"""One scoring for "more like this" (core/similar.py) and a meaning query's words
(meaning/expand.py): asked the same terms of the same cache, the two give the same papers with the
same scores and reasons. The cache: the recorded fixture's hundred real arXiv papers."""

from __future__ import annotations

import pytest

from reader.core.similar import distinctive_terms, like_text
from reader.core.text import word_string
from reader.meaning.expand import RARE_WORDS, words_of
from reader.searchdb import SearchIndex
from reader.store import Store
from tests.corpus import recent_papers


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("scoring") / "data"
    store = Store(data_dir)
    store.add_topic("All", "cat:cs.LG")
    papers = recent_papers(100)
    store.save_papers(papers, "All")
    terms = SearchIndex.open(data_dir)
    terms.refresh(store)
    return papers, terms


@pytest.mark.parametrize("which", [0, 7, 42])
def test_more_like_this_and_a_meaning_querys_words_score_the_same_terms_alike(cache, which):
    papers, terms = cache
    paper = papers[which]
    # The paper's rarest title words, apart ("the" between them: no two-word phrase), so that both
    # paths ask the same terms: "more like this" at most five, the words' rank every word.
    rarest = distinctive_terms(terms, word_string(paper.title), indexed=True, count=RARE_WORDS, phrases=False)
    text = " the ".join(term for term, _ in rarest)
    like = like_text(terms, text, limit=30)
    words = words_of(terms, text, limit=30)
    assert like.terms == words.terms == tuple(term for term, _ in rarest)
    assert like.papers == words.papers
    assert like.papers[0].id == paper.id and like.papers[0].score == 0.9  # it holds every term: their whole share
    assert len(like.papers) > 1
