"""Feed text hygiene shared by every layer that takes text from outside."""

from __future__ import annotations

import re

# Control characters (C0 but whitespace, DEL, C1) and bidirectional controls (marks, embeddings,
# overrides, isolates): an escape sequence or a reordering of displayed text must never come through.
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


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


def clean_multiline(text: str | None) -> str:
    """Text the user wrote over several lines (a note): control characters dropped as in
    clean_text, but line breaks (any convention, made `\\n`) and tabs kept."""
    if not text:
        return ""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    return _UNSAFE.sub("", lines)
