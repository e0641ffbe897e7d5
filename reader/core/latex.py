"""Text from a feed as LaTeX that prints exactly what the feed said and can run nothing.

- `& % # _ $` are escaped; `~ ^ \\ < > |` and lone braces become text commands; control characters,
  bidi controls and zero-width characters are dropped;
- arXiv's TeX math (`$O(N)$`) stays math when it holds only harmless math (see `harmless_math`),
  braced so styles do not lowercase it; any other span is escaped text;
- TeX accents (`\\"u`) are read, and accented letters written as brace-wrapped accent commands
  (`{\\"u}`, `{\\o}`), so bibtex sees one letter;
- scripts pdflatex cannot typeset (CJK, Cyrillic, Arabic, ...) are transliterated with anyascii
  (张伟 -> Zhang Wei), unless `unicode=True` keeps every non-ASCII character as UTF-8 for
  biber/xelatex/lualatex users;
- with `protect_case`, words whose capitals a sentence-case style must keep are braced: any
  capitalised word but the first (Gaussian, Bertrand-Nash), any word with a capital after its
  first letter (BERT, GPT-4, ImageNet), a single capital letter (Q-learning).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from anyascii import anyascii

# Combining marks -> the accent command that draws them.
ACCENTS = {
    "\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~", "\u0304": "=", "\u0306": "u", "\u0307": ".",
    "\u0308": '"', "\u030a": "r", "\u030b": "H", "\u030c": "v", "\u0327": "c", "\u0328": "k", "\u0323": "d",
    "\u0331": "b",
}
LETTERS = {
    "ø": r"{\o}", "Ø": r"{\O}", "ß": r"{\ss}", "æ": r"{\ae}", "Æ": r"{\AE}", "œ": r"{\oe}", "Œ": r"{\OE}",
    "ł": r"{\l}", "Ł": r"{\L}", "ı": r"{\i}", "đ": "d", "Đ": "D", "ð": "d", "þ": "th", "Þ": "Th",
    "–": "--", "—": "---", "‘": "`", "’": "'", "“": "``", "”": "''", "„": ",,", "…": r"\ldots{}",
    "°": r"\textdegree{}", "·": r"\textperiodcentered{}", "•": r"\textbullet{}", "§": r"\S{}", "¶": r"\P{}",
    "©": r"\copyright{}", "€": "EUR", "£": r"\pounds{}", "−": "-", "‐": "-", "‑": "-", "′": "'", "″": "''",
    "«": "<<", "»": ">>",
}
GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta", "η": "eta", "θ": "theta",
    "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma",
    "τ": "tau", "υ": "upsilon", "φ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega", "Γ": "Gamma", "Δ": "Delta",
    "Θ": "Theta", "Λ": "Lambda", "Ξ": "Xi", "Π": "Pi", "Σ": "Sigma", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega",
}
# Unicode symbols with a math command of their own: typeset as `$\cmd$` in text, `\cmd` in math.
MATH_SYMBOLS = {
    "×": "times", "±": "pm", "≤": "leq", "≥": "geq", "≠": "neq", "≈": "approx", "≡": "equiv", "∼": "sim",
    "→": "rightarrow", "←": "leftarrow", "↔": "leftrightarrow", "⇒": "Rightarrow", "∞": "infty", "∈": "in",
    "∉": "notin", "⊂": "subset", "⊆": "subseteq", "∪": "cup", "∩": "cap", "∑": "sum", "∏": "prod", "∫": "int",
    "∂": "partial", "∇": "nabla", "∀": "forall", "∃": "exists", "ℓ": "ell", "⊗": "otimes", "⊕": "oplus",
    "⟨": "langle", "⟩": "rangle", "∘": "circ", "√": "surd",
}
TEXT_SPECIALS = {
    "&": r"\&", "%": r"\%", "#": r"\#", "_": r"\_", "$": r"\$", "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}", "\\": r"\textbackslash{}", "<": r"\textless{}", ">": r"\textgreater{}",
    "|": r"\textbar{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}",
}
KEPT_MACROS = {"LaTeX": r"{\LaTeX}", "TeX": r"{\TeX}", "BibTeX": r"{BibTeX}"}

# TeX that arXiv authors write in titles and names, decoded to Unicode before escaping.
# An accent command and its letter, optionally inside one pair of braces: `\"u`, `{\'e}`, `\c{c}`,
# `\c c`. A letter accent needs a brace or a space before its letter: `\csname` is one control
# word, not `\c` + `s`, and stays as typed (then escaped as text).
_ACCENTED_LETTER = r"(?:\\[ij](?![A-Za-z])|[A-Za-z])"
_TEX_ACCENT = re.compile(
    r"(\{)?\\(?:([`'^\"~=.])\s*|([uvHckrdb])(?=[\s{\\])\s*)"
    rf"(?:\{{\s*({_ACCENTED_LETTER})\s*\}}|({_ACCENTED_LETTER}))(?(1)\}})"
)
_TEX_LETTER = re.compile(r"(\{)?\\(o|O|l|L|ss|ae|AE|oe|OE|aa|AA|i|j)(?![A-Za-z])(?(1)\s*\})")
_TEX_STYLE = re.compile(r"\\(?:emph|textit|textbf|textsc|texttt|textrm|mathrm)\s*\{([^{}]*)\}")
_TEX_ESCAPED = re.compile(r"\\([&%$#_{}])")
_MATH = re.compile(r"\$(?!\s)([^$]+?)(?<!\s)\$")
_TEX_LETTERS = {"o": "ø", "O": "Ø", "l": "ł", "L": "Ł", "ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å", "i": "ı", "j": "ȷ"}
_ACCENT_MARKS = {cmd: mark for mark, cmd in ACCENTS.items()}
_PUNCTUATION = "()[].,;:!?\"'"


def decode_tex(text: str) -> str:
    """Turn the text-mode TeX arXiv metadata uses into Unicode (math is handled separately)."""
    if "\\" not in text:
        return text

    def accent(match: re.Match) -> str:
        letter = (match.group(4) or match.group(5)).lstrip("\\")
        return unicodedata.normalize("NFC", letter + _ACCENT_MARKS[match.group(2) or match.group(3)])

    text = _TEX_STYLE.sub(r"\1", text)
    text = _TEX_ACCENT.sub(accent, text)
    text = _TEX_LETTER.sub(lambda m: _TEX_LETTERS[m.group(2)], text)
    return _TEX_ESCAPED.sub(r"\1", text)


def is_syllable(ch: str) -> bool:
    """A Han ideograph or a Hangul syllable: one word-like syllable each (张 -> Zhang), so
    transliterations of two in a row need a space between them."""
    return not ch.isascii() and unicodedata.name(ch, "").startswith(("CJK UNIFIED IDEOGRAPH", "HANGUL SYLLABLE"))


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
    return _by_character(text, anyascii)


def _char(ch: str, unicode: bool) -> str:
    """One character of text as LaTeX that pdflatex (OT1 or T1) typesets without extra packages,
    or, with `unicode`, as the UTF-8 character itself."""
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
    if ch in GREEK:
        return f"$\\{GREEK[ch]}$"
    if ch in MATH_SYMBOLS:
        return f"$\\{MATH_SYMBOLS[ch]}$"
    decomposed = unicodedata.normalize("NFD", ch)
    base, marks = decomposed[0], decomposed[1:]
    if base.isascii() and base.isalpha() and marks and all(m in ACCENTS for m in marks):
        out = r"\i" if base == "i" else (r"\j" if base == "j" else base)
        for mark in marks:
            command = ACCENTS[mark]
            out = f"\\{command}{{{out}}}" if command.isalpha() else f"\\{command}{out if len(out) == 1 else '{' + out + '}'}"
        return "{" + out + "}"
    return "".join(TEXT_SPECIALS.get(c, c) for c in anyascii(ch) if c.isprintable())


def escape_plain(text: str, *, unicode: bool = False) -> str:
    """Every character of `text` as text (no math, no case protection)."""
    if unicode:
        return "".join(_char(ch, True) for ch in unicodedata.normalize("NFC", text))
    return _by_character(text, lambda ch: _char(ch, False))


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


# Math that can only typeset: these commands, letters, digits, operators, sub/superscripts,
# braces. Anything else in a `$...$` span (\input, \write, \csname, \catcode, `^^` escapes,
# `#`, `%`, `&`, `~`, a line break) turns the whole span into escaped text, so a feed can never
# run TeX.
MATH_COMMANDS = frozenset(
    set(GREEK.values()) | set(MATH_SYMBOLS.values())
    | {"varepsilon", "vartheta", "varphi", "varpi", "varrho", "varsigma", "ell", "hbar", "nabla", "partial", "infty"}
    | {"mathcal", "mathbb", "mathrm", "mathbf", "mathit", "mathsf", "mathtt", "mathfrak", "boldsymbol", "text",
       "textrm", "operatorname", "bar", "hat", "tilde", "vec", "dot", "ddot", "overline", "underline", "widehat",
       "widetilde"}
    | {"frac", "dfrac", "tfrac", "sqrt", "binom", "log", "ln", "exp", "sin", "cos", "tan", "min", "max", "arg",
       "argmin", "argmax", "sup", "inf", "lim", "det", "dim", "ker", "deg", "Pr", "sum", "prod", "int", "oint",
       "bigcup", "bigcap", "coprod"}
    | {"le", "leq", "ge", "geq", "neq", "ne", "approx", "sim", "simeq", "equiv", "propto", "times", "cdot",
       "cdots", "ldots", "dots", "vdots", "ddots", "pm", "mp", "div", "ast", "star", "circ", "bullet", "to",
       "rightarrow", "leftarrow", "leftrightarrow", "Rightarrow", "Leftarrow", "Leftrightarrow", "mapsto",
       "gets", "in", "notin", "ni", "subset", "subseteq", "supset", "supseteq", "cup", "cap", "setminus",
       "emptyset", "forall", "exists", "neg", "land", "lor", "wedge", "vee", "oplus", "otimes", "perp",
       "parallel", "mid", "ll", "gg", "langle", "rangle", "lfloor", "rfloor", "lceil", "rceil", "left", "right",
       "big", "Big", "bigl", "bigr", "Bigl", "Bigr", "prime", "dagger", "top", "quad", "qquad"}
)
_MATH_TOKEN = re.compile(r"\\([A-Za-z]+|.)|(\^\^)|([#%&~])")
_MATH_SPACING = frozenset(",;:! {}|")  # `\,` `\{` ...: spacing and escaped braces


def harmless_math(content: str) -> bool:
    """Whether a math span holds only what typesets (see MATH_COMMANDS): printable ASCII, and
    Greek letters and symbols that have a math command."""
    if any(not (ch.isascii() and ch.isprintable()) and ch not in GREEK and ch not in MATH_SYMBOLS for ch in content):
        return False
    for match in _MATH_TOKEN.finditer(content):
        command, hat, special = match.groups()
        if hat or special:
            return False
        if command and not (command in MATH_COMMANDS or command in _MATH_SPACING):
            return False
    return True


def _math(content: str) -> str:
    """Inline math kept as math; its Unicode letters and symbols become their math commands."""
    symbols = GREEK | MATH_SYMBOLS
    return "{$" + "".join(f"\\{symbols[ch]} " if ch in symbols else ch for ch in content) + "$}"


def escape_text(text: str, *, protect_case: bool = False, unicode: bool = False) -> str:
    """A title, journal reference or note as a BibTeX field value (without the outer braces)."""
    pieces = []
    position = 0
    for match in _MATH.finditer(text):
        if not _balanced(match.group(1)) or "\\$" in match.group(0) or not harmless_math(match.group(1)):
            continue  # left to the text path: every character escaped
        pieces.append((False, text[position : match.start()]))
        pieces.append((True, match.group(1)))
        position = match.end()
    pieces.append((False, text[position:]))
    out = []
    first = True
    for is_math, piece in pieces:
        if is_math:
            out.append(_math(piece))
            first = False
            continue
        piece = decode_tex(piece)
        for token in re.split(r"(\s+)", piece):
            if not token:
                continue
            if token.isspace():
                out.append(" ")
                continue
            core = token.strip(_PUNCTUATION)
            lead = token[: len(token) - len(token.lstrip(_PUNCTUATION))]
            trail = token[len(lead) + len(core) :]
            if core.startswith("\\") and core[1:] in KEPT_MACROS:
                escaped = KEPT_MACROS[core[1:]]
            else:
                escaped = escape_plain(core, unicode=unicode)
                # Decided on what bibtex will see: 张伟 becomes the capitalised `Zhang Wei`.
                # `first` only when the word starts the title: after a `(` the styles lowercase it.
                if protect_case and _protect(core if unicode else transliterate(core), first and not lead):
                    escaped = "{" + escaped + "}"
            out.append(escape_plain(lead, unicode=unicode) + escaped + escape_plain(trail, unicode=unicode))
            first = False
    return "".join(out).strip()
