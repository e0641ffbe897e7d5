"""Papers about a text, by meaning fused with words: what `reader find` answers and the app's
meaning query asks (`about`).

Meaning (vectors.py) finds papers worded otherwise; words (core/similar.py's TF-IDF likeness over
the search index, asked for every word of the query: expand.py) find the ones that say it in the
query's own terms; the first papers found then move the query towards their own words
(expand.py's feedback) and the candidates are ranked again. The two ranks are fused
by reciprocal-rank fusion (a paper scores 1/(K + rank) from each list it is in, weighed by its
score over the list's best), which needs no common scale between a cosine and a TF-IDF share. A paper holding the query as an exact phrase
(of two words or more) comes first whatever the fusion says: the user typed its words.

A cache too small to learn meaning from, or one whose vectors are not built yet, is answered by
words alone, and the answer says so (`About.note`)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from reader.core.similar import TermIndex, text_node
from reader.core.text import word_string
from reader.meaning.expand import FEEDBACK_PAPERS, feedback, words_of
from reader.meaning.vectors import MeaningVectors

K = 60  # the usual reciprocal-rank constant: rank 1 and rank 10 differ by ~13%, not tenfold
DEPTH = 200  # papers taken from each list before fusing
PHRASE_WORDS = (2, 8)  # a query this many words long may be an exact phrase of a title or abstract
REASONS = 3


@dataclass(frozen=True, slots=True)
class Hit:
    id: str
    score: float  # 0 to 1: the fused score over the best a paper can have (first in both lists)
    meaning: float | None  # cosine of the paper with the query (None: not among meaning's best)
    because: tuple[str, ...]  # the query's words nearest the paper in meaning
    words: tuple[str, ...]  # the distinctive terms it shares word for word
    exact: bool  # holds the query as a phrase


@dataclass(frozen=True, slots=True)
class About:
    hits: list[Hit]
    by: str  # "meaning and words", or "words" (no vectors: `note` says why)
    note: str


def fuse(ranked: list[list[tuple[str, float]]], *, first: Collection[str] = ()) -> list[tuple[str, float]]:
    """Reciprocal-rank fusion of ranked lists of (id, score), best first (ties by id), the fused
    scores over the best possible; the ids in `first` lead, in their fused order. Each rank's
    share is weighed by the paper's score over its list's best: a paper that only shares a
    common word sits high in a short list of word matches, but weighs little there."""
    scores: dict[str, float] = {}
    for hits in ranked:
        best = max((score for _, score in hits), default=0.0)
        for rank, (pid, score) in enumerate(hits, 1):
            weight = max(score, 0.0) / best if best > 0 else 1.0
            scores[pid] = scores.get(pid, 0.0) + weight / (K + rank)
    top = len(ranked) / (K + 1) if ranked else 1.0
    return sorted(((pid, score / top) for pid, score in scores.items()), key=lambda hit: (hit[0] not in first, -hit[1], hit[0]))


def _exact(terms: TermIndex, text: str) -> set[str]:
    phrase = word_string(text).strip()
    low, high = PHRASE_WORDS
    if not low <= len(phrase.split()) <= high:
        return set()
    return terms.matching(text_node(phrase))


def about(
    index: MeaningVectors | None,
    terms: TermIndex,
    text: str,
    *,
    limit: int,
    among: Collection[str] | None = None,
    leave_out: Collection[str] = (),
    note: str = "",
) -> About:
    """The papers most about `text`, best first: of `among` when given (a topic's, the unread),
    never those in `leave_out` (hidden). `note`: why there is no `index`, when there is none."""
    words = words_of(terms, text, limit=DEPTH if among is None else 10 * DEPTH, leave_out=leave_out)
    word_hits = [(like.id, like.score) for like in words.papers if among is None or like.id in among][:DEPTH]
    shared = {like.id: like.because for like in words.papers}
    exact = _exact(terms, text) - set(leave_out)
    if among is not None:
        exact &= among if isinstance(among, (set, frozenset)) else set(among)  # (a topic's set as it is: no copy of every id)
    if index is None:
        fused = fuse([word_hits], first=exact)
        return About([Hit(pid, score, None, (), shared.get(pid, ()), pid in exact) for pid, score in fused[:limit]], "words", note)
    query = index.embed(text)
    near = index.nearest(query, DEPTH, among=among, leave_out=leave_out)
    cosine = dict(near)
    # The first answer's best papers move the query towards their words (expand.py), and the
    # candidates both lists found are ranked again by the moved query.
    first = [pid for pid, _ in fuse([near, word_hits], first=exact)[:FEEDBACK_PAPERS]]
    moved = feedback(index, query, first, dict.fromkeys([pid for pid, _ in near] + [pid for pid, _ in word_hits]))
    fused = fuse([moved[:DEPTH], word_hits], first=exact)[:limit]
    typed = text.split()
    hits = []
    for pid, score in fused:
        vector = index.vector(pid)
        because = tuple(index.model.nearest_words(typed, vector, REASONS)) if vector is not None else ()
        hits.append(Hit(pid, score, cosine.get(pid), because, shared.get(pid, ()), pid in exact))
    return About(hits, "meaning and words", "")
