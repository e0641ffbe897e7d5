"""What is rising: the user's topics ranked by momentum, and within a topic the terms whose share
of its papers grew most.

Topics compare the last four weeks with the four before (core/momentum.py). Terms compare the
last four weeks with the eight before, a longer base so that a term seen in two papers a month
ago does not look like a trend: a term's share is the fraction of the window's papers whose
title or abstract holds it, and its growth is its share now over its share before. Terms rise
only where all twelve weeks are synced (a gap would look like growth), and never words that
carry no subject (core/terms.py's filler words)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from reader.core.catalog import Catalog
from reader.core.coverage import Coverage, Span
from reader.core.momentum import WINDOW_DAYS, last4_window
from reader.core.terms import Distinct, carries_subject, terms

EARLIER_DAYS = 2 * WINDOW_DAYS  # the eight weeks before the last four
MIN_PAPERS = 3  # a term in fewer of the last four weeks' papers is an accident, not a trend
PHRASE_SHARE = 2 / 3  # a word mostly seen inside a rising phrase is left to the phrase


@dataclass(frozen=True, slots=True)
class TopicTrend:
    topic: str
    last4: int | None  # None: those four weeks are not all synced
    prev4: int | None
    change_pct: float | None  # None when the four weeks before had no papers
    share_pct: float | None  # of all new arXiv papers in the last four weeks, when that is known

    def to_json(self) -> dict:
        return {
            "topic": self.topic,
            "last4": self.last4,
            "prev4": self.prev4,
            "change_pct": None if self.change_pct is None else round(self.change_pct, 1),
            "share_pct": None if self.share_pct is None else round(self.share_pct, 2),
        }


@dataclass(frozen=True, slots=True)
class RisingTerm:
    term: str
    last4: int  # papers holding it in the last four weeks
    prev8: int  # papers holding it in the eight weeks before
    growth: float  # its share of the papers now over its share before (see `rising_terms`)

    def to_json(self) -> dict:
        return {"term": self.term, "last4": self.last4, "prev8": self.prev8, "growth": round(self.growth, 2)}


def rising_topics(
    catalog: Catalog, topics: Iterable[str], as_of: date, spans: dict[str, tuple[Span, ...]] | None, total_new_last4: int | None = None
) -> list[TopicTrend]:
    """Topics by change, largest rise first: a topic with papers now and none in the four weeks
    before (covered, so truly none) first of all; topics with nothing to compare with last.
    `spans`: what each topic's syncs fetched whole (SyncFile.coverage_spans), so that a window not
    synced has no figure, as in the topic's chart; None counts every day (the demo set)."""
    trends = []
    for topic in topics:
        m = catalog.momentum(as_of, topic=topic, total_new_last4=total_new_last4, spans=spans)
        trends.append(TopicTrend(topic, m.last4, m.prev4, m.change_pct, m.share_pct))

    def order(t: TopicTrend) -> tuple:
        new = bool(t.last4) and t.prev4 == 0
        return (not new, t.change_pct is None, -(t.change_pct or 0), -(t.last4 or 0), t.topic.casefold())

    return sorted(trends, key=order)


def terms_window(as_of: date) -> tuple[date, date]:
    """The first and last day of the twelve weeks rising terms compare."""
    last_start, _ = last4_window(as_of)
    return last_start - timedelta(days=EARLIER_DAYS), as_of


def terms_covered(coverage: Coverage | None, as_of: date) -> bool:
    """Whether every day of the twelve weeks is synced (None: a set complete by construction)."""
    first, last = terms_window(as_of)
    return coverage is None or coverage.covers(first.toordinal(), last.toordinal())


def rising_terms(
    papers: Iterable[tuple[date, str]],
    as_of: date,
    *,
    min_papers: int = MIN_PAPERS,
    limit: int | None = None,
    coverage: Coverage | None = None,
) -> list[RisingTerm]:
    """Terms of a topic's papers, given as (v1 date, folded words of title and abstract), whose
    share grew most, best first. Growth counts one more paper before than was seen, so a term
    that is new at five papers ranks above one that merely grew, without an infinite ratio.
    Nothing rises in a topic without papers in both windows, nor unless `coverage` (what the
    topic's syncs fetched whole; None: every day counts) holds all twelve weeks."""
    if not terms_covered(coverage, as_of):
        return []
    last_start, _ = last4_window(as_of)
    earlier_start, _ = terms_window(as_of)
    now: Counter[str] = Counter()
    before: Counter[str] = Counter()
    papers_now = papers_before = 0
    for day, words in papers:
        if last_start <= day <= as_of:
            now.update(set(terms(words)))
            papers_now += 1
        elif earlier_start <= day < last_start:
            before.update(set(terms(words)))
            papers_before += 1
    if not papers_now or not papers_before:
        return []
    found = []
    for term, count in now.items():
        earlier = before.get(term, 0)
        # (count / papers_now) / ((earlier + 1) / papers_before), in integers until the division.
        growth = count * papers_before / (papers_now * (earlier + 1))
        if count >= min_papers and growth > 1 and carries_subject(term):
            found.append(RisingTerm(term, count, earlier, growth))
    return _best(found, limit)


def _best(found: list[RisingTerm], limit: int | None) -> list[RisingTerm]:
    """The rising terms worth showing, best first: a word that rises mostly within a rising
    phrase is left to the phrase, and one lying inside a term chosen before is dropped (Distinct)."""
    in_phrases: Counter[str] = Counter()  # word -> papers of its most frequent rising phrase
    for phrase in (t for t in found if " " in t.term):
        for word in phrase.term.split():
            in_phrases[word] = max(in_phrases[word], phrase.last4)
    found = [t for t in found if " " in t.term or in_phrases[t.term] < PHRASE_SHARE * t.last4]
    found.sort(key=lambda t: (-t.growth, -t.last4, t.term))
    distinct, chosen = Distinct(), []
    for candidate in found:
        if distinct.add(candidate.term):
            chosen.append(candidate)
            if len(chosen) == limit:
                break
    return chosen
