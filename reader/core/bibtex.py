"""BibTeX entries in arXiv's own shape, escaped so plain bibtex and pdflatex accept them.

What a title or a name says reaches the page unchanged:
- `& % # _ $` are escaped; `~ ^ \\ < > |` and lone braces become text commands;
- arXiv's TeX math (`$O(N)$`) stays math, braced so styles do not lowercase it;
- TeX accents and Unicode letters become brace-wrapped accent commands (`{\\"u}`, `{\\o}`);
- words with capitals after their first letter (BERT, GPT-4, ImageNet) and single capitals
  are braced, so sentence-case styles keep them; Title Case words are left to the style;
- authors are joined with ` and `; corporate names are braced; "et al." becomes `and others`.
Characters LaTeX cannot typeset without extra packages (CJK, emoji, ...) become `?`: the entry's
url still leads to the paper as written. Keys follow Google Scholar (surname, year, first
significant title word); colliding keys get a, b, c in order of first submission, so a paper
keeps its key when newer papers join the file.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from reader.models import VERSIONED_ID, Paper

STOP_WORDS = frozenset([
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "in", "into", "is", "it", "of", "on",
    "or", "over", "the", "this", "to", "towards", "via", "what", "when", "where", "which", "why", "with",
    "without", "do", "does", "can", "we", "our",
])
NAME_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
CORPORATE = re.compile(
    r"(?i)\b(collaboration|consortium|team|group|inc|ltd|university|institute|association|committee|project|"
    r"foundation|corporation|laboratory|lab|initiative|network|organization|organisation|society|council)\b"
)

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
    "\u00a0": "~", "\u2009": " ", "\u202f": " ", "×": r"$\times$", "±": r"$\pm$", "≤": r"$\leq$", "≥": r"$\geq$",
    "≈": r"$\approx$", "→": r"$\rightarrow$", "←": r"$\leftarrow$", "∞": r"$\infty$", "°": r"\textdegree{}",
    "·": r"\textperiodcentered{}", "•": r"\textbullet{}", "§": r"\S{}", "¶": r"\P{}", "©": r"\copyright{}",
    "€": "EUR", "£": r"\pounds{}", "−": "-", "‐": "-", "‑": "-", "′": "'", "″": "''", "«": "<<", "»": ">>",
}
GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ζ": "zeta", "η": "eta", "θ": "theta",
    "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma",
    "τ": "tau", "υ": "upsilon", "φ": "phi", "χ": "chi", "ψ": "psi", "ω": "omega", "Γ": "Gamma", "Δ": "Delta",
    "Θ": "Theta", "Λ": "Lambda", "Ξ": "Xi", "Π": "Pi", "Σ": "Sigma", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega",
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


def _char(ch: str) -> str:
    """One character of text as LaTeX that pdflatex (OT1 or T1) typesets without extra packages."""
    if ch in TEXT_SPECIALS:
        return TEXT_SPECIALS[ch]
    if ch.isascii() and not ch.isprintable():
        return " " if ch.isspace() else ""  # a form feed is \par to LaTeX, DEL an invalid character
    if ch.isascii():
        return ch
    if ch in LETTERS:
        return LETTERS[ch]
    if ch in GREEK:
        return f"$\\{GREEK[ch]}$"
    decomposed = unicodedata.normalize("NFD", ch)
    base, marks = decomposed[0], decomposed[1:]
    if base.isascii() and base.isalpha() and marks and all(m in ACCENTS for m in marks):
        out = r"\i" if base == "i" else (r"\j" if base == "j" else base)
        for mark in marks:
            command = ACCENTS[mark]
            out = f"\\{command}{{{out}}}" if command.isalpha() else f"\\{command}{out if len(out) == 1 else '{' + out + '}'}"
        return "{" + out + "}"
    if unicodedata.category(ch).startswith("Z"):
        return " "
    folded = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    if folded and all(c.isalnum() or c in " .-" for c in folded):
        return folded
    return "?"


def _escape_plain(text: str) -> str:
    return "".join(_char(ch) for ch in text)


def _protect(word: str) -> bool:
    """Would a sentence-case style wrongly lowercase this word? (BERT, GPT-4, ImageNet, Q-learning)"""
    for part in re.split(r"[-/]", word):
        letters = [c for c in part if c.isalpha()]
        if not letters:
            continue
        if any(c.isupper() for c in letters[1:]) or (len(letters) == 1 and letters[0].isupper()):
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
# `#`, `%`, `&`, `~`) turns the whole span into escaped text, so a feed can never run TeX.
MATH_COMMANDS = frozenset(
    set(GREEK.values())
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
       "big", "Big", "bigl", "bigr", "Bigl", "Bigr", "prime", "dagger", "top", "quad", "qquad", "mathcal"}
)
_MATH_TOKEN = re.compile(r"\\([A-Za-z]+|.)|(\^\^)|([#%&~])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # a line break in math ends it with an error
_MATH_SPACING = frozenset(",;:! {}|")  # `\,` `\{` ...: spacing and escaped braces


def harmless_math(content: str) -> bool:
    """Whether a math span holds only what typesets (see MATH_COMMANDS)."""
    if _CONTROL.search(content):
        return False
    for match in _MATH_TOKEN.finditer(content):
        command, hat, special = match.groups()
        if hat or special:
            return False
        if command and not (command in MATH_COMMANDS or command in _MATH_SPACING):
            return False
    return True


def _math(content: str) -> str:
    """Inline math kept as math: arXiv writes TeX; Unicode inside it is mapped or dropped."""
    out = []
    for ch in content:
        if ch.isascii():
            out.append(ch)
        elif ch in GREEK:
            out.append(f"\\{GREEK[ch]} ")
        elif ch in LETTERS and LETTERS[ch].startswith("$"):
            out.append(LETTERS[ch].strip("$") + " ")
        else:
            out.append("?")
    return "{$" + "".join(out) + "$}"


def escape_text(text: str, *, protect_case: bool = False) -> str:
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
    for is_math, piece in pieces:
        if is_math:
            out.append(_math(piece))
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
                escaped = _escape_plain(core)
                if protect_case and _protect(core):
                    escaped = "{" + escaped + "}"
            out.append(_escape_plain(lead) + escaped + _escape_plain(trail))
    return "".join(out).strip()


def _name(name: str) -> str:
    name = " ".join(decode_tex(name).split())
    escaped = _escape_plain(name)
    if CORPORATE.search(name) or "," in name or re.search(r"(?i)\band\b", name) or len(name.split()) > 5:
        return "{" + escaped + "}"  # one person to bibtex, never split into first and last names
    return escaped


def authors_field(paper: Paper) -> str:
    names, others = [], paper.extra_authors > 0
    for author in paper.authors:
        name = author.name
        if re.search(r"(?i)\bet\.?\s*al\b\.?", name):
            name = re.sub(r"(?i)\s*\bet\.?\s*al\b\.?", "", name).strip(" ,")
            others = True
        if name:
            names.append(_name(name))
    if not names:
        names.append("{Anonymous}")
    return " and ".join(names + (["others"] if others else []))


def _ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", decode_tex(text)).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9]", "", folded).lower()


def base_key(paper: Paper) -> str:
    """`vaswani2017attention`: first author's surname, year of v1, first significant title word."""
    surname = ""
    if paper.authors:
        parts = [p for p in decode_tex(paper.authors[0].name).split() if p.lower().strip(",") not in NAME_SUFFIXES]
        surname = _ascii_word(parts[-1]) if parts else ""
    words = [_ascii_word(w) for w in re.split(r"[\s\-/:]+", re.sub(r"\$[^$]*\$", " ", paper.title))]
    word = next((w for w in words if w and w not in STOP_WORDS), "")
    return (surname or "anon") + paper.published[:4] + word


def unique_keys(papers: Iterable[Paper]) -> dict[str, str]:
    """paper id -> key, unique case-insensitively; collisions get a, b, c by first submission."""
    groups: dict[str, list[Paper]] = {}
    for paper in papers:
        groups.setdefault(base_key(paper), []).append(paper)
    keys: dict[str, str] = {}
    taken = set(groups)
    for base, group in groups.items():
        group.sort(key=lambda p: (p.published, p.id))
        keys[group[0].id] = base
        suffixes = _suffixes()
        for paper in group[1:]:
            key = base + next(suffixes)
            while key in taken:
                key = base + next(suffixes)
            taken.add(key)
            keys[paper.id] = key
    return keys


def _suffixes():
    letters = "abcdefghijklmnopqrstuvwxyz"
    for a in letters:
        yield a
    for a in letters:
        for b in letters:
            yield a + b


# Fields that are not free text must have their own shape, or they are left out.
_CATEGORY = re.compile(r"[a-z][a-z\-]*(\.[A-Za-z][A-Za-z\-]*)?")
_DOI = re.compile(r"10\.\d{4,9}/[A-Za-z0-9._;()/:<>+\-]+")
_YEAR = re.compile(r"\d{4}")


def entry(paper: Paper, key: str) -> str:
    if VERSIONED_ID.fullmatch(paper.id) is None:
        return ""  # not an arXiv id: nothing we could cite
    fields = [
        ("title", escape_text(paper.title, protect_case=True)),
        ("author", authors_field(paper)),
    ]
    if _YEAR.fullmatch(paper.published[:4]):
        fields.append(("year", paper.published[:4]))
    fields += [("eprint", paper.id), ("archivePrefix", "arXiv")]
    if _CATEGORY.fullmatch(paper.primary_category):
        fields.append(("primaryClass", paper.primary_category))
    if paper.doi and _DOI.fullmatch(paper.doi):
        fields.append(("doi", paper.doi))
    if paper.journal_ref:
        fields.append(("note", "Published in " + escape_text(paper.journal_ref)))
    fields.append(("url", f"https://arxiv.org/abs/{paper.id}"))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@misc{{{key},\n{body},\n}}\n"


def export(papers: Iterable[Paper]) -> str:
    """A .bib file for the papers (demo papers, which have no arXiv id, are left out)."""
    real = list({p.id: p for p in papers if not p.demo}.values())
    keys = unique_keys(real)
    return "\n".join(entry(p, keys[p.id]) for p in real)
