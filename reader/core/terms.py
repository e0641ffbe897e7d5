"""Terms of a paper's text for ranking and for rising words: single words and two-word phrases,
without stop words. Text comes as folded words separated by spaces (see core/text.py)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from reader.core.stop_words import FILLER_WORDS, STOP_WORDS


def is_stop(word: str) -> bool:
    """Stop words, single characters and bare numbers (years, section and table numbers)."""
    return word in STOP_WORDS or len(word) < 2 or word.isdigit()


def carries_subject(term: str) -> bool:
    """Whether a term says what papers are about: no word of it is filler (`employ`, `improves`)."""
    return not any(word in FILLER_WORDS for word in term.split())


def terms(words: str) -> Iterator[str]:
    """Each word that is not a stop word, then each pair of adjacent such words (`reward shaping`),
    as often as they occur."""
    kept = [None if is_stop(word) else word for word in words.split()]
    for word in kept:
        if word is not None:
            yield word
    for first, second in pairwise(kept):
        if first is not None and second is not None:
            yield f"{first} {second}"


class Distinct:
    """Picks terms so that none lies inside another (`reward` and `reward shaping`, `bug` and
    `bugs`): a list of terms should not say the same thing twice. Two phrases sharing a word
    (`reward shaping`, `reward model`) are both kept."""

    def __init__(self) -> None:
        self.chosen: list[str] = []
        self._terms: set[tuple[str, ...]] = set()  # chosen terms, as singular words
        self._words: set[str] = set()  # every word of a chosen term
        self._singles: set[str] = set()  # chosen single words

    def add(self, term: str) -> bool:
        """Choose `term` unless it repeats a chosen one; True when chosen."""
        words = tuple(_singular(word) for word in term.split())
        if len(words) == 1:
            repeats = words[0] in self._words
        else:
            repeats = words in self._terms or any(word in self._singles for word in words)
        if repeats:
            return False
        self.chosen.append(term)
        self._terms.add(words)
        self._words.update(words)
        if len(words) == 1:
            self._singles.add(words[0])
        return True


def _singular(word: str) -> str:
    """A plural's crude singular (`models` -> `model`; `process`, `bias` stay), enough to tell
    that two terms say the same thing."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) else word
