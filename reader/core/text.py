"""Normalising text for search: lower case, accents and TeX accent commands folded, word tokens."""

from __future__ import annotations

import re
import unicodedata

# `\'{e}`, `\"u`, `{\`a}`, `\c{c}` -> the bare letter; `\o`, `\ss`, `\ae` -> o, ss, ae.
_TEX_ACCENT = re.compile(r"\\[`'\"^~=.uvHckbdrt]\s*\{?\s*([A-Za-z])\}?")
_TEX_LETTER = re.compile(r"\\(o|O|l|L|ss|ae|AE|oe|OE|aa|AA|i|j)(?![A-Za-z])")
_WORD = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """Lower case without accents, TeX accents included: `Schr\\"{o}dinger`, `Schrödinger` -> `schrodinger`."""
    if "\\" in text:
        text = _TEX_LETTER.sub(r"\1", _TEX_ACCENT.sub(r"\1", text))
    if not text.isascii():
        text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    return text.casefold()


def words(text: str) -> list[str]:
    """The words of `text`, folded: letters and digits, split at everything else (`_` included)."""
    return _WORD.findall(fold(text))


def word_string(text: str) -> str:
    """Words joined by single spaces with a space at each end, so ` phrase ` tests whole words."""
    return " " + " ".join(words(text)) + " "
