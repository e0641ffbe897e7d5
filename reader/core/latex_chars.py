"""How characters are written in LaTeX: accents as their commands, letters and punctuation
pdflatex has a command for, Greek letters and symbols as math commands, the ASCII characters TeX
gives a meaning to. Read both ways: escaping text (core/latex.py) and decoding TeX (core/tex_decode.py)."""

from __future__ import annotations

import unicodedata

# Each table: a command's name -> the Unicode it stands for, the shape core/texmath.py's are in;
# escaping reads them the other way round.
# Text accents -> the combining mark each draws (`\"u` -> u + U+0308).
ACCENT_COMMANDS = {
    "`": "\u0300",
    "'": "\u0301",
    "^": "\u0302",
    "~": "\u0303",
    "=": "\u0304",
    "u": "\u0306",
    ".": "\u0307",
    '"': "\u0308",
    "r": "\u030a",
    "H": "\u030b",
    "v": "\u030c",
    "c": "\u0327",
    "k": "\u0328",
    "d": "\u0323",
    "b": "\u0331",
}
# Letters with a text command of their own (`{\o}` -> ø).
LETTER_COMMANDS = {
    "o": "ø",
    "O": "Ø",
    "l": "ł",
    "L": "Ł",
    "ss": "ß",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "aa": "å",
    "AA": "Å",
    "i": "ı",
    "j": "ȷ",
}
_READ_ONLY = frozenset({"aa", "AA", "j"})  # read, never written: å by its accent (`\r{a}`), ȷ as j

# Combining marks -> the accent command that draws them.
ACCENTS = {mark: command for command, mark in ACCENT_COMMANDS.items()}
# Characters -> how text writes them.
LETTERS = {
    **{letter: f"{{\\{command}}}" for command, letter in LETTER_COMMANDS.items() if command not in _READ_ONLY},
    "đ": "d",
    "Đ": "D",
    "ð": "d",
    "þ": "th",
    "Þ": "Th",
    "–": "--",
    "—": "---",
    "‘": "`",
    "’": "'",
    "“": "``",
    "”": "''",
    "„": ",,",
    "…": r"\ldots{}",
    "°": r"\textdegree{}",
    "·": r"\textperiodcentered{}",
    "•": r"\textbullet{}",
    "§": r"\S{}",
    "¶": r"\P{}",
    "©": r"\copyright{}",
    "€": "EUR",
    "£": r"\pounds{}",
    "−": "-",
    "‐": "-",
    "‑": "-",
    "′": "'",
    "″": "''",
    "«": "<<",
    "»": ">>",
}
GREEK = {
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "δ": "delta",
    "ε": "epsilon",
    "ζ": "zeta",
    "η": "eta",
    "θ": "theta",
    "ι": "iota",
    "κ": "kappa",
    "λ": "lambda",
    "μ": "mu",
    "ν": "nu",
    "ξ": "xi",
    "π": "pi",
    "ρ": "rho",
    "σ": "sigma",
    "τ": "tau",
    "υ": "upsilon",
    "φ": "phi",
    "χ": "chi",
    "ψ": "psi",
    "ω": "omega",
    "Γ": "Gamma",
    "Δ": "Delta",
    "Θ": "Theta",
    "Λ": "Lambda",
    "Ξ": "Xi",
    "Π": "Pi",
    "Σ": "Sigma",
    "Φ": "Phi",
    "Ψ": "Psi",
    "Ω": "Omega",
}
# Unicode symbols with a math command of their own: typeset as `$\cmd$` in text, `\cmd` in math.
MATH_SYMBOLS = {
    "×": "times",
    "±": "pm",
    "≤": "leq",
    "≥": "geq",
    "≠": "neq",
    "≈": "approx",
    "≡": "equiv",
    "∼": "sim",
    "→": "rightarrow",
    "←": "leftarrow",
    "↔": "leftrightarrow",
    "⇒": "Rightarrow",
    "∞": "infty",
    "∈": "in",
    "∉": "notin",
    "⊂": "subset",
    "⊆": "subseteq",
    "∪": "cup",
    "∩": "cap",
    "∑": "sum",
    "∏": "prod",
    "∫": "int",
    "∂": "partial",
    "∇": "nabla",
    "∀": "forall",
    "∃": "exists",
    "ℓ": "ell",
    "⊗": "otimes",
    "⊕": "oplus",
    "⟨": "langle",
    "⟩": "rangle",
    "∘": "circ",
    "√": "surd",
}
TEXT_SPECIALS = {
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "_": r"\_",
    "$": r"\$",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
}


def with_mark(base: str, mark: str) -> str:
    """`base` with a combining mark, composed where Unicode has the letter (`u` + U+0308 -> ü)."""
    return unicodedata.normalize("NFC", base + mark)
