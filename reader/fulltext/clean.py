"""Text from a paper's page made safe to print: escape sequences dropped whole, with their
payload (a window-title sequence leaves nothing of itself), then every control, bidirectional
and invisible character (core/sanitize's list), and runs of whitespace made one space.

core/sanitize.clean_text drops the ESC alone and keeps the payload (`]0;title`): harmless in a
feed's one-line fields, but a page is long and its author chose every byte. Its way of joining
words (a list of them) would also take gigabytes for a 16 MB paragraph of one-letter words:
here each pass writes into one buffer as it goes."""

from __future__ import annotations

import io
import re

from reader.core.sanitize import UNSAFE_PATTERN

# ESC or its one-byte C1 form, then: CSI (parameters, intermediates, a final byte); OSC, DCS,
# SOS, PM or APC (a payload up to BEL or ST, or to the end of the text when never ended); or
# any other escape (intermediates and a final byte). A lone ESC goes too; then every unsafe
# character.
_DROPPED = re.compile(
    r"""
    (?:\x1b\[|\x9b) [\x30-\x3f]* [\x20-\x2f]* [\x40-\x7e]?
  | (?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f]) [^\x07\x1b\x9c]* (?:\x07|\x1b\\|\x9c)?
  | \x1b [\x20-\x2f]* [\x30-\x7e]?
  | """
    + UNSAFE_PATTERN,
    re.VERBOSE,
)
_SPACES = re.compile(r"\s{2,}|[^\S ]")  # what is not already a single plain space


def _replaced(pattern: re.Pattern[str], text: str, replacement: str) -> str:
    """pattern.sub(replacement, text), written into one buffer (re.sub gathers a list of every
    piece first: millions of them for a hostile text)."""
    out = io.StringIO()
    position = 0
    for match in pattern.finditer(text):
        out.write(text[position : match.start()])
        out.write(replacement)
        position = match.end()
    if not position:
        return text
    out.write(text[position:])
    return out.getvalue()


def printable(text: str) -> str:
    """One line of plain text: no escape sequence, control, bidi or invisible character, runs of
    whitespace as one space, no space at either end. Linear in the text's length."""
    if not text.isprintable():
        text = _replaced(_DROPPED, text, "")
    return _replaced(_SPACES, text, " ").strip(" ")


# LaTeXML wraps a long formula's TeX with a comment: `%`, a newline, indentation. Left in, pasted
# TeX would lose the rest of its line to the comment. A `%` after an odd run of backslashes is
# a percent sign (`50\%`), kept.
_TEX_LINE_BREAK = re.compile(r"(?<!\\)((?:\\\\)*)%\n[ \t]*")
# What LaTeXML writes after each `\color` when pgf is loaded: the stroke colour's definition and
# pgf's driver calls (`\pgfsys@color@rgb@fill{1}{0}{0}`), which no pasted formula can use.
_PGF_STROKE = re.compile(r"\\definecolor\[named\]\{pgfstrokecolor\}\{[^{}]*\}\{[^{}]*\}|\\pgfsys@color@[a-z@]+(?:\{[^{}]*\})+")
_DISPLAY_STYLE = re.compile(r"^\\displaystyle(?![A-Za-z])\s*")


def tex(alttext: str, *, cell: bool = False) -> str:
    """A formula's TeX (LaTeXML's `alttext`) as one printable line that pastes back whole;
    `cell`: a cell of an aligned row, without the `\\displaystyle` LaTeXML puts before each."""
    text = _PGF_STROKE.sub("", _TEX_LINE_BREAK.sub(r"\1", alttext)) if "%" in alttext or "pgf" in alttext else alttext
    text = printable(text)
    return _DISPLAY_STYLE.sub("", text) if cell else text
