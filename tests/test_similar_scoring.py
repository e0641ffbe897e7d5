"""One scoring for "more like this" (core/similar.py) and a meaning query's words
(meaning/expand.py): asked the same terms of the same cache, the two give the same papers with the
same scores and reasons. The cache: the recorded fixture's hundred real arXiv papers."""

from __future__ import annotations

import random

import pytest

from reader.core.similar import REASONS, Like, best_likes, distinctive_terms, like_text
from reader.core.text import word_string
from reader.meaning.expand import RARE_WORDS, words_of
from reader.search_index import SearchIndex
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


def _reference_likes(held, *, limit, leave_out):
    """best_likes said plainly: a list of reasons per paper, their shares added one by one, every
    paper sorted (best first, ties by id)."""
    reasons: dict[str, list[tuple[float, str]]] = {}
    for share, reason, holders in held:
        for pid in holders:
            reasons.setdefault(pid, []).append((share, reason))
    scored = []
    for pid, found in reasons.items():
        if pid not in leave_out:
            score = 0.0
            for share, _ in found:
                score += share
            scored.append((score, pid, found))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [
        Like(pid, round(min(score, 1.0), 4), tuple(reason for _, reason in sorted(found, key=lambda r: (-r[0], r[1]))[:REASONS]))
        for score, pid, found in scored[:limit]
    ]


@pytest.mark.parametrize("seed", range(40))
def test_best_likes_equals_a_plain_ranking_of_every_paper(seed):
    # Few papers, few distinct shares and reasons (some said twice): many papers tie, and sums of
    # the same shares in another order differ in their last bit
    rng = random.Random(seed)
    papers = [f"{rng.randrange(10**4):04d}.{n:05d}" for n in range(rng.randrange(1, 300))]
    shares = [0.1, 0.2, 0.3, 0.07 / 3, 0.015, rng.random() * 0.5]
    held = [
        (
            rng.choice(shares),
            rng.choice(["graph", "agent", "Ada Lovelace", "cs.LG", "agent"]),
            set(rng.sample(papers, rng.randrange(len(papers) + 1))),
        )
        for _ in range(rng.randrange(0, 12))
    ]
    leave_out = set(rng.sample(papers, rng.randrange(len(papers) // 2 + 1))) | {"not.a.paper"}
    for limit in (0, 1, 2, 5, 30, len(papers), len(papers) + 5):
        for left in (set(), leave_out, [*leave_out, *leave_out]):
            assert best_likes(held, limit=limit, leave_out=left) == _reference_likes(held, limit=limit, leave_out=left)
