"""Which writing system a character belongs to (Han, Hangul, Kana, Greek), and any text in ASCII
(anyascii): what BibTeX and citation keys need of names and titles in any script."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from anyascii import anyascii


def is_syllable(ch: str) -> bool:
    """A Han ideograph or a Hangul syllable: one word-like syllable each (张 -> Zhang), so
    transliterations of two in a row need a space between them."""
    return not ch.isascii() and unicodedata.name(ch, "").startswith(("CJK UNIFIED IDEOGRAPH", "HANGUL SYLLABLE"))


_CJK_NAMES = ("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH", "HANGUL SYLLABLE", "HIRAGANA", "KATAKANA")


def is_cjk(ch: str) -> bool:
    """A Han ideograph, a Hangul syllable or a Kana: the scripts of names written family name first."""
    return not ch.isascii() and unicodedata.name(ch, "").startswith(_CJK_NAMES)


def is_greek(ch: str) -> bool:
    return not ch.isascii() and unicodedata.name(ch, "").startswith("GREEK")


def _by_character(text: str, convert: Callable[[str], str]) -> str:
    out = []
    previous = False
    for ch in text:
        syllable = is_syllable(ch)
        if syllable and previous:
            out.append(" ")
        out.append(convert(ch))
        previous = syllable
    return "".join(out)


def transliterate(text: str) -> str:
    """ASCII for any script: 张伟 -> Zhang Wei, Иван -> Ivan (anyascii, a space between ideographs)."""
    return text if text.isascii() else _by_character(text, anyascii)
