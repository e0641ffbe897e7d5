"""Terms of a text, and lists of terms that never say one thing twice."""

from __future__ import annotations

from reader.core.terms import Distinct, terms


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
