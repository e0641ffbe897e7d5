"""The text-mode TeX arXiv's metadata uses (`\\"u`, `{\\o}`, `\\emph{x}`, `\\&`) as Unicode;
math is core/texmath.py's. Anything else stays as typed: an unknown command, a brace, a `%`.

Our own, not pylatexenc's latex2text, which drops the text after a `%` (`100% sure` -> `100`), an
unknown command with its argument (`\\input{x}` -> nothing) and the braces BibTeX escaping keeps
(8 of the BibTeX tests fail with it), and is 33 times slower (10,000 titles: 1.4 s, 47.7 s)."""

from __future__ import annotations

import re

from reader.core.latex_chars import ACCENT_COMMANDS, LETTER_COMMANDS, with_mark

# TeX that arXiv authors write in titles and names, decoded to Unicode before escaping.
# An accent command and its letter, optionally inside one pair of braces: `\"u`, `{\'e}`, `\c{c}`,
# `\c c`. A letter accent needs a brace or a space before its letter: `\csname` is one control
# word, not `\c` + `s`, and stays as typed (then escaped as text).
_ACCENTED_LETTER = r"(?:\\[ij](?![A-Za-z])|[A-Za-z])"
_SIGN_ACCENTS = re.escape("".join(command for command in ACCENT_COMMANDS if not command.isalpha()))  # `\"u`, `\'e`
_LETTER_ACCENTS = "".join(command for command in ACCENT_COMMANDS if command.isalpha())  # `\c{c}`, `\v s`
_TEX_ACCENT = re.compile(
    rf"(\{{)?\\(?:([{_SIGN_ACCENTS}])\s*|([{_LETTER_ACCENTS}])(?=[\s{{\\])\s*)"
    rf"(?:\{{\s*({_ACCENTED_LETTER})\s*\}}|({_ACCENTED_LETTER}))(?(1)\}})"
)
_TEX_LETTER = re.compile(rf"(\{{)?\\({'|'.join(LETTER_COMMANDS)})(?![A-Za-z])(?(1)\s*\}})")
_TEX_STYLE = re.compile(r"\\(?:emph|textit|textbf|textsc|texttt|textrm|mathrm)\s*\{([^{}]*)\}")
_TEX_ESCAPED = re.compile(r"\\([&%$#_{}])")


def decode_tex(text: str) -> str:
    """Turn the text-mode TeX arXiv metadata uses into Unicode (math is handled separately)."""
    if "\\" not in text:
        return text

    def accent(match: re.Match) -> str:
        letter = (match.group(4) or match.group(5)).lstrip("\\")
        return with_mark(letter, ACCENT_COMMANDS[match.group(2) or match.group(3)])

    text = _TEX_STYLE.sub(r"\1", text)
    text = _TEX_ACCENT.sub(accent, text)
    text = _TEX_LETTER.sub(lambda m: LETTER_COMMANDS[m.group(2)], text)
    return _TEX_ESCAPED.sub(r"\1", text)
