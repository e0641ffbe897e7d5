"""The math of a feed's `$...$` span that may stay math in a BibTeX entry: only what can typeset
(see MATH_COMMANDS), written with its Unicode letters and symbols as their math commands."""

from __future__ import annotations

import re

from reader.core.latex_chars import GREEK, MATH_SYMBOLS

# Math that can only typeset: these commands, letters, digits, operators, sub/superscripts,
# braces. Anything else in a `$...$` span (\input, \write, \csname, \catcode, `^^` escapes,
# `#`, `%`, `&`, `~`, a line break) turns the whole span into escaped text, so a feed can never
# run TeX.
MATH_COMMANDS = frozenset(
    set(GREEK.values())
    | set(MATH_SYMBOLS.values())
    | {"varepsilon", "vartheta", "varphi", "varpi", "varrho", "varsigma", "ell", "hbar", "nabla", "partial", "infty"}
    | {
        "mathcal",
        "mathbb",
        "mathrm",
        "mathbf",
        "mathit",
        "mathsf",
        "mathtt",
        "mathfrak",
        "boldsymbol",
        "text",
        "textrm",
        "operatorname",
        "bar",
        "hat",
        "tilde",
        "vec",
        "dot",
        "ddot",
        "overline",
        "underline",
        "widehat",
        "widetilde",
    }
    | {
        "frac",
        "dfrac",
        "tfrac",
        "sqrt",
        "binom",
        "log",
        "ln",
        "exp",
        "sin",
        "cos",
        "tan",
        "min",
        "max",
        "arg",
        "argmin",
        "argmax",
        "sup",
        "inf",
        "lim",
        "det",
        "dim",
        "ker",
        "deg",
        "Pr",
        "sum",
        "prod",
        "int",
        "oint",
        "bigcup",
        "bigcap",
        "coprod",
    }
    | {
        "le",
        "leq",
        "ge",
        "geq",
        "neq",
        "ne",
        "approx",
        "sim",
        "simeq",
        "equiv",
        "propto",
        "times",
        "cdot",
        "cdots",
        "ldots",
        "dots",
        "vdots",
        "ddots",
        "pm",
        "mp",
        "div",
        "ast",
        "star",
        "circ",
        "bullet",
        "to",
        "rightarrow",
        "leftarrow",
        "leftrightarrow",
        "Rightarrow",
        "Leftarrow",
        "Leftrightarrow",
        "mapsto",
        "gets",
        "in",
        "notin",
        "ni",
        "subset",
        "subseteq",
        "supset",
        "supseteq",
        "cup",
        "cap",
        "setminus",
        "emptyset",
        "forall",
        "exists",
        "neg",
        "land",
        "lor",
        "wedge",
        "vee",
        "oplus",
        "otimes",
        "perp",
        "parallel",
        "mid",
        "ll",
        "gg",
        "langle",
        "rangle",
        "lfloor",
        "rfloor",
        "lceil",
        "rceil",
        "left",
        "right",
        "big",
        "Big",
        "bigl",
        "bigr",
        "Bigl",
        "Bigr",
        "prime",
        "dagger",
        "top",
        "quad",
        "qquad",
    }
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


def math_as_latex(content: str) -> str:
    """Inline math kept as math; its Unicode letters and symbols become their math commands."""
    symbols = GREEK | MATH_SYMBOLS
    return "{$" + "".join(f"\\{symbols[ch]} " if ch in symbols else ch for ch in content) + "$}"
