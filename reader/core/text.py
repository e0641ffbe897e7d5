"""Text helpers with no Textual: normalising text for search (lower case, accents and TeX accent
commands folded, word tokens), and counted nouns (`plural`) for the app and the CLI alike."""

from __future__ import annotations

import re
import unicodedata

# `\'{e}`, `\"u`, `{\`a}`, `\c{c}` -> the bare letter; `\o`, `\ss`, `\ae` -> o, ss, ae.
_TEX_ACCENT = re.compile(r"\\[`'\"^~=.uvHckbdrt]\s*\{?\s*([A-Za-z])\}?")
_TEX_LETTER = re.compile(r"\\(o|O|l|L|ss|ae|AE|oe|OE|aa|AA|i|j)(?![A-Za-z])")
_WORD = re.compile(r"[^\W_]+")
# Combining marks (accents once NFKD has split them from their letters).
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
# Letters NFKD leaves whole.
_UNDECOMPOSABLE = str.maketrans(
    {"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "đ": "d", "Đ": "D", "ı": "i"}
)
_UNDECOMPOSABLE_CHARS = re.compile("[" + "".join(chr(c) for c in _UNDECOMPOSABLE) + "]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_NOT_WORD = re.compile(r"[\W_]+")


def fold(text: str) -> str:
    """Lower case without accents, TeX accents included: `Schr\\"{o}dinger`, `Schrödinger` -> `schrodinger`."""
    if "\\" in text:
        text = _TEX_LETTER.sub(r"\1", _TEX_ACCENT.sub(r"\1", text))
    if not text.isascii():
        text = _COMBINING.sub("", unicodedata.normalize("NFKD", text))
        if _UNDECOMPOSABLE_CHARS.search(text):  # a search runs in C; translating with a dict does not
            text = text.translate(_UNDECOMPOSABLE)
    return text.casefold()


def words(text: str) -> list[str]:
    """The words of `text`, folded: letters and digits, split at everything else (`_` included)."""
    return _WORD.findall(fold(text))


# For ASCII text (most of arXiv): letters and digits lower-cased, everything else a space, in one
# C call. A regex does the same for other text, ten times slower.
_ASCII_WORDS = bytes(c if chr(c).isalnum() else 32 for c in range(128)).lower() + b" " * 128


def word_string(text: str) -> str:
    """Words joined by single spaces with a space at each end, so ` phrase ` tests whole words."""
    if "\\" in text or not text.isascii():
        text = fold(text)  # most often ASCII again (TeX accents and Latin accents folded)
    if text.isascii():
        spaced = text.encode("ascii").translate(_ASCII_WORDS).decode("ascii")
    else:
        spaced = _NOT_WORD.sub(" ", text)
        if not spaced.isascii():
            # Letters of other scripts (α, 中) as ASCII codes: search text stays one byte per
            # character, and a whole block of it with them (a non-ASCII character would make
            # Python store every character of the block in two or four bytes).
            spaced = _NON_ASCII.sub(lambda m: f"x{ord(m.group()):x}x", spaced)
    return " " + " ".join(spaced.split()) + " "


def plural(count: int, one: str, many: str | None = None, *, thousands: bool = False) -> str:
    """`1 topic`, `2 topics`, `3 matches` (`many` for irregular plurals); `thousands`: `1,204 papers`
    (every count said to a person; a bare number in a tab-separated column stays plain for scripts)."""
    number = f"{count:,}" if thousands else str(count)
    return f"{number} {one if count == 1 else (many or one + 's')}"
