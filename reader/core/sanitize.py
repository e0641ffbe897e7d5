"""Feed text hygiene shared by every layer that takes text from outside."""

from __future__ import annotations

import re

# Control characters (C0 but whitespace, DEL, C1) and bidirectional controls (marks, embeddings,
# overrides, isolates): an escape sequence or a reordering of displayed text must never come through.
# Nor invisible text: the byte order mark (U+FEFF), the tag characters (U+E0000-E007F, which spell
# hidden words), the deprecated format controls (U+206A-206F) and interlinear annotations
# (U+FFF9-FFFB). Zero-width joiners (U+200C, U+200D) stay: Persian, Indic and emoji text need them.
# Nor a lone surrogate (U+D800-DFFF, from a JSON file's \ud800): no UTF-8 output can print one.
# Nor U+10EEEE, Kitty's image placeholder: in a Kitty terminal it draws a piece of an image.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u206a-\u206f"
    "\ufeff\ufff9-\ufffb\U000e0000-\U000e007f\ud800-\udfff\U0010eeee]"
)
UNSAFE_PATTERN = _UNSAFE.pattern  # the same characters, for reader/fulltext/clean.py
_INVISIBLE = re.compile("[\ufeff\U000e0000-\U000e007f\U0010eeee]")
# The same characters as UTF-8 bytes, found in a file without decoding it: text cached before
# clean_text dropped them (U+FEFF; U+E0000-E007F all start F3 A0 80 or F3 A0 81; U+10EEEE).
INVISIBLE_UTF8 = (b"\xef\xbb\xbf", b"\xf3\xa0\x80", b"\xf3\xa0\x81", b"\xf4\x8e\xbb\xae")


def clean_text(text: str | None) -> str:
    """Collapse whitespace and drop control characters (ANSI/OSC escapes lose their ESC)."""
    if not text:
        return ""
    if text.isprintable():
        # Nothing to drop (control and bidirectional characters are not printable) and no
        # whitespace but the plain space (every other kind is not printable either): most
        # names, titles and categories, read several times faster than by the regex.
        return " ".join(text.split()) if "  " in text or text[0] == " " or text[-1] == " " else text
    return " ".join(_UNSAFE.sub("", text).split())


def has_invisible(text: str | None) -> bool:
    """Whether text holds a byte order mark, a tag character or Kitty's image placeholder
    (dropped by clean_text only since December 2026: older caches may hold them)."""
    return text is not None and _INVISIBLE.search(text) is not None


def clean_multiline(text: str | None) -> str:
    """Text the user wrote over several lines (a note): control characters dropped as in
    clean_text, but line breaks (any convention, made `\\n`) and tabs kept."""
    if not text:
        return ""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    return _UNSAFE.sub("", lines)
