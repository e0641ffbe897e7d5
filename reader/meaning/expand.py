"""What a meaning query is ranked by, beyond its vector: every word it says, and the papers it
found first (pseudo-relevance feedback). Measured on the known-item paraphrase queries of
benchmarks/meaning.py (docs/ranking.md, "How the candidates compare").

- **Every word of the query** ranks the words list, not only its five most distinctive terms as
  "more like this" asks of a paper: a query is a few words, each chosen; a paraphrase says what a
  paper is about in other words than its title, and its commoner words ("clinical", "scans")
  still single the paper out among those holding its rarer ones (and only among those: see
  words_of). Two-word phrases are left out:
  in a paraphrase they are mostly pairs of neighbours ("model instead") that crowd out words, and
  a query that is a paper's phrase still leads as an exact phrase (find.py).
- **Feedback** (Rocchio's, in the meaning space): the first papers of the fused answer are taken
  as relevant; their mean vector is added to the query's, so the words they use for what the
  query says in its own (the paper's title words, say) count too. Only the candidates already
  found (meaning's and words' best) are scored again: a second pass over every vector or a second
  words rank would cost the query as much again."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from reader.core.query import And, Node, Or
from reader.core.similar import TEXT_SHARE, Likeness, TermIndex, distinctive_terms, text_node
from reader.core.text import word_string

if TYPE_CHECKING:
    import numpy as np

    from reader.meaning.vectors import MeaningVectors

QUERY_WORDS = 12  # words of a query ranked (its most distinctive first): a typed query rarely says more
RARE_WORDS = 3  # the rarest of them find the papers; the others weigh only among those
FEEDBACK_PAPERS = 5  # first papers of the fused answer taken as relevant
FEEDBACK_WEIGHT = 0.5  # their mean vector's weight beside the query's (Rocchio's beta; the query's is 1)


def words_of(terms: TermIndex, text: str, *, limit: int, leave_out: Collection[str] = ()) -> Likeness:
    """The papers holding the query's words, weighed by how rare each is, best first: those
    holding one of its RARE_WORDS rarest, scored by every word they hold. A common word asked
    alone would list a large part of the cache (at 100,000 papers ten times the ids, and the
    time, of five terms), for papers that share nothing rarer with the query."""
    chosen = distinctive_terms(terms, word_string(text), indexed=False, count=QUERY_WORDS, phrases=False)
    rare = [term for term, _ in chosen[:RARE_WORDS]]
    any_rare: Node | None = Or(tuple(text_node(term) for term in rare)) if len(rare) > 1 else text_node(rare[0]) if rare else None
    total = sum(weight for _, weight in chosen)
    weighed = [
        (TEXT_SHARE * weight / total, term, text_node(term) if term in rare or any_rare is None else And((text_node(term), any_rare)))
        for term, weight in chosen
    ]
    return Likeness(tuple(term for term, _ in chosen), terms.best_weighed(weighed, limit=limit, leave_out=leave_out))


def feedback(index: MeaningVectors, query: np.ndarray, first: list[str], candidates: Collection[str]) -> list[tuple[str, float]]:
    """The candidates by their cosine with the query moved towards the `first` papers' mean
    vector, best first (ties by id); the query alone when none of them has a vector."""
    import numpy as np

    relevant = [row for pid in first[:FEEDBACK_PAPERS] if (row := index.row(pid)) is not None]
    moved = np.asarray(query, dtype=np.float32)
    if relevant:
        centre = np.asarray(index.vectors[sorted(relevant)], dtype=np.float32).mean(axis=0)
        moved = moved + FEEDBACK_WEIGHT * centre
        norm = float(np.linalg.norm(moved))
        moved = moved / norm if norm else moved
    placed = [(pid, row) for pid in candidates if (row := index.row(pid)) is not None]
    if not placed:
        return []
    rows = np.fromiter((row for _, row in placed), dtype=np.int64, count=len(placed))
    order = np.argsort(rows)  # rows read in file order
    scores = np.empty(len(placed), dtype=np.float32)
    scores[order] = np.asarray(index.vectors[rows[order]], dtype=np.float32) @ moved
    return sorted(((pid, float(score)) for (pid, _), score in zip(placed, scores)), key=lambda hit: (-hit[1], hit[0]))
