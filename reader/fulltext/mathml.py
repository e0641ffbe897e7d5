"""A formula's Presentation MathML (LaTeXML's, beside its TeX) said in Unicode on one line, as a
reader would write it by hand: `xᵢ²`, `QKᵀ/√dₖ`, `‖W‖_F`, `𝔼[log q(x)]`.

MathBuilder gathers the elements as html.parser hands them over (the page's parser routes a
`<math>`'s tags here); unicode() then says the tree, or None when some part of it cannot be said
in Unicode (an unknown element, a big matrix, an accent over many letters, a tree too deep or too
large): the formula is then shown as its TeX, never in part. The tree is untrusted: MAX_NODES,
MAX_DEPTH and MAX_CHARACTERS bound what one formula keeps; past them it is said as TeX."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from reader.core.script_forms import subscript, superscript
from reader.fulltext.clean import printable
from reader.fulltext.math_letters import styled

MAX_DEPTH = 64  # nested elements of one formula (LaTeXML's deepest real ones are about 25)
MAX_NODES = 4000  # elements of one formula's presentation (a long real display: a few hundred)
MAX_CHARACTERS = 16 * 1024  # of its tokens' text
MAX_CELLS, MAX_ROWS = 6, 6  # a matrix larger than this is said as TeX (it needs a grid)
SKIPPED = frozenset(["annotation", "annotation-xml"])  # the TeX and Content MathML beside the presentation
KEPT_ATTRIBUTES = frozenset(["mathvariant", "notation", "width", "linethickness", "open", "close"])


@dataclass(slots=True)
class Node:
    tag: str
    attributes: dict[str, str] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)
    text: str = ""
    said: dict[bool, str] = field(default_factory=dict)  # what _say made of it, by `script`: each element said once


class MathBuilder:
    """start/end/data as html.parser sees them inside one `<math>`; `depth` is how deep its open
    elements go (the page's parser bounds it as it bounds its own)."""

    def __init__(self) -> None:
        self.root = Node("math")
        # (tag, node) of each open element; node None: not kept (skipped, or past a bound)
        self._open: list[tuple[str, Node | None]] = [("math", self.root)]
        self._count: dict[str, int] = {}  # tag -> how many are open (an end tag matches in O(1))
        self._nodes = 0
        self._characters = 0
        self.too_big = False

    @property
    def depth(self) -> int:
        return len(self._open)

    def start(self, tag: str, attributes: list[tuple[str, str | None]]) -> None:
        parent = self._open[-1][1]
        node: Node | None = None
        if parent is not None and tag not in SKIPPED:
            self._nodes += 1
            if self._nodes > MAX_NODES or len(self._open) > MAX_DEPTH:
                self.too_big = True
            else:
                node = Node(tag, {name: value for name, value in attributes if name in KEPT_ATTRIBUTES and value})
                parent.children.append(node)
        self._open.append((tag, node))
        self._count[tag] = self._count.get(tag, 0) + 1

    def end(self, tag: str) -> None:
        """Closes the innermost open `tag` and what is open inside it; an end tag that closes
        nothing open is ignored (as the page's parser does)."""
        if not self._count.get(tag):
            return
        while len(self._open) > 1:
            closed, _ = self._open.pop()
            self._count[closed] -= 1
            if closed == tag:
                return

    def data(self, text: str) -> None:
        node = self._open[-1][1]
        if node is None:
            return
        self._characters += len(text)
        if self._characters > MAX_CHARACTERS:
            self.too_big = True
        else:
            node.text += text

    def unicode(self) -> str | None:
        """The formula in Unicode, or None: it is shown as its TeX."""
        if self.too_big:
            return None
        try:
            said = printable(_row(self.root.children, False))
        except CannotSay:
            return None
        return _INSIDE_BRACKETS.sub("", said) or None


class CannotSay(Exception):
    """A part of the formula has no Unicode form: the whole is shown as TeX."""


# --- tokens (their letters: math_letters.py) ---------------------------------------------------

_INVISIBLE = {"\u2061": "\u2061", "\u2062": "", "\u2063": "", "\u2064": "", "\u200b": ""}  # function application kept for spacing


# --- scripts -------------------------------------------------------------------------------------


def _script(text: str, formed: str | None, mark: str, opening: str, closing: str) -> str:
    """`text` as Unicode sub- or superscripts when every character has one (core/script_forms.py),
    else `_k`, `_{ij}`, `^k`, `^(n+1)`."""
    if formed:
        return formed
    if len(text) == 1 or _enclosed(text):
        return mark + text
    return f"{mark}{opening}{text}{closing}"


def _subscript(text: str) -> str:
    return _script(text, subscript(text), "_", "{", "}")


def _superscript(text: str) -> str:
    return _script(text, superscript(text), "^", "(", ")")


# --- the tree ------------------------------------------------------------------------------------

# Operators set apart by a space on either side (in a script they are not: `xₜ₋₁`).
_SPACED = frozenset("⊙⊘⊖⋆∙≜≝≐≔⟹⟸⟺⊊⊋↪=≠<>≤≥≈≡∼≃≅∝∈∉⊂⊃⊆⊇→←↔⇒⇐⇔↦+−-±∓×·⋅∘∧∨∩∪⊕⊗∖≺≻≼≽⪯⪰≪≫∣:↝⟶⊢⊨")  # `|` not: mostly |x|
_AFTER_SPACE = frozenset(",;")
_LARGE = frozenset("∑∏∐∫∬∭∮⋃⋂⨁⨂⋀⋁")
_OPENING, _CLOSING = "([{⟨⌊⌈", ")]}⟩⌋⌉"
# Accents put over or under a letter, as combining characters.
_ACCENTS = dict(
    zip(
        "^ˆ\u0302~˜\u0303¯\u0304‾_˙.¨→\u20d7ˇ˘´`",
        "\u0302\u0302\u0302\u0303\u0303\u0303\u0304\u0304\u0305\u0332\u0307\u0307\u0308\u20d7\u20d7\u030c\u0306\u0301\u0300",
        strict=True,
    )
)
_BARS = frozenset(["¯", "‾", "\u0304", "\u0305", "_"])  # a bar over many letters: over each of them
_INSIDE_BRACKETS = re.compile(r"(?<=[(\[{⟨]) +| +(?=[)\]}⟩,.;])")  # a word's spaces against a bracket: `( all )`
_ATOM = re.compile(r"[^\s+\-−=/·⋅×,;:<>]+")  # what needs no parentheses as a numerator, a base or a root


def _say(node: Node, script: bool) -> str:
    """One element said; `script`: inside a sub- or superscript (no spaces round operators).
    Kept on the node: a row looks ahead and a fraction weighs its parts, which would say an
    element again at every level of a nested formula (work doubling with each)."""
    said = node.said.get(script)
    if said is None:
        said = node.said[script] = _say_afresh(node, script)
    return said


def _say_afresh(node: Node, script: bool) -> str:  # noqa: C901 (one branch per MathML element)
    tag, children = node.tag, node.children
    if tag in ("mi", "mn"):
        return styled(node.text.strip(), node.attributes.get("mathvariant", ""))
    if tag == "mo":
        text = node.text.strip()
        return _INVISIBLE.get(text, text)
    if tag in ("mtext", "ms"):
        text = re.sub(r"\s+", " ", node.text.strip())
        if tag == "ms":
            return f'"{text}"'
        if script and "\n" not in node.text:  # in a script, its own spaces (`\text{ with }`); a newline: a page pretty-printed
            return re.sub(r"\s+", " ", node.text)
        return text if script or not text else f" {text} "  # `= 0 for all t`, `argmax P(y)`: a word apart
    if tag == "mspace":
        return " " if _em(node.attributes.get("width", "")) >= 0.5 else ""
    if tag in ("mrow", "mstyle", "mpadded", "semantics", "math"):
        return _row(children, script)
    if tag == "mphantom":
        return ""
    if tag == "menclose" and node.attributes.get("notation", "box") in ("box", "roundedbox"):
        return _row(children, script)
    if tag in ("msub", "msup", "msubsup", "munder", "mover", "munderover"):
        return _scripted(node, script)
    if tag == "mmultiscripts":
        return _multiscripts(node, script)
    if tag == "mfrac":
        return _fraction(node, script)
    if tag == "msqrt":
        return "√" + _radicand(Node("mrow", children=children), script)
    if tag == "mroot":
        base, index = _pair(node)
        degree = _say(index, True)
        mark = {"3": "∛", "4": "∜"}.get(degree)
        if mark is None and superscript(degree) is None:
            raise CannotSay("a root's degree")
        return (mark or _superscript(degree) + "√") + _radicand(base, script)
    if tag == "mtable":
        return _table(node, script)
    if tag == "mfenced":
        return _fenced(node, script)
    raise CannotSay(tag)


def _row(children: list[Node], script: bool) -> str:
    """Elements side by side: binary operators and relations spaced (but a leading or unary
    minus), commas followed by a space, a function's name before its argument."""
    out: list[str] = []
    previous_operator = True  # at the start, `−` is unary
    for index, child in enumerate(children):
        said = _say(child, script)
        if _scripted_operator(child) and not script:  # `x ≻ᵢ y`
            out.append(f" {said} ")
            previous_operator = True
            continue
        if child.tag == "mo" and said in _SPACED and not script:
            if previous_operator and said in "+-−±∓":
                out.append(said)
            else:
                out.append(f" {said} ")
            previous_operator = True
            continue
        if child.tag == "mo" and said in _AFTER_SPACE and not script:
            out.append(said + " ")
            previous_operator = True
            continue
        if said == "\u2061":  # function application: `log x`, but `log(x)`
            following = _say(children[index + 1], script) if index + 1 < len(children) else ""
            out.append("" if following[:1] in _OPENING else " ")
            continue
        if not script and _is_large(child) and index + 1 < len(children):
            said += " "
        elif _unwrapped(child).tag == "mfrac" and index + 1 < len(children) and not _is_operator(children[index + 1]):
            said = f"({said})"  # `(1/2)cᵢ`, not `1/2cᵢ`
        out.append(said)
        previous_operator = child.tag == "mo" and said in _OPENING
    return "".join(out)


def _unwrapped(node: Node) -> Node:
    while node.tag in ("mrow", "mstyle", "mpadded") and len(node.children) == 1:
        node = node.children[0]
    return node


def _is_operator(node: Node) -> bool:
    """An operator or punctuation that may follow a fraction without making it a factor."""
    node = _unwrapped(node)
    text = node.text.strip()
    return node.tag == "mo" and text not in _INVISIBLE and text != "" and text not in _OPENING or _scripted_operator(node)


def _scripted_operator(node: Node) -> bool:
    return node.tag in ("msub", "msup", "msubsup") and bool(node.children) and _is_spaced(node.children[0])


def _is_spaced(node: Node) -> bool:
    return node.tag == "mo" and node.text.strip() in _SPACED and node.text.strip() not in "+-−"


def _is_large(node: Node) -> bool:
    """A sum, product or integral (with its limits or not), or a limit (`lim`, `max` with what is
    under it): what follows comes after a space."""
    node = _unwrapped(node)
    limits = node.tag in ("munder", "munderover")
    while node.tag in ("msub", "msup", "msubsup", "munder", "mover", "munderover") and node.children:
        node = node.children[0]
    return node.tag == "mo" and node.text.strip() in _LARGE or limits and len(node.text.strip()) > 1


def _scripted(node: Node, script: bool) -> str:
    tag, children = node.tag, node.children
    if len(children) != (3 if tag in ("msubsup", "munderover") else 2):
        raise CannotSay(tag)
    base = _say(children[0], script)
    if tag in ("mover", "munder", "munderover"):  # accents over or under (x̂, x̲, both: x̲̄) are marks on the letter
        under, over = (children[1], None) if tag == "munder" else (None, children[-1]) if tag == "mover" else children[1:]
        if (under is None or _is_accent(under)) and (over is None or _is_accent(over)):
            for mark, is_under in ((under, True), (over, False)):
                if mark is not None:
                    base = _accented(base, _say(mark, True), is_under)
            return base
        if under is not None and _is_accent(under) or over is not None and _is_accent(over):
            raise CannotSay("an accent and a limit")
    base = base if not base or _ATOM.fullmatch(base) or _enclosed(base) else f"({base})"  # `{}^{*}`: none
    lower = _say(children[1], True) if tag != "msup" and tag != "mover" else ""
    upper = _say(children[-1], True) if tag not in ("msub", "munder") else ""
    return base + (_subscript(lower) if lower else "") + (_superscript(upper) if upper else "")


def _multiscripts(node: Node, script: bool) -> str:
    """`{X_i}^⊤` as LaTeXML writes it: a base, then (subscript, superscript) pairs, `<none/>` for
    one missing. Scripts before the base (`<mprescripts/>`) have no Unicode order: TeX."""
    children = node.children
    if not children or len(children) % 2 != 1 or any(child.tag == "mprescripts" for child in children):
        raise CannotSay(node.tag)
    base = _say(children[0], script)
    out = [base if not base or _ATOM.fullmatch(base) or _enclosed(base) else f"({base})"]
    for lower, upper in zip(children[1::2], children[2::2], strict=True):
        lower_said, upper_said = _say(lower, True), _say(upper, True)  # `<none/>` or an empty row: no script
        out.append((_subscript(lower_said) if lower_said else "") + (_superscript(upper_said) if upper_said else ""))
    return "".join(out)


def _is_accent(node: Node) -> bool:
    return node.tag == "mo" and node.text.strip() in _ACCENTS


def _accented(base: str, accent: str, under: bool) -> str:
    mark = "\u0332" if under and accent in _BARS else _ACCENTS[accent]
    if len(base) == 1 or len(base) > 1 and all(unicodedata.combining(character) for character in base[1:]):
        return base + mark
    if accent in _BARS and base.isalnum():
        return "".join(character + mark for character in base)  # \overline{xy}: x̄ȳ
    raise CannotSay("accent over many letters")


def _fraction(node: Node, script: bool) -> str:
    if node.attributes.get("linethickness", "").strip() in ("0", "0pt", "0em", "0.0pt"):
        raise CannotSay("binomial")  # \binom, \atop: no line to say as `/`
    numerator, denominator = _pair(node)
    said = _say(numerator, script)
    above = said if _ATOM.fullmatch(_outside_brackets(said)) else f"({said})"  # `QKᵀ/c` is (QKᵀ)/c: a product may stand
    said = _say(denominator, script)
    below = said if _one_factor(_unwrapped(denominator), said) else f"({said})"  # `1/(δwₖ)`, not `1/δwₖ`
    return f"{above}/{below}"


def _one_factor(node: Node, said: str) -> bool:
    """A denominator needing no brackets: `x`, `dₖ`, `√x`, `(a+b)`, `|x|`, `p(x)`."""
    if node.tag in ("mi", "mn", "msqrt", "mroot") or _enclosed(said):
        return True
    if node.tag in ("msub", "msup", "msubsup"):
        return bool(_ATOM.fullmatch(said))
    parts = [child for child in node.children if not (child.tag == "mo" and child.text.strip() in ("\u2061", "\u2062"))]
    return node.tag == "mrow" and len(parts) == 2 and parts[0].tag in ("mi", "msub") and _enclosed(_say(parts[1], True))


def _outside_brackets(text: str) -> str:
    """`text` without what its brackets hold: what a space or operator at its top level shows."""
    out, depth = [], 0
    for character in text:
        if character in _OPENING:
            depth += 1
        elif character in _CLOSING:
            depth = max(depth - 1, 0)
        elif not depth:
            out.append(character)
    return "".join(out) or "x"


def _pair(node: Node) -> list[Node]:
    if len(node.children) != 2:
        raise CannotSay(node.tag)
    return node.children


def _radicand(node: Node, script: bool) -> str:
    """What is under a root, bracketed unless one factor: `√dₖ`, `√(2L)`, `√(x + 1)`."""
    said = _say(node, script)
    return said if _one_factor(_unwrapped(node), said) else f"({said})"


def _enclosed(text: str) -> bool:
    """Whether `text` is wholly inside one pair of brackets (`(a+b)`, `|x|`, not `(a)+(b)`)."""
    if len(text) > 2 and text[0] == text[-1] and text[0] in "|‖" and text.count(text[0]) == 2:
        return True
    if len(text) < 2 or text[0] not in _OPENING or text[-1] != _CLOSING[_OPENING.index(text[0])]:
        return False
    depth = 0
    for position, character in enumerate(text):
        if character in _OPENING:
            depth += 1
        elif character in _CLOSING:
            depth -= 1
            if depth == 0 and position < len(text) - 1:
                return False
    return True


def _table(node: Node, script: bool) -> str:
    """A small matrix or cases on one line, rows by `;`: `(a b; c d)`, `{0, if x ≥ 1; −x, else`. A
    larger one needs a grid: TeX."""
    rows = [row for row in node.children if row.tag in ("mtr", "mlabeledtr")]
    if len(rows) != len(node.children) or not rows or len(rows) > MAX_ROWS:
        raise CannotSay("table")
    said = []
    for row in rows:
        cells = [cell for cell in row.children if cell.tag == "mtd"]
        if len(cells) != len(row.children) or len(cells) > MAX_CELLS:
            raise CannotSay("table row")
        said.append(" ".join(text for text in (_row(cell.children, script).strip() for cell in cells) if text))
    return "; ".join(said)


def _fenced(node: Node, script: bool) -> str:
    opening, closing = node.attributes.get("open", "("), node.attributes.get("close", ")")
    return opening + ", ".join(_say(child, script) for child in node.children) + closing


def _em(width: str) -> float:
    """An mspace's width in em (LaTeXML writes `0.167em`, `1em`, `2em`); unknown units as none."""
    found = re.fullmatch(r"\s*(-?[\d.]+)\s*(em|pt|mu)?\s*", width)
    if not found:
        return 0.0
    try:
        value = float(found.group(1))
    except ValueError:
        return 0.0
    return value / {"pt": 10.0, "mu": 18.0}.get(found.group(2) or "em", 1.0)
