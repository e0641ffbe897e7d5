"""What is rising: topics by momentum, and a topic's terms by growth of their share."""

from __future__ import annotations

from datetime import date, timedelta

from reader.cache_index import CacheIndex, IndexEntry
from reader.core.catalog import Catalog
from reader.core.coverage import Coverage, day_end, day_start
from reader.core.rising import RisingTerm, rising_terms, rising_topics
from reader.core.text import word_string
from tests.corpus import TODAY
from tests.themes import rising_papers


def dated_words(papers):
    return [(p.published_date, word_string(p.title) + word_string(p.abstract)) for p in papers]


def test_terms_whose_share_grew_most_come_first():
    found = rising_terms(dated_words(rising_papers()), TODAY)
    assert found == [
        RisingTerm("process reward", 6, 0, 12.0),  # (6/20) / (1/40): new terms count one paper before
        RisingTerm("agent memory", 5, 4, 2.0),  # (5/20) / (5/40); ties by name
        RisingTerm("tool use", 5, 4, 2.0),
    ]
    # `grpo` is in too few papers, `diffusion` fell, `language models` held its share, `we
    # propose` is stop words, and the words of the phrases are left to the phrases.
    assert [t.to_json() for t in found[:1]] == [{"term": "process reward", "last4": 6, "prev8": 0, "growth": 12.0}]


def test_windows_are_the_last_four_weeks_and_the_eight_before():
    def on(days_ago, text):
        return (TODAY - timedelta(days=days_ago), f" {text} ")

    papers = [on(27, "edge term"), on(10, "edge term"), on(0, "edge term"), on(-1, "edge term")]
    papers += [on(28, "other words"), on(83, "other words"), on(84, "edge term")]
    # Three of three papers now (tomorrow's is not yet), none of two before (day 84 is out):
    # (3/3) / ((0 + 1)/2).
    assert rising_terms(papers, TODAY) == [RisingTerm("edge term", 3, 0, 2.0)]
    assert rising_terms(papers, TODAY, min_papers=4) == []
    everything = dated_words(rising_papers())
    assert [t.term for t in rising_terms(everything, TODAY, limit=2)] == ["process reward", "agent memory"]
    assert "grpo" in [t.term for t in rising_terms(everything, TODAY, min_papers=2)]


def test_nothing_rises_without_papers_in_both_windows():
    recent_only = [(day, words) for day, words in dated_words(rising_papers()) if (TODAY - day).days < 28]
    assert rising_terms(recent_only, TODAY) == []
    assert rising_terms([], TODAY) == []


def test_topics_ranked_by_change_with_their_share():
    def entries(topic, last4, prev4):
        days = [TODAY - timedelta(days=d % 28) for d in range(last4)]
        days += [TODAY - timedelta(days=28 + d % 28) for d in range(prev4)]
        return {f"{topic}-{i}": IndexEntry(1, day.isoformat(), [topic]) for i, day in enumerate(days)}

    index = CacheIndex.build(entries("Steady", 6, 6) | entries("Up", 10, 5) | entries("New", 3, 0) | entries("Down", 4, 8))
    found = rising_topics(Catalog(index), ["Down", "New", "Steady", "Up", "Empty"], TODAY, None, total_new_last4=1000)
    # A topic with papers now and none before is new: it rises most of all, though no ratio says so.
    assert [t.topic for t in found] == ["New", "Up", "Steady", "Down", "Empty"]
    assert found[1].to_json() == {"topic": "Up", "last4": 10, "prev4": 5, "change_pct": 100.0, "share_pct": 1.0}
    assert found[3].change_pct == -50.0 and found[0].change_pct is None
    assert rising_topics(Catalog(index), ["Up"], TODAY, None)[0].share_pct is None  # no total known
    assert rising_topics(Catalog(index), ["Up"], date(2027, 3, 1), None)[0].last4 == 0


def test_a_window_not_synced_has_no_figure_as_in_the_topics_chart():
    days = [TODAY - timedelta(days=d) for d in range(56)]
    index = CacheIndex.build({f"p{i}": IndexEntry(1, day.isoformat(), ["Up"]) for i, day in enumerate(days)})
    never_synced = rising_topics(Catalog(index), ["Up"], TODAY, {"Up": ()})[0]
    assert never_synced.last4 is None and never_synced.prev4 is None and never_synced.change_pct is None
    synced = {"Up": ((day_start(TODAY - timedelta(days=60)), day_end(TODAY)),)}
    assert rising_topics(Catalog(index), ["Up"], TODAY, synced)[0].to_json() == {
        "topic": "Up",
        "last4": 28,
        "prev4": 28,
        "change_pct": 0.0,
        "share_pct": None,
    }


def test_no_term_rises_unless_all_twelve_weeks_are_synced():
    papers = dated_words(rising_papers())

    def synced_from(days_ago: int, until: date = TODAY) -> Coverage:
        return Coverage.of_spans([(day_start(TODAY - timedelta(days=days_ago)), day_end(until))])

    assert [t.term for t in rising_terms(papers, TODAY, coverage=synced_from(83))][:1] == ["process reward"]  # all 84 days
    assert rising_terms(papers, TODAY, coverage=synced_from(82)) == []  # the first of the twelve weeks is missing
    assert rising_terms(papers, TODAY, coverage=synced_from(200, until=TODAY - timedelta(days=1))) == []  # today is not
    assert rising_terms(papers, TODAY, coverage=Coverage()) == []  # never synced


def test_filler_verbs_and_adjectives_never_rise():
    def on(days_ago, text):
        return (TODAY - timedelta(days=days_ago), f" {text} ")

    recent = ["we employ sparse attention", "improves sparse attention", "effective sparse attention", "leveraging sparse attention"]
    papers = [on(i, text) for i, text in enumerate(recent * 2)] + [on(30 + i, "dense layers") for i in range(8)]
    found = [t.term for t in rising_terms(papers, TODAY)]
    assert found == ["sparse attention"]  # not "employ", "improves", "effective", "leveraging", nor phrases with them
    assert [t.term for t in rising_terms([on(i, "improves recall") for i in range(6)] + papers[8:], TODAY)] == ["recall"]
