""" "More like this": the cached papers most like one paper (or a piece of text), offline, each
with the shared terms, authors or categories that weigh most for it.

Likeness is what sets the paper apart: its few (DISTINCTIVE) most distinctive terms, words and
two-word phrases of its title and abstract weighed by how rare they are in the cache (TF-IDF),
asked of the search index as a "more like this" query. A paper scores by the share of that
weight its own title and abstract hold, plus a little for each author and category it shares.
A whole-vector cosine (arxiv-sanity's) would let a run of short abstracts written from one
template crowd out a short paper's subject: the template's many common words outweigh its one
or two rare ones. Here a common word is at most one of a few terms, and weighs least.

Work grows with the best papers, not with the cache nor with a common term's papers: the index
counts each term's papers and lists those of the rarest chosen terms; a commoner term's papers are
listed only among them, once enough of them outscore any paper that holds commoner terms alone
(`_matched`: the answer is the same as listing every term's papers). No paper's features are read."""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Collection, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Protocol

from reader.core.query import Node, Or, Term
from reader.core.query import term as query_term
from reader.core.terms import Distinct, terms
from reader.core.text import fold, word_string
from reader.models import Paper

DISTINCTIVE = 5  # terms a paper is known by
PHRASE_WORDS = 3 * DISTINCTIVE  # the rarest words whose phrases are weighed too
AUTHORS_ASKED = 20  # of a long author list, the first: enough to find a group's other papers
AUTHORS_COUNTED = 3  # sharing this many authors gives the whole author share
REASONS = 3
# What a score is made of: the share of the distinctive terms' weight, of the authors and of the
# categories (they break ties between papers sharing the same terms more than they lead).
TEXT_SHARE, AUTHOR_SHARE, CATEGORY_SHARE = 0.9, 0.07, 0.03
MARGIN = 1e-9  # a score must pass the commoner terms' best by this much to be sure of its place (sums round)


class TermIndex(Protocol):
    """What likeness asks of the search index (search_index, or service/search.py's wrappers)."""

    def matching(self, node: Node) -> set[str]: ...

    def matching_among(self, node: Node, ids: Collection[str]) -> set[str]: ...

    def document_counts(self, nodes: list[Node]) -> list[int]: ...

    def paper_count(self) -> int: ...

    def best_weighed(self, weighed: Sequence[tuple[float, str, Node]], *, limit: int, leave_out: Collection[str] = ()) -> list[Like]: ...


@dataclass(frozen=True, slots=True)
class Like:
    id: str
    score: float  # 0 to 1
    because: tuple[str, ...]  # the shared terms, authors or categories weighing most for it
    meaning: tuple[str, ...] = ()  # the paper's own words nearest this one in meaning (meaning/like.py)


@dataclass(frozen=True, slots=True)
class Likeness:
    terms: tuple[str, ...]  # the distinctive terms the papers were found by, most distinctive first
    papers: list[Like]  # best first, ties by id


def _term(field: str, words: Sequence[str]) -> Term:
    return query_term(field, words)


def text_node(term: str) -> Node:
    """A word or phrase in a title or an abstract."""
    words = term.split()
    return Or((_term("ti", words), _term("abs", words)))


def distinctive_terms(
    index: TermIndex, words: str, *, indexed: bool, count: int = DISTINCTIVE, phrases: bool = True
) -> list[tuple[str, float]]:
    """The `count` terms of `words` (folded, as word_string gives them) weighing most, with
    their weights: (1 + log count) times the square of their IDF (what the term adds to a TF-IDF
    dot product). Only terms some other paper holds count (`indexed`: the text is a cached
    paper's own, which the index counts too). Terms never repeat each other (see Distinct).
    Phrases are counted only where they hold one of the rarest words (a phrase of two common
    words is rarely a subject, and counting a phrase costs the index several words'), and not at
    all without `phrases`."""
    counts = Counter(terms(words))
    papers = index.paper_count()

    def weighed(candidates: list[str]) -> list[tuple[str, float]]:
        found = index.document_counts([text_node(term) for term in candidates])
        return [
            (term, (1 + math.log(counts[term])) * (math.log((1 + papers) / (1 + n)) + 1) ** 2)
            for term, n in zip(candidates, found)
            if n - indexed >= 1
        ]

    singles = sorted(weighed(sorted(term for term in counts if " " not in term)), key=lambda item: (-item[1], item[0]))
    rarest = {term for term, _ in singles[:PHRASE_WORDS]} if phrases else set()
    pairs = weighed(sorted(term for term in counts if " " in term and rarest.intersection(term.split())))
    distinct, chosen = Distinct(), []
    for term, weight in sorted(singles + pairs, key=lambda item: (-item[1], item[0])):
        if distinct.add(term):
            chosen.append((term, weight))
            if len(chosen) == count:
                break
    return chosen


def like_paper(index: TermIndex, paper: Paper, *, limit: int, leave_out: Collection[str] = (), bounded: bool = True) -> Likeness:
    """The papers most like a cached paper (never itself, nor those in `leave_out`). Without
    `bounded`, every term's papers are listed whole (the same answer, slower: tests compare them)."""
    chosen = distinctive_terms(index, word_string(paper.title) + word_string(paper.abstract), indexed=True)
    shared: list[tuple[str, float, Node]] = []  # (reason, its share of the score, the query of the papers that have it)
    authors = [a.name for a in paper.authors[:AUTHORS_ASKED] if word_string(a.name).split()]
    for name in authors:
        shared.append((name, AUTHOR_SHARE / max(min(len(authors), AUTHORS_COUNTED), 1), _term("au", word_string(name).split())))
    categories = [c for c in dict.fromkeys([paper.primary_category, *paper.categories]) if fold(c).split()]
    for category in categories:
        shared.append((category, CATEGORY_SHARE / len(categories), _term("cat", fold(category).split())))
    return _ranked(index, chosen, shared, limit=limit, leave_out={paper.id, *leave_out}, bounded=bounded)


def like_text(index: TermIndex, text: str, *, limit: int, leave_out: Collection[str] = (), bounded: bool = True) -> Likeness:
    """The papers most like a piece of text (a draft's abstract, say); `bounded` as like_paper's."""
    chosen = distinctive_terms(index, word_string(text), indexed=False)
    return _ranked(index, chosen, [], limit=limit, leave_out=set(leave_out), bounded=bounded)


def _ranked(
    index: TermIndex,
    chosen: list[tuple[str, float]],
    extra: list[tuple[str, float, Node]],
    *,
    limit: int,
    leave_out: set[str],
    bounded: bool,
) -> Likeness:
    total = sum(weight for _, weight in chosen)
    shares = [TEXT_SHARE * weight / total for _, weight in chosen]
    held: list[tuple[float, str, AbstractSet[str]]] = [
        (share, term, holders)
        for (term, _), share, holders in zip(
            chosen, shares, _matched(index, chosen, shares, extra, limit=limit, leave_out=leave_out, bounded=bounded)
        )
    ]
    candidates: set[str] = set().union(*(holders for _, _, holders in held))
    named: dict[str, set[str]] = {}  # reason -> the papers it is said of so far
    for _, reason, holders in held:
        named.setdefault(reason, set()).update(holders)
    # Authors and categories rank the papers that share a term; they add none (a name said twice
    # counts once): they are asked of those papers alone (a field's category holds most of the cache).
    for reason, share, node in extra:
        holders = index.matching_among(node, candidates) - named.get(reason, set()) if candidates else set()
        named.setdefault(reason, set()).update(holders)
        held.append((share, reason, holders))
    return Likeness(tuple(term for term, _ in chosen), best_likes(held, limit=limit, leave_out=leave_out))


def best_likes(held: Sequence[tuple[float, str, AbstractSet[str]]], *, limit: int, leave_out: Collection[str] = ()) -> list[Like]:
    """The `limit` papers whose reasons' shares sum highest, best first (ties by id), each scored
    by that sum and said by its REASONS weightiest reasons: how "more like this" and a meaning
    query's words (meaning/expand.py) score the papers holding their terms, so the two read alike.
    `held`: (share of the score, reason, the papers holding it) of each term, author or category,
    in the order a paper's shares are added. Each paper's sum is one number, added in numpy; the
    best are picked by a partition and only they get their reasons (at 1,000,000 papers the rarest
    words' holders are ~200,000: a list of reasons for each was most of the time)."""
    import numpy as np

    papers = list(set().union(*(holders for _, _, holders in held)))
    row = dict(zip(papers, range(len(papers))))
    scores = np.zeros(len(papers))
    for share, _, holders in held:
        # one addition per holder in `held`'s order: the same float sums as adding a paper's shares one by one
        scores[np.fromiter(map(row.__getitem__, holders), dtype=np.intp, count=len(holders))] += share
    left_out = {i for pid in leave_out if (i := row.get(pid)) is not None}
    scores[list(left_out)] = -np.inf
    wanted = min(limit, len(papers) - len(left_out))
    if wanted <= 0:
        return []
    cut = np.partition(scores, len(papers) - wanted)[len(papers) - wanted]  # the wanted-th best score
    above = np.flatnonzero(scores > cut).tolist()
    tied = heapq.nsmallest(wanted - len(above), (papers[i] for i in np.flatnonzero(scores == cut).tolist()))
    best = sorted(((float(scores[i]), papers[i]) for i in above), key=lambda item: (-item[0], item[1]))
    best += [(float(cut), pid) for pid in tied]
    return [
        Like(pid, round(min(score, 1.0), 4), reasons_of([(share, reason) for share, reason, holders in held if pid in holders]))
        for score, pid in best
    ]


def reasons_of(held: Sequence[tuple[float, str]]) -> tuple[str, ...]:
    """The REASONS weightiest of a paper's (share, reason), ties by reason."""
    return tuple(reason for _, reason in sorted(held, key=lambda r: (-r[0], r[1]))[:REASONS])


def weighed_by_sets(
    index: TermIndex, weighed: Sequence[tuple[float, str, Node]], *, limit: int, leave_out: Collection[str] = ()
) -> list[Like]:
    """`TermIndex.best_weighed` from each query's set of ids (`matching`), for an index that has
    no quicker way: `best_likes` of them."""
    return best_likes([(share, reason, index.matching(node)) for share, reason, node in weighed], limit=limit, leave_out=leave_out)


def _matched(
    index: TermIndex,
    chosen: list[tuple[str, float]],
    shares: list[float],
    extra: list[tuple[str, float, Node]],
    *,
    limit: int,
    leave_out: set[str],
    bounded: bool,
) -> list[set[str]]:
    """Each chosen term's papers, as far as the `limit` best papers need them. The terms are
    listed rarest first; once `limit` papers of those listed score, on those terms alone, above
    the most a paper holding none of them can (every commoner term and every extra reason), the
    best are among them: the commoner terms are asked only of those papers."""
    nodes = [text_node(term) for term, _ in chosen]
    if not bounded or len(nodes) < 2:
        return [index.matching(node) for node in nodes]
    counts = index.document_counts(nodes)
    rarest_first = sorted(range(len(nodes)), key=lambda i: (counts[i], i))
    found: list[set[str] | None] = [None] * len(nodes)
    most_extra = sum(share for _, share, _ in extra)
    for listed, i in enumerate(rarest_first[:-1], 1):
        found[i] = index.matching(nodes[i])
        rest = rarest_first[listed:]
        beyond = sum(shares[j] for j in rest) + most_extra + MARGIN
        held: dict[str, float] = {}
        for j in rarest_first[:listed]:
            for pid in found[j] or ():
                held[pid] = held.get(pid, 0.0) + shares[j]
        for pid in leave_out:
            held.pop(pid, None)
        if len(held) < limit:
            continue
        last_kept = heapq.nlargest(limit, held.values())[-1]  # the limit-th best score on these terms alone
        if last_kept > beyond:
            # Only a paper that the commoner terms could lift to that score can be among the best.
            asked = [pid for pid, score in held.items() if score + beyond >= last_kept]
            for j in rest:
                found[j] = index.matching_among(nodes[j], asked)
            return [holders or set() for holders in found]
    last = rarest_first[-1]
    found[last] = index.matching(nodes[last])
    return [holders or set() for holders in found]
