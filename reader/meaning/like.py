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
from reader.meaning.model import Model, Words
from reader.meaning.vectors import BLOCK, MeaningVectors
from reader.models import Paper

if TYPE_CHECKING:
    import numpy as np

MIN_WORD = 3  # shorter words ("rl", "of") say little as a reason
SHARED = 0.05  # a word's cosine with both papers must pass this to be named


def like_paper(index: MeaningVectors | None, terms: TermIndex, paper: Paper, *, limit: int, leave_out: Collection[str] = ()) -> Likeness:
    """The papers most like a cached paper (never itself, nor those in `leave_out`): likeness
    fused with meaning when `index` holds the paper's vector, likeness alone otherwise."""
    likeness = similar.like_paper(terms, paper, limit=DEPTH, leave_out=leave_out)
    vector = index.vector(paper.id) if index is not None else None
    if index is None or vector is None:
        return Likeness(likeness.terms, likeness.papers[:limit])
    near = index.nearest(vector, DEPTH, leave_out={paper.id, *leave_out})
    shared = {like.id: like for like in likeness.papers}
    words, directions = _directions(index.model, f"{paper.title} {paper.abstract}")
    papers = []
    for pid, score in fuse([near, [(like.id, like.score) for like in likeness.papers]])[:limit]:
        theirs = index.vector(pid)
        meaning = _shared_meaning(words, directions, vector, theirs) if theirs is not None else ()
        found = shared.get(pid)
        papers.append(Like(pid, round(score, 4), found.because if found is not None else (), meaning))
    return Likeness(likeness.terms, papers)


def _directions(model: Model, text: str) -> tuple[list[str], np.ndarray]:
    """The words of `text` the model knows (one written form per stem) and their directions in
    meaning as unit columns (dimensions x words)."""
    import numpy as np

    column = model.column()
    written: dict[str, str] = {}
    words = Words(model.stop)  # one for the text: a word said again is stemmed once
    for word in word_string(text).split():
        stems = words.tokens(word)
        if len(word) >= MIN_WORD and len(stems) == 1 and stems[0] in column:
            written.setdefault(stems[0], word)
    columns = [column[stem] for stem in written]
    directions = np.asarray(model.components[:, columns], dtype=np.float32)
    norms = np.linalg.norm(directions, axis=0)
    norms[norms == 0] = 1.0
    return list(written.values()), directions / norms


def _shared_meaning(words: list[str], directions: np.ndarray, mine: np.ndarray, theirs: np.ndarray) -> tuple[str, ...]:
    """Of a paper's own words, those nearest in meaning to both it and another paper: what the two
    share in meaning (a word near one of them only says nothing of the pair)."""
    import numpy as np

    if not words:
        return ()
    both = np.minimum(mine @ directions, theirs @ directions)
    best = np.argsort(-both, kind="stable")[:REASONS]
    return tuple(words[i] for i in best if both[i] > SHARED)


def nearest_any(index: MeaningVectors, starred: Sequence[str]) -> np.ndarray | None:
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
    index: MeaningVectors | None, ids: Sequence[str], scores: Sequence[float], starred: Sequence[str]
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
