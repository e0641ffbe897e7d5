""" "For you": unread papers ranked by a model of the user's own marks, each with its reasons.

Starred papers are the positives; hidden ("not interested") papers are negatives, papers read and
not starred weak negatives, and a fixed sample of unmarked papers stands for the typical paper,
so the model learns what sets the stars apart from everything else (arxiv-sanity's recipe).
Features are TF-IDF weights of the words and two-word phrases of title and abstract, plus each
author and category as a feature of its own (core/features.py); the model is a logistic
regression (scikit-learn's, fitted through scipy: core/logistic.py). A `Corpus` is built when papers change; `rank` fits and scores in
about a second at 100,000 papers, after each change of marks.

Plain data in and out, so it can run in a worker thread; numpy and scipy are imported inside
functions: the app never pays for them at start-up.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from threading import Thread
from typing import Any

from reader.core import logistic
from reader.core.features import (
    COLUMNS,
    Corpus,
    FeatureBlock,
    Row,
    column_of,
    featurize,
    named_terms,
    row_of_paper,
    rows_of_search_texts,
)
from reader.core.terms import Distinct
from reader.core.text import plural

__all__ = [
    "Corpus",
    "FeatureBlock",
    "NeedsStars",
    "Ranking",
    "Row",
    "Scored",
    "featurize",
    "rank",
    "row_of_paper",
    "rows_of_search_texts",
]

MIN_STARS = 3  # fewer stars say too little to rank by
READ_WEIGHT = 0.25  # a paper read and not starred counts a quarter as much as one hidden
BACKGROUND = 2000  # unmarked papers standing for the typical one (weighing as much as the stars)
REASONS = 3
C = 10.0  # inverse regularisation: the marks are few, but hashed TF-IDF rows are sparse and short


# --- ranking ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NeedsStars:
    """Too few stars to rank by: what to say instead of a ranking."""

    stars: int
    needed: int = MIN_STARS

    @property
    def missing(self) -> int:
        return self.needed - self.stars

    @property
    def message(self) -> str:
        more = f"{plural(self.missing, 'more paper')}"
        return (
            f"Star {more} to get papers ranked for you ({self.stars} of {self.needed} stars so far): "
            "the ranking learns from what you star, and from what you hide or read without starring."
        )


@dataclass(frozen=True, slots=True)
class Scored:
    id: str
    score: float  # 0 to 1: how much the model takes the paper for one you would star
    because: tuple[str, ...]  # the terms, authors or categories weighing most for it


class Ranking:
    """Candidates best first (ties by id), with what the model learned, to explain each."""

    def __init__(self, corpus: Corpus, ids: list[str], scores: list[float], weights: Any, stars: list[int]):
        self.ids = ids
        self.scores = scores
        self._corpus = corpus
        self._weights = weights  # per column: the model's weight times IDF
        self._stars = stars  # rows of the starred papers
        self._learned: set[int] | None = None  # keys of their terms, gathered at the first reason
        self._score_of: dict[str, float] | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def reordered(self, ranked: list[tuple[str, float]]) -> Ranking:
        """The same model's ranking in another order, (id, score) best first: For you fused with
        meaning (meaning/like.py); the reasons stay the model's."""
        return Ranking(self._corpus, [pid for pid, _ in ranked], [score for _, score in ranked], self._weights, self._stars)

    def top(self, limit: int | None = None) -> list[Scored]:
        """The best `limit` papers (every one when None) with their reasons. A paper's reasons
        take a few hundred microseconds: ask for the papers you show."""
        texts = self._corpus.texts_of(self.ids[:limit])  # their records read together
        return [Scored(pid, score, tuple(self.explain(texts[pid]))) for pid, score in zip(self.ids[:limit], self.scores[:limit])]

    def score_of(self, paper_id: str) -> float | None:
        if self._score_of is None:
            self._score_of = dict(zip(self.ids, self.scores))
        return self._score_of.get(paper_id)

    def because(self, paper_id: str) -> list[str]:
        if paper_id not in self._corpus.position:
            return []
        return self.explain(self._corpus.texts_of([paper_id])[paper_id])

    def explain(self, row: Row) -> list[str]:
        """The (at most) three terms of `row` adding most to its score. Only terms of the starred
        papers count: a term sharing a column with one of theirs by chance explains nothing. A
        word gives way to a phrase of it weighing at least half as much (`tool use` for `tool`)."""
        learned = self._learned_keys()
        contributions: dict[str, float] = {}
        phrases: dict[str, list[tuple[float, str]]] = {}  # word -> (contribution, phrase) holding it
        for name, key, count, words in named_terms(row):
            weight = float(self._weights[column_of(key)])
            if weight > 0 and key in learned:
                contribution = weight * (1 + math.log(count))
                contributions[name] = max(contributions.get(name, 0.0), contribution)
                for word in words if len(words) == 2 else ():
                    phrases.setdefault(word, []).append((contribution, name))
        distinct = Distinct()
        for name, contribution in sorted(contributions.items(), key=lambda item: (-item[1], item[0])):
            longer = max(phrases.get(name, ()), key=lambda item: (item[0], item[1]), default=None)
            if longer is not None and longer[0] >= contribution / 2:
                name = longer[1]
            if distinct.add(name) and len(distinct.chosen) == REASONS:
                break
        return distinct.chosen

    def _learned_keys(self) -> set[int]:
        if self._learned is None:
            self._learned = self._corpus.term_keys(self._stars)
        return self._learned


def import_model_meanwhile() -> None:
    """Start importing the model's fit (scipy.optimize: ~0.3 s, most of it Python) in a thread
    while the caller reads the features (files, zlib and numpy, which let the GIL go): `rank`'s
    own import then waits only for what is left. numpy and SciPy's sparse matrices, which the
    features need too, are imported here first, so that the thread imports no module the
    caller's threads also import."""
    import numpy  # noqa: F401
    from scipy import sparse  # type: ignore[import-untyped, unused-ignore]  # noqa: F401

    Thread(target=_import_model, name="reader-model-import", daemon=True).start()


def _import_model() -> None:
    from scipy import optimize  # type: ignore[import-untyped, unused-ignore]  # noqa: F401


def rank(
    corpus: Corpus,
    *,
    starred: Collection[str],
    hidden: Collection[str] = (),
    read: Collection[str] = (),
    candidates: Iterable[str] | None = None,
) -> Ranking | NeedsStars:
    """Rank the `candidates` (default: the whole corpus) that are unread, not hidden and not
    starred (a starred paper is already chosen). Marks of papers outside the corpus are ignored.
    The same corpus and marks give the same order, whatever order the blocks came in."""
    import numpy as np
    from scipy.sparse import csr_matrix  # type: ignore[import-untyped, unused-ignore]

    stars = corpus.rows_of(starred)
    if len(stars) < MIN_STARS:
        return NeedsStars(len(stars))
    skip = set(starred) | set(hidden) | set(read)
    if candidates is None:
        wanted = np.ones(len(corpus), dtype=bool)
        wanted[corpus.rows_of(skip)] = False
        chosen = np.flatnonzero(wanted)
    else:
        chosen = np.array(corpus.rows_of({pid for pid in candidates if pid not in skip}), dtype=np.int64)
        chosen.sort()
    if not len(chosen):
        return Ranking(corpus, [], [], np.zeros(COLUMNS), stars)

    rows, labels, weights = _training_set(corpus, stars, hidden=set(hidden) - set(starred), read=set(read) - set(starred) - set(hidden))
    train = corpus.weighted_rows(rows)
    # Only the columns the training rows use: a small problem, and every other weight is 0.
    columns, local = np.unique(train.indices, return_inverse=True)
    compact = csr_matrix((train.data, local.ravel(), train.indptr), shape=(len(rows), len(columns)))
    coef, intercept = logistic.fit(compact, labels, weights, C)
    column_weights = np.zeros(COLUMNS)
    column_weights[columns] = coef * corpus.idf[columns]
    decision = corpus.decisions(column_weights) + intercept

    ids = np.array(corpus.ids, dtype=object)[chosen]
    order = np.lexsort((ids.astype(str), -decision[chosen]))
    scores = 1 / (1 + np.exp(-decision[chosen][order]))
    return Ranking(corpus, ids[order].tolist(), scores.tolist(), column_weights, stars)


def _training_set(corpus: Corpus, stars: list[int], *, hidden: set[str], read: set[str]) -> tuple[list[int], Any, Any]:
    """Rows, labels (1 for a star) and sample weights: hidden papers count 1, papers read and
    not starred READ_WEIGHT, and the background as much as the stars together; then the stars
    are weighed up to balance all the negatives (a handful of stars against thousands of reads
    must still say what the user likes)."""
    import numpy as np

    negatives = corpus.rows_of(hidden)
    weak = corpus.rows_of(read)
    marked = np.zeros(len(corpus), dtype=bool)
    marked[stars + negatives + weak] = True
    unmarked = np.flatnonzero(~marked)
    # The background: the unmarked papers whose ids hash lowest, a sample that does not depend
    # on the order of the blocks or on which other papers are in the cache.
    sample = unmarked[np.argsort(corpus.sample_keys[unmarked], kind="stable")[:BACKGROUND]]
    background = sorted(sample.tolist(), key=corpus.ids.__getitem__)
    negative_weights = [1.0] * len(negatives) + [READ_WEIGHT] * len(weak) + [len(stars) / max(len(background), 1)] * len(background)
    star_weight = sum(negative_weights) / len(stars)
    rows = stars + negatives + weak + background
    labels = np.array([1] * len(stars) + [0] * (len(rows) - len(stars)))
    weights = np.array([star_weight] * len(stars) + negative_weights)
    return rows, labels, weights / weights.mean()
