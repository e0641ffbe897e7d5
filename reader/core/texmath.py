"""The TeX in arXiv's titles and abstracts shown as Unicode: `$\\mathcal{O}(n^2)$` -> `𝒪(n²)`.

Only math spans (`$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]`) are converted, by pylatexenc's parser and
its latex2text symbol table (`\\alpha` -> α, `\\le` -> ≤), with our own handlers where its defaults
drop meaning: `\\|W\\|` keeps its bars (‖W‖), a script is made Unicode only when every character
has a sub- or superscript form (x², x_{ij}), an accent over more than one letter, an unknown
macro and anything pylatexenc would print as nothing stay as TeX. Text outside math only has its
text macros read (`\\emph{…}`, accents: `decode_tex`). Abstracts are untrusted: the text, each span
and its nesting are bounded (beyond them the TeX is kept), and the result passes `clean_text`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from reader.core.latex_chars import with_mark
from reader.core.sanitize import clean_text
from reader.core.script_forms import subscript, superscript
from reader.core.tex_decode import decode_tex

MAX_TEXT = 20_000  # characters of a title or abstract converted (arXiv's abstracts: 1,920 at most)
MAX_SPAN = 300  # characters of one math span (the fixtures' longest: 48); a longer one stays TeX
MAX_DEPTH = 12  # nested braces in a span; deeper stays TeX (pylatexenc recurses on them)

# Escaped `\$` is text; `$$` opens display math; a `$` left open (a card's abstract is cut) stays.
_SPAN = re.compile(r"(?<!\\)\$\$(?P<d>[^$]+?)(?<!\\)\$\$|(?<!\\)\$(?P<i>[^$]+?)(?<!\\)\$|\\\((?P<p>.+?)\\\)|\\\[(?P<b>.+?)\\\]")

# Math accents -> the combining mark each draws (the shape of core/latex_chars.py's tables).
ACCENTS = {
    "hat": "\u0302",
    "widehat": "\u0302",
    "tilde": "\u0303",
    "widetilde": "\u0303",
    "bar": "\u0304",
    "overline": "\u0305",
    "underline": "\u0332",
    "vec": "\u20d7",
    "dot": "\u0307",
    "ddot": "\u0308",
    "check": "\u030c",
    "breve": "\u0306",
    "acute": "\u0301",
    "grave": "\u0300",
    "mathring": "\u030a",
}
# Unicode's mathematical alphabets, by the words of their characters' names.
ALPHABETS = {
    "mathbb": "DOUBLE-STRUCK",
    "mathcal": "SCRIPT",
    "mathscr": "SCRIPT",
    "mathfrak": "FRAKTUR",
    "mathbf": "BOLD",
    "boldsymbol": "BOLD",
    "bm": "BOLD",
}
_LETTERLIKE = {"FRAKTUR": "BLACK-LETTER"}  # ℭ ℌ ℑ ℜ ℨ are BLACK-LETTER CAPITAL ...
PLAIN = frozenset(
    {"text", "textrm", "textnormal", "mathrm", "mathit", "mathsf", "mathtt", "operatorname", "mbox", "textit", "textbf", "emph"}
)
FRACTIONS = frozenset({"frac", "tfrac", "dfrac", "cfrac"})
SIZES = frozenset(
    {"left", "right", "middle", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr", "Biggl", "Biggr"}
)
SPACING = {
    ",": " ",
    ";": " ",
    ":": " ",
    " ": " ",
    "quad": " ",
    "qquad": " ",
    "!": "",
    "displaystyle": "",
    "textstyle": "",
    "limits": "",
    "nolimits": "",
}
SYMBOLS = {"|": "‖", "{": "{", "}": "}", "%": "%", "&": "&", "_": "_", "#": "#", "$": "$", "prime": "′", "colon": ": "}
# What latex2text's table lacks or prints as nothing (pylatexenc 2.10).
SYMBOLS |= {"neg": "¬", "lnot": "¬", "iff": "⟺", "implies": "⟹", "gets": "←", "coloneqq": "≔", "models": "⊨", "bot": "⊥"}
SYMBOLS |= {"Re": "ℜ", "Im": "ℑ", "Box": "□", "ddag": "‡", "varnothing": "∅", "land": "∧", "lor": "∨"}
SYMBOLS |= {name: name for name in ("arg", "det", "Pr", "deg", "dim", "ker", "gcd", "hom", "lg", "Tr", "tr", "rank", "diag", "sgn")}
ROOTS = {"3": "∛", "4": "∜"}
# Relations and binary operators, spaced as TeX spaces them (`a\\le b` -> `a ≤ b`); one typed as a
# character stays as typed.
RELATIONS = frozenset("=<>≤≥≠∈∉∋⊂⊆⊃⊇⊄∼≈≃≅≡≪≫∝→←↔⇒⇐⇔↦⟶⟹⟺≔∣≺≻⪯⪰⊢⊨·⋅×±∓∘⊕⊗∪∩∧∨")
# Macros pylatexenc's parser does not know the arguments of.
EXTRA_ARGUMENTS = {"operatorname": "{", "boldsymbol": "{", "bm": "{", "mathscr": "{", "textnormal": "{", "widehat": "{", "widetilde": "{"}
EXTRA_ARGUMENTS |= {"mathring": "{", "tfrac": "{{", "dfrac": "{{", "cfrac": "{{", "mathsf": "{", "mathtt": "{", "mathit": "{"}
# TeX's control words are ASCII letters: `\mathbfθ` (arXiv's feed wrote \theta as θ) is `\mathbf θ`.
_WORD_BEFORE_UNICODE = re.compile(r"(\\[A-Za-z]+)(?=[^\x00-\x7f])")


@dataclass
class _Atom:
    """One thing a script, a fraction or an accent applies to: its Unicode text, whether it is
    one symbol, and whether it is an operator's name (`log`: a letter after it is spaced off)."""

    text: str
    single: bool
    word: bool = False


@dataclass(frozen=True)
class Converted:
    """A text converted, and the TeX it kept (unknown macros, spans that could not be read)."""

    text: str
    kept: tuple[str, ...] = ()


def warm() -> None:
    """pylatexenc imported and its tables built (~50 ms): in a worker, before the first card
    with math is drawn on the UI's thread."""
    _math(r"\alpha_1")


def tex_to_unicode(text: str) -> str:
    """A title or abstract with its math and text macros as Unicode; what is unsure stays TeX."""
    return convert(text).text


@lru_cache(maxsize=256)
def convert(text: str) -> Converted:
    """`tex_to_unicode` with what it kept as TeX (for the measurements). Cached: a paper's text is
    converted once, however often its card is drawn again."""
    if len(text) > MAX_TEXT or ("$" not in text and "\\" not in text):
        return Converted(text)
    pieces: list[str] = []
    kept: list[str] = []
    start = 0
    for match in _SPAN.finditer(text):
        pieces.append(_text(text[start : match.start()]))
        math = next(group for group in match.groups() if group is not None)
        shown, unsure = _math(math)
        if shown is None:
            pieces.append(match.group(0))
            kept.append(match.group(0))
        else:
            pieces.append(shown)
            kept.extend(unsure)
        start = match.end()
    pieces.append(_text(text[start:]))
    return Converted(clean_text("".join(pieces)), tuple(kept))


# Math with nothing to convert: letters, digits and punctuation that stand for themselves.
_PLAIN_MATH = re.compile(r"[A-Za-z0-9\s().,;:+\-=<>/!?|\[\]*]+")
_CONTROL_SPACE = re.compile(r"(?<!\\)\\ ")  # `i.i.d.\ samples`: TeX's space after a full stop


def _text(text: str) -> str:
    """Text outside math: its text macros read (`\\emph{…}`, accents, `\\%`), nothing else."""
    return decode_tex(_CONTROL_SPACE.sub(" ", text))


def _depth(tex: str) -> int:
    depth = deepest = 0
    for ch in tex:
        if ch == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == "}":
            depth -= 1
    return deepest


@lru_cache(maxsize=8192)
def _math(tex: str) -> tuple[str | None, tuple[str, ...]]:
    """A span's content as Unicode and the TeX kept in it; None when the span stays TeX whole
    (too long, too deep, or not TeX pylatexenc reads)."""
    if len(tex) > MAX_SPAN or _depth(tex) > MAX_DEPTH:
        return None, ()
    if _PLAIN_MATH.fullmatch(tex):  # `$n$`, `$O(MN)$`: as pylatexenc would read them, without its cost
        return " ".join(tex.split()), ()
    latexwalker = _latexwalker()
    try:
        walker = latexwalker.LatexWalker(_WORD_BEFORE_UNICODE.sub(r"\1 ", tex), latex_context=_parsing(), tolerant_parsing=False)
        nodes, _, _ = walker.get_latex_nodes()
    except (latexwalker.LatexWalkerError, RecursionError, IndexError, ValueError):
        return None, ()
    writer = _Writer()
    shown = writer.join(nodes)
    return " ".join(shown.split()), tuple(writer.kept)


def _symbol(name: str) -> str | None:
    """pylatexenc's Unicode for a macro without arguments (`\\alpha` -> α); None for one it
    does not know or would print as nothing or from its arguments."""
    if name in SYMBOLS:
        return SYMBOLS[name]
    spec = _symbols().get_macro_spec(name)
    repl = getattr(spec, "simplify_repl", None)
    if isinstance(repl, str) and repl.strip() and "%" not in repl and "<" not in repl:
        return repl
    return None


@lru_cache(maxsize=1)
def _latexwalker():
    """pylatexenc's parser, imported at the first span that needs it (40 ms of the app's start)."""
    from pylatexenc import latexwalker

    return latexwalker


@lru_cache(maxsize=1)
def _symbols():
    from pylatexenc.latex2text import get_default_latex_context_db

    return get_default_latex_context_db()


@lru_cache(maxsize=1)
def _parsing():
    from pylatexenc import macrospec

    extra = [macrospec.MacroSpec(name, arguments) for name, arguments in EXTRA_ARGUMENTS.items()]
    context = _latexwalker().get_default_latex_context_db()
    context.add_context_category("reader-math", macros=extra, prepend=True)
    return context


def _styled(text: str, style: str) -> str:
    """`text` in one of Unicode's mathematical alphabets, letter by letter (ℝ, 𝒪, 𝐱); a
    character the alphabet lacks stays as it is."""
    out = []
    for ch in text:
        name = unicodedata.name(ch, "")
        if ch.isascii() and ch.isalpha():
            tail = f"{'CAPITAL' if ch.isupper() else 'SMALL'} {ch.upper()}"
        elif ch.isascii() and ch.isdigit():
            tail = "DIGIT " + name.split()[-1]
        elif name.startswith("GREEK ") and style == "BOLD":
            tail = name.removeprefix("GREEK ").replace(" LETTER", "")
        else:
            out.append(ch)
            continue
        for candidate in (f"MATHEMATICAL {style} {tail}", f"{_LETTERLIKE.get(style, style)} {tail}"):
            try:
                out.append(unicodedata.lookup(candidate))
                break
            except KeyError:
                continue
        else:
            out.append(ch)
    return "".join(out)


def _script(atom: _Atom, mark: str) -> str:
    """`x²`, `xᵢₖ` when every character has its form (core/script_forms.py), else `^n`, `_{ij}`."""
    formed = superscript(atom.text) if mark == "^" else subscript(atom.text)
    return formed or mark + (atom.text if atom.single else "{" + atom.text + "}")


def _operand(atom: _Atom) -> str:
    """A fraction's part, parenthesised unless it is one symbol or a number."""
    return atom.text if atom.single or atom.text.isdigit() else f"({atom.text})"


def _scripted(items: list[_Atom | str]) -> list[_Atom]:
    """Atoms with each `^` / `_` applied to the atom after it (spaces aside), and an operator's
    name spaced off the letters beside it."""
    out: list[_Atom] = []
    rest = iter(items)
    for item in rest:
        if isinstance(item, str):
            argument = next((following for following in rest if not (isinstance(following, _Atom) and following.text == " ")), None)
            if isinstance(argument, _Atom):
                out.append(_Atom(_script(argument, item), False))
            else:  # nothing to raise: the mark as typed
                out.append(_Atom(item, True))
            continue
        if out and ((out[-1].word and item.text[:1].isalnum()) or (item.word and out[-1].text[-1:].isalnum())):
            out.append(_Atom(" ", False))
        out.append(item)
    return out


class _Writer:
    """Walks pylatexenc's nodes of one span; `kept` collects the TeX it could not say."""

    def __init__(self) -> None:
        self.kept: list[str] = []

    def keep(self, node) -> _Atom:
        tex = node.latex_verbatim()
        self.kept.append(tex)
        return _Atom(tex, False)

    def join(self, nodes) -> str:
        return "".join(atom.text for atom in self.atoms(nodes))

    def atom(self, nodes) -> _Atom:
        """A group or an argument as one thing (one symbol when it is one)."""
        atoms = [atom for atom in self.atoms(nodes) if atom.text.strip()]
        text = "".join(atom.text for atom in self.atoms(nodes)).strip() if len(atoms) != 1 else atoms[0].text
        return _Atom(text, len(atoms) == 1 and atoms[0].single)

    def atoms(self, nodes) -> list[_Atom]:
        """The nodes as atoms, scripts applied to what precedes them."""
        items: list[_Atom | str] = []  # str: a pending `^` or `_` and the `.` after \left
        latexwalker = _latexwalker()
        pending = list(nodes or [])
        pending.reverse()
        no_dot = False  # after \left, \right, \middle: a `.` is the empty delimiter
        while pending:
            node = pending.pop()
            if node is None:
                continue
            no_dot, after_size = False, no_dot
            if node.isNodeType(latexwalker.LatexCharsNode):
                chars = node.chars.lstrip()
                for ch in chars[1:] if after_size and chars.startswith(".") else node.chars:
                    items.append(
                        ch if ch in "^_" else _Atom(" " if ch.isspace() else SYMBOLS["prime"] if ch == "'" else ch, not ch.isspace())
                    )
            elif node.isNodeType(latexwalker.LatexGroupNode):
                items.append(self.atom(node.nodelist))
            elif node.isNodeType(latexwalker.LatexMacroNode):
                if node.macroname in SIZES:  # the delimiter only; `\left.` is none
                    no_dot = node.macroname in ("left", "right", "middle")
                    continue
                items.append(self.macro(node, pending))
            elif node.isNodeType(latexwalker.LatexMathNode):
                items.append(self.atom(node.nodelist))
            elif node.isNodeType(latexwalker.LatexSpecialsNode) and node.specials_chars in ("~",):
                items.append(_Atom(" ", False))
            else:  # environments (matrices), comments, other specials: as typed
                items.append(self.keep(node))
        return _scripted(items)

    def macro(self, node, pending: list) -> _Atom:  # noqa: C901 (one branch per kind of macro: symbol, font, accent, fraction, root, script)
        latexwalker = _latexwalker()
        name = node.macroname
        args = [arg for arg in (node.nodeargd.argnlist if node.nodeargd else []) if arg is not None]
        if not args:
            if name in SPACING:
                return _Atom(SPACING[name], False)
            if name == "not" or name in ACCENTS or name in ALPHABETS or name in PLAIN or name in FRACTIONS or name == "sqrt":
                return self.keep(node)
            symbol = _symbol(name)
            if symbol is None:  # unknown: kept with the groups that follow, its arguments
                atom = self.keep(node)
                while pending and pending[-1] is not None and pending[-1].isNodeType(latexwalker.LatexGroupNode):
                    atom = _Atom(atom.text + self.keep(pending.pop()).text, False)
                return atom
            if symbol in RELATIONS or name in ("perp", "mid"):  # ⊥ and | are relations only so named
                return _Atom(f" {symbol} ", False)
            return _Atom(symbol, True, word=len(symbol) > 1 and symbol.isalpha())
        parts = [self.atom([arg] if not arg.isNodeType(latexwalker.LatexGroupNode) else arg.nodelist) for arg in args]
        if name in ALPHABETS and len(args) == 1:
            return _Atom(_styled(parts[0].text, ALPHABETS[name]), parts[0].single)
        if name in PLAIN and len(args) == 1:
            return _Atom(parts[0].text, parts[0].single, word=name == "operatorname")
        if name in ACCENTS and len(args) == 1 and len(parts[0].text) == 1:
            return _Atom(with_mark(parts[0].text, ACCENTS[name]), True)
        if name == "not" and len(args) == 1 and len(parts[0].text.strip()) == 1:
            negated = with_mark(parts[0].text.strip(), "\u0338")
            return _Atom(f" {negated} ", False)
        if name in FRACTIONS and len(args) == 2:
            return _Atom(f"{_operand(parts[0])}/{_operand(parts[1])}", False)
        if name == "sqrt" and len(args) in (1, 2):
            root = "√" if len(args) == 1 else ROOTS.get(parts[0].text)
            if root is not None:
                return _Atom(root + _operand(parts[-1]), False)
        return self.keep(node)
