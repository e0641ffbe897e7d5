"""More like this and For you with meaning: today's answers (core/similar.py's likeness, For
you's model of the marks) fused with the meaning vectors' nearest papers by reciprocal-rank
fusion (find.py's `fuse`), when the index is built; unchanged when it is not.

Likeness finds the papers sharing a paper's rarest terms; meaning finds those worded otherwise
(a credit-assignment paper's neighbours that say "reward redistribution"). A fused paper's
reasons keep the terms it shares and add the paper's own words nearest it in meaning."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from reader.core import similar
from reader.core.similar import Like, Likeness, TermIndex
from reader.core.text import word_string
from reader.meaning.find import DEPTH, REASONS, fuse
from reader.meaning.vectors import BLOCK, MeaningIndex
from reader.models import Paper

if TYPE_CHECKING:
    import numpy as np

MIN_WORD = 3  # shorter words ("rl", "of") say little as a reason


def like_paper(index: MeaningIndex | None, terms: TermIndex, paper: Paper, *, limit: int, leave_out: Collection[str] = ()) -> Likeness:
    """The papers most like a cached paper (never itself, nor those in `leave_out`): likeness
    fused with meaning when `index` holds the paper's vector, likeness alone otherwise."""
    likeness = similar.like_paper(terms, paper, limit=DEPTH, leave_out=leave_out)
    vector = index.vector(paper.id) if index is not None else None
    if index is None or vector is None:
        return Likeness(likeness.terms, likeness.papers[:limit])
    near = index.nearest(vector, DEPTH, leave_out={paper.id, *leave_out})
    shared = {like.id: like for like in likeness.papers}
    words = sorted({word for word in word_string(f"{paper.title} {paper.abstract}").split() if len(word) >= MIN_WORD})
    papers = []
    for pid, score in fuse([near, [(like.id, like.score) for like in likeness.papers]])[:limit]:
        theirs = index.vector(pid)
        meaning = tuple(index.model.nearest_words(words, theirs, REASONS)) if theirs is not None else ()
        found = shared.get(pid)
        papers.append(Like(pid, round(score, 4), found.because if found is not None else (), meaning))
    return Likeness(likeness.terms, papers)


def nearest_any(index: MeaningIndex, starred: Sequence[str]) -> np.ndarray | None:
    """Each stored paper's cosine with the starred paper nearest it (row order), or None when no
    starred paper has a vector: a paper near any one of several interests counts."""
    import numpy as np

    rows = [row for pid in starred if (row := index.row(pid)) is not None]
    if not rows:
        return None
    stars = np.asarray(index.vectors[sorted(rows)], dtype=np.float32).T
    out = np.empty(len(index.ids), dtype=np.float32)
    for start in range(0, len(index.ids), BLOCK):
        out[start : start + BLOCK] = (index.vectors[start : start + BLOCK].astype(np.float32) @ stars).max(axis=1)
    return out


def fused_order(
    index: MeaningIndex | None, ids: Sequence[str], scores: Sequence[float], starred: Sequence[str]
) -> list[tuple[str, float]] | None:
    """For you's ranked `ids` (with their `scores`) fused with their nearness in meaning to the starred papers, best
    first with the fused scores; None when there is no index or no starred paper in it (the
    ranking stands as it is). A paper without a vector keeps its place in the ranking's list."""
    if index is None or not ids:
        return None
    nearness = nearest_any(index, starred)
    if nearness is None:
        return None
    placed = [(pid, float(nearness[row])) for pid in ids if (row := index.row(pid)) is not None]
    by_meaning = sorted(placed, key=lambda item: (-item[1], item[0]))
    return fuse([by_meaning, list(zip(ids, scores))])
