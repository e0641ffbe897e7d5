"""Terms of a text, and lists of terms that never say one thing twice."""

from __future__ import annotations

from reader.core.terms import Distinct, terms
from reader.core.text import plural


def test_words_and_phrases_without_stop_words_numbers_or_single_letters():
    found = list(terms(" we propose reward shaping for tool use in 2024 with a 3 x agents "))
    assert found == ["reward", "shaping", "tool", "use", "agents", "reward shaping", "tool use"]
    assert list(terms(" reward reward ")) == ["reward", "reward", "reward reward"]  # counted as often as seen
    assert list(terms("")) == []


def test_distinct_keeps_no_term_inside_another_or_a_plural_of_it():
    distinct = Distinct()
    added = [distinct.add(t) for t in ["reward shaping", "reward", "reward model", "bugs", "bug", "process", "shaping", "bias"]]
    assert added == [True, False, True, True, False, True, False, True]
    assert distinct.chosen == ["reward shaping", "reward model", "bugs", "process", "bias"]
    first = Distinct()
    assert first.add("tool") and not first.add("tool use") and not first.add("tools") and first.add("S. Levine")


def test_plural_counts_a_noun_with_separators_only_when_asked():
    assert plural(1, "paper") == "1 paper"
    assert plural(0, "paper") == "0 papers"
    assert plural(1204, "entry", "entries") == "1204 entries"  # the CLI's tab-separated lines: plain digits
    assert plural(1204, "match", "matches", thousands=True) == "1,204 matches"
    assert plural(1, "starred paper", thousands=True) == "1 starred paper"
