"""Text from a feed as LaTeX that prints exactly what the feed said and can run nothing.

- `& % # _ $` are escaped; `~ ^ \\ < > |` and lone braces become text commands; control characters,
  bidi controls and zero-width characters are dropped;
- arXiv's TeX math (`$O(N)$`) stays math when it holds only harmless math (see core/latex_math.py),
  braced so styles do not lowercase it; any other span is escaped text;
- TeX accents (`\\"u`) are read (core/tex_decode.py), and accented letters written as
  brace-wrapped accent commands (`{\\"u}`, `{\\o}`, `{\\'i}` on the plain i), so bibtex sees one
  letter and biber reads it;
- `\\LaTeX`, `\\TeX` (also `\\LaTeX{}`, `{\\LaTeX}`) are the logos, `{\\LaTeX}`;
- scripts pdflatex cannot typeset (CJK, Cyrillic, Greek, Arabic, ...) are transliterated with
  anyascii (core/writing_systems.py: 张伟 -> Zhang Wei, Νίκος -> Nikos; a lone Greek letter in a
  title or note is math), unless `unicode=True` keeps every non-ASCII character as UTF-8 for
  biber/xelatex/lualatex users;
- with `protect_case` (a title), words whose capitals a sentence-case style must keep are braced:
  any capitalised word but the first (Gaussian, Bertrand-Nash), a first word whose capital is not
  the title's first character (`\\#{MeToo}`), any word with a capital after its first letter
  (BERT, GPT-4, ImageNet), a single capital letter (Q-learning); and braces the authors balanced
  stay grouping (see escape_text).

Each character's LaTeX is core/latex_chars.py's.
"""

from __future__ import annotations

import re
import unicodedata

from anyascii import anyascii

from reader.core.latex_chars import ACCENTS, GREEK, LETTERS, MATH_SYMBOLS, TEXT_SPECIALS
from reader.core.latex_math import harmless_math, math_as_latex
from reader.core.tex_decode import decode_tex
from reader.core.writing_systems import is_greek, is_syllable, transliterate


def _char(ch: str, unicode: bool) -> str:
    """One character of text as LaTeX that pdflatex (OT1 or T1) typesets without extra packages,
    or, with `unicode`, as the UTF-8 character itself. Greek is transliterated here (a lone
    Greek letter in a title is math: see escape_plain)."""
    if ch in TEXT_SPECIALS:
        return TEXT_SPECIALS[ch]
    if ch.isascii():
        if ch.isprintable():
            return ch
        return " " if ch.isspace() else ""  # a form feed is \par to LaTeX, DEL an invalid character
    category = unicodedata.category(ch)
    if category.startswith("Z"):
        return "~" if ch == "\u00a0" else " "
    if category.startswith("C"):
        return ""  # C1 controls, bidi overrides, zero-width and private-use characters
    if unicode:
        return ch
    if ch in LETTERS:
        return LETTERS[ch]
    if ch in MATH_SYMBOLS:
        return f"$\\{MATH_SYMBOLS[ch]}$"
    decomposed = unicodedata.normalize("NFD", ch)
    base, marks = decomposed[0], decomposed[1:]
    if base.isascii() and base.isalpha() and marks and all(m in ACCENTS for m in marks):
        # On the plain letter, i and j too: `{\'i}` is í to OT1 and T1 alike, bibtex purifies it
        # to i, and biber reads í (it reads `\'{\i}` as a dotless ı with a loose accent).
        out = base
        for mark in marks:
            command = ACCENTS[mark]
            out = f"\\{command}{{{out}}}" if command.isalpha() else f"\\{command}{out if len(out) == 1 else '{' + out + '}'}"
        return "{" + out + "}"
    return "".join(TEXT_SPECIALS.get(c, c) for c in anyascii(ch) if c.isprintable())


_ASCII_TO_ESCAPE = re.compile(r"[&%#_$~^\\<>|{}\x00-\x1f\x7f]")


def escape_plain(text: str, *, unicode: bool = False, greek_math: bool = False) -> str:
    """Every character of `text` as text (no case protection). Greek is transliterated like any
    script (Νίκος -> Nikos), but with `greek_math` a lone Greek letter, one with no Greek letter
    beside it (α-divergence, ΛCDM), is that letter in math."""
    if text.isascii() and not _ASCII_TO_ESCAPE.search(text):
        return text  # most words: nothing to do
    if unicode:
        return "".join(_char(ch, True) for ch in unicodedata.normalize("NFC", text))
    out = []
    previous = False
    for i, ch in enumerate(text):
        syllable = is_syllable(ch)
        if syllable and previous:
            out.append(" ")  # 张伟 -> Zhang Wei
        if greek_math and ch in GREEK and not any(is_greek(text[j]) for j in (i - 1, i + 1) if 0 <= j < len(text)):
            out.append(f"$\\{GREEK[ch]}$")
        else:
            out.append(_char(ch, False))
        previous = syllable
    return "".join(out)


def _protect(word: str, first: bool) -> bool:
    """Would a sentence-case style (plain, unsrt, alpha) wrongly lowercase this word? Any capitalised
    word but the title's first (Gaussian, Bertrand-Nash), and anywhere a word with a capital after
    its first letter (BERT, GPT-4, ImageNet, Bertrand-Nash: the styles keep only the title's very
    first letter) or a single capital letter (Q-learning)."""
    for index, part in enumerate(re.split(r"[-/]", word)):
        letters = [c for c in part if c.isalpha()]
        if not letters:
            continue
        if any(c.isupper() for c in letters[1:]) or (len(letters) == 1 and letters[0].isupper()):
            return True
        if letters[0].isupper() and (index > 0 or not first):
            return True
    return False


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


# The TeX logos as authors write them (`\LaTeX`, `\LaTeX{}`, `{\LaTeX}`, `\LaTeX\ `): braced, so no
# style lowercases them (`{\LaTeX}` is one special character to bibtex, whose name it leaves alone).
LOGOS = {"LaTeX": r"{\LaTeX}", "LaTeXe": r"{\LaTeXe}", "TeX": r"{\TeX}", "BibTeX": "{BibTeX}"}
_LOGO = re.compile(r"\{\s*\\(LaTeXe|LaTeX|TeX|BibTeX)\s*\}|\\(LaTeXe|LaTeX|TeX|BibTeX)(?![A-Za-z])(?:\s*\{\}|\\(?=\s))?")
# A `$...$` span of inline math, as arXiv's feed writes it.
_MATH = re.compile(r"\$(?!\s)([^$]+?)(?<!\s)\$")
# A brace the author escaped (`\{`) is text, set apart from the braces that may group.
_TEXT_LEFT, _TEXT_RIGHT = "\x0e", "\x0f"


def escape_text(text: str, *, protect_case: bool = False, unicode: bool = False) -> str:
    """A title (`protect_case`), journal reference or note as a BibTeX field value (without the
    outer braces). In a title, braces the authors balanced stay grouping: `{Strong}` prints
    Strong and keeps its capital. A brace that does not balance, or follows a command (`\\input{x}`),
    and every brace of a math span that is not harmless, is printed as written."""
    text = text.replace(_TEXT_LEFT, "").replace(_TEXT_RIGHT, "")
    out: list[str] = []
    first = True
    for kind, piece in _pieces(text):
        if kind == "math":
            out.append(math_as_latex(piece))
        elif kind == "logo":
            out.append(LOGOS[piece])
        else:
            grouping = protect_case and kind == "text"
            if grouping:
                piece = piece.replace("\\{", _TEXT_LEFT).replace("\\}", _TEXT_RIGHT)
            first = _escape_words(decode_tex(piece), out, first=first, protect_case=protect_case, grouping=grouping, unicode=unicode)
            continue
        first = False
    return "".join(out).strip()


def _pieces(text: str) -> list[tuple[str, str]]:
    """(kind, text): harmless math ("math", its content), a TeX logo ("logo", its name), text
    ("text"), and a math span that is not harmless ("literal": printed as written)."""
    pieces: list[tuple[str, str]] = []
    position = 0

    def text_until(end: int) -> None:
        at = position
        for logo in _LOGO.finditer(text, position, end):
            pieces.append(("text", text[at : logo.start()]))
            pieces.append(("logo", logo.group(1) or logo.group(2)))
            at = logo.end()
        pieces.append(("text", text[at:end]))

    for match in _MATH.finditer(text):
        text_until(match.start())
        if not _balanced(match.group(1)) or "\\$" in match.group(0) or not harmless_math(match.group(1)):
            pieces.append(("literal", match.group(0)))  # every character escaped
        else:
            pieces.append(("math", match.group(1)))
        position = match.end()
    text_until(len(text))
    return [(kind, piece) for kind, piece in pieces if piece]


def _brace_roles(text: str) -> set[int]:
    """The positions of the braces that group: each `{` with its matching `}`, unless the `{`
    follows a command (`\\input{x}`, `\\write18{x}`) or a pair printed as text (`\\frac{a}{b}`)."""
    grouping: set[int] = set()
    printed_closes: set[int] = set()
    opened: list[int] = []
    for i, ch in enumerate(text):
        if ch == "{":
            opened.append(i)
        elif ch == "}" and opened:
            start = opened.pop()
            if _after_command(text, start) or start - 1 in printed_closes:
                printed_closes.add(i)
            else:
                grouping.update((start, i))
    return grouping


def _after_command(text: str, brace: int) -> bool:
    """Whether the `{` at `brace` follows a command's name, spaces between: `\\input {`, `\\write18{`."""
    i = brace - 1
    while i >= 0 and text[i].isspace():
        i -= 1
    while i >= 0 and not (text[i].isspace() or text[i] in "{}"):
        if text[i] == "\\":
            return True
        i -= 1
    return False


def _escape_words(text: str, out: list[str], *, first: bool, protect_case: bool, grouping: bool, unicode: bool) -> bool:
    """Append the words of `text` (TeX accents decoded) to `out`, escaped; returns whether the
    next word would still be the title's first."""
    groups = _brace_roles(text) if grouping and "{" in text else set()
    for word, start in _words(text, groups):
        if word.isspace():
            out.append(" ")
            continue
        if groups and any(position in groups for position in range(start, start + len(word))):
            escaped, outside = _grouped(word, start, groups, unicode)
            lead = _split_word(outside)[0]
            plain = _text_braces(outside)
        else:
            lead, core, trail = _split_word(_text_braces(word))
            escaped = escape_plain(core, unicode=unicode, greek_math=True)
            if protect_case and _protect(core if unicode else transliterate(core), first and not lead):
                escaped = _braced(escaped)
            out.append(_escaped_marks(lead, unicode) + escaped + _escaped_marks(trail, unicode))
            first = False
            continue
        # Decided on what bibtex will see: 张伟 becomes the capitalised `Zhang Wei`.
        if protect_case and _protect(plain if unicode else transliterate(plain), first and not lead):
            escaped = _braced(escaped)
        out.append(escaped)
        first = False
    return first


def _split_word(word: str) -> tuple[str, str, str]:
    """(leading punctuation, the word, trailing punctuation): `(`, `BERT`, `),`."""
    start, end = 0, len(word)
    while start < end and not (word[start].isalnum() or word[start] == "_"):
        start += 1
    while end > start and not (word[end - 1].isalnum() or word[end - 1] == "_"):
        end -= 1
    return word[:start], word[start:end], word[end:]


def _text_braces(text: str) -> str:
    if _TEXT_LEFT not in text and _TEXT_RIGHT not in text:
        return text
    return text.replace(_TEXT_LEFT, "{").replace(_TEXT_RIGHT, "}")


def _escaped_marks(text: str, unicode: bool) -> str:
    return escape_plain(_text_braces(text), unicode=unicode, greek_math=True)


_SPACES = re.compile(r"(\s+)")


def _words(text: str, groups: set[int]) -> list[tuple[str, int]]:
    """`text` split at the spaces outside groups: (word or space, where it starts)."""
    if not groups:
        found, at = [], 0
        for part in _SPACES.split(text):
            if part:
                found.append((" " if part.isspace() else part, at))
            at += len(part)
        return found
    words: list[tuple[str, int]] = []
    depth = start = 0
    for i, ch in enumerate(text):
        if i in groups:
            depth += 1 if ch == "{" else -1
        elif ch.isspace() and depth == 0:
            if start < i:
                words.append((text[start:i], start))
            if not words or not words[-1][0].isspace():
                words.append((" ", i))
            start = i + 1
    if start < len(text):
        words.append((text[start:], start))
    return words


def _grouped(word: str, start: int, groups: set[int], unicode: bool) -> tuple[str, str]:
    """A word holding the author's groups: (escaped, the text case protection looks at). A group whose text would start with a command is braced twice: bibtex
    reads `{\\#MeToo}` as one special character and lowercases its letters."""
    out: list[str] = []
    opened: list[int] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            out.append(_escaped_marks("".join(run), unicode))
            run.clear()

    for i, ch in enumerate(word):
        if start + i not in groups:
            run.append(ch)
            continue
        flush()
        if ch == "{":
            opened.append(len(out))
            out.append("{")
        else:
            at = opened.pop()
            first = at + 1  # the group's first piece of text decides
            while first < len(out) and not out[first]:
                first += 1
            if first < len(out) and out[first].startswith("\\"):
                out[at] = "{{"
                out.append("}}")
            else:
                out.append("}")
    flush()
    # What case protection looks at: the text outside the groups (already protected), each
    # group a digit: `{GPT}-4` needs nothing more, `{GPT}-Based` does.
    outside, depth = [], 0
    for i, ch in enumerate(word):
        if start + i in groups:
            if ch == "{" and depth == 0:
                outside.append("0")
            depth += 1 if ch == "{" else -1
        elif depth == 0:
            outside.append(ch)
    return "".join(out), "".join(outside)


def _braced(escaped: str) -> str:
    """Braces that protect case: doubled when the text starts with a command (see _grouped)."""
    return "{{" + escaped + "}}" if escaped.startswith("\\") else "{" + escaped + "}"
