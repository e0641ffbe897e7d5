"""Math in Unicode (issue 42): LaTeXML's Presentation MathML said as a reader would write it by
hand, kept beside the TeX (which `text:` searches and copying keep), falling back to the TeX
whole where a part cannot be said; bounded on hostile MathML."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reader.core.texmath import tex_to_unicode
from reader.fulltext import html
from reader.fulltext.bounded import PageRefused
from reader.fulltext.document import MATH, PARAGRAPH, Block, Document
from reader.fulltext.formulas import shown, spans
from reader.fulltext.html import LatexmlText
from reader.fulltext.render import lines
from reader.fulltext.store import TextStore

FIXTURE = Path(__file__).parent / "fixtures" / "mathml" / "latexml.html"
# Each formula of the fixture (real LaTeXML output, in its order) as it is shown; None: as its TeX.
SAID = [
    "hₜ₋₁",
    "Attention(Q, K, V) = softmax(QKᵀ/√dₖ)V",
    "1/√dₖ",
    "q ⋅ k = ∑ᵢ₌₁^(dₖ) qᵢkᵢ",  # a sum with limits, the summand after a space
    "Wᵢ^Q ∈ ℝ^(d_{model}×dₖ)",  # Q has no superscript letter; \mathbb{R} kept double-struck
    "−∞",
    "𝒱̇(t, 𝓧)",  # \dot as a combining dot, calligraphic kept
    "Vₜ = √(u² + v² + w²)",
    "m = [mᵢ]ᵢ₌₁ⁿᵀ",  # mmultiscripts: {[m_i]_{i=1}^n}^\top
    None,  # \bar{q_{y}}: an accent over a scripted letter has no Unicode form
    "*",  # {}^{*}: an author's mark
    "‖g(τ, ξ) − g_P(τ, ξ)‖",
    "y = argmax P(y)ΠᵢⁿP(xᵢ ∣ y)",
    "(δ/(δwₖ))λ‖w‖² = 2λwₖ",  # a denominator of two factors bracketed, and a fraction before a factor
    None,  # an array of eight rows: a grid, not a line
    "ξ̂",
    "(δ/(δwₖ))(1 − yᵢ⟨xᵢ, w⟩)₊ = {0, if yᵢ⟨xᵢ, w⟩ ≥ 1; −yᵢxᵢₖ, else",  # cases, rows by `;`
    "ℒ₁",
]


def read(body: str) -> list[Block]:
    """The blocks LaTeXML's article with this body reads into."""
    parser = LatexmlText()
    parser.feed_bytes(f'<html><body><article class="ltx_document">{body}</article></body></html>'.encode())
    return parser.finish()


def said(math: str) -> str:
    """One formula (inline, in a paragraph) as the full text shows it."""
    (block,) = read(f"<p>{math}</p>")
    return shown(block.text, block.maths)


# Every character either math reader has raised or lowered, and some none may (Q, ω, j: ⱼ is
# drawn by too few terminal fonts).
SCRIPTED = "0123456789+-−=()abcdefghijklmnopqrstuvwxyzABDEGHIJKLMNOPQRTUVWαβγδεθιρφχω′″‴*∗⊤"


@pytest.mark.parametrize(("tag", "mark"), [("msup", "^"), ("msub", "_")])
def test_a_script_reads_the_same_in_a_full_texts_mathml_and_in_an_abstracts_tex(tag, mark):
    """One table of sub- and superscript forms: `x^α` is `xᵅ` in a card and in its paper alike."""
    for character in SCRIPTED:
        token = "mn" if character.isdigit() else "mi" if character.isalpha() else "mo"
        math = (
            f'<math alttext="x{mark}{character}"><semantics><{tag}><mi>x</mi><{token}>{character}</{token}></{tag}>'
            f'<annotation encoding="application/x-tex">x{mark}{character}</annotation></semantics></math>'
        )
        assert said(math) == tex_to_unicode(f"$x{mark}{{{character}}}$"), character
    assert tex_to_unicode(f"$x{mark}{{ij}}$") == said(
        f'<math alttext="x{mark}{{ij}}"><semantics><{tag}><mi>x</mi><mrow><mi>i</mi><mi>j</mi></mrow></{tag}></semantics></math>'
    )


def fixture_formulas() -> list[str]:
    return [line for line in FIXTURE.read_text(encoding="utf-8").splitlines() if line.startswith("<math")]


def test_real_latexml_formulas_are_said_in_unicode_beside_their_tex():
    formulas = fixture_formulas()
    assert len(formulas) == len(SAID)
    for math, expected in zip(formulas, SAID, strict=True):
        display = 'display="block"' in math.split(">", 1)[0]
        (block,) = read(f"<p>{math}</p>")
        mark = "$$" if display else "$"
        assert block.text.startswith(mark) and block.text.endswith(mark) and len(block.text) > 2 * len(mark)  # the TeX
        assert shown(block.text, block.maths) == (block.text if expected is None else expected), math[:120]


def test_letters_styles_and_scripts():
    def mi(text: str, variant: str = "") -> str:
        attribute = f' mathvariant="{variant}"' if variant else ""
        return f'<math alttext="v"><mi{attribute}>{text}</mi></math>'

    assert said(mi("𝑥")) == "x"  # italic as a plain letter
    assert said(mi("𝐱")) == "x" and said(mi("x", "bold")) == "x"
    assert said(mi("𝜶")) == "α" and said(mi("ℎ")) == "h"
    assert said(mi("R", "double-struck")) == "ℝ" and said(mi("E", "double-struck")) == "𝔼" and said(mi("𝔼")) == "𝔼"
    assert said(mi("L", "script")) == "ℒ" and said(mi("g", "fraktur")) == "𝔤"
    sub = '<math alttext="x_{ab}"><msub><mi>x</mi><mrow><mi>a</mi><mi>b</mi></mrow></msub></math>'
    assert said(sub) == "x_{ab}"  # b has no subscript letter: none is used
    sup = '<math alttext="x^{q+1}"><msup><mi>x</mi><mrow><mi>q</mi><mo>+</mo><mn>1</mn></mrow></msup></math>'
    assert said(sup) == "x^(q+1)"
    sup = '<math alttext="x^{n+1}"><msup><mi>x</mi><mrow><mi>n</mi><mo>+</mo><mn>1</mn></mrow></msup></math>'
    assert said(sup) == "xⁿ⁺¹"
    fraction = '<math alttext="f"><mfrac><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow><mi>c</mi></mfrac></math>'
    assert said(fraction) == "(a + b)/c"
    root = '<math alttext="r"><mroot><mi>x</mi><mn>3</mn></mroot></math>'
    assert said(root) == "∛x"
    bar = '<math alttext="b"><mover accent="true"><mrow><mi>x</mi><mi>y</mi></mrow><mo>¯</mo></mover></math>'
    assert said(bar) == "x\u0304y\u0304"
    hidden = '<math alttext="p"><mrow><mi>a</mi><mphantom><mi>b</mi></mphantom></mrow></math>'
    assert said(hidden) == "a"


def test_a_formula_with_a_part_that_has_no_unicode_shows_its_tex_whole():
    unknown = '<math alttext="a+\\mathfrak{X}"><mrow><mi>a</mi><mo>+</mo><mglyph src="x.png"/></mrow></math>'
    assert said(unknown) == "$a+\\mathfrak{X}$"
    binomial = '<math alttext="\\binom{n}{k}"><mfrac linethickness="0pt"><mi>n</mi><mi>k</mi></mfrac></math>'
    assert said(binomial) == "$\\binom{n}{k}$"
    rows = "".join(f"<mtr><mtd><mn>{row}</mn></mtd></mtr>" for row in range(7))
    big = f'<math alttext="\\begin{{matrix}}...\\end{{matrix}}"><mtable>{rows}</mtable></math>'
    assert said(big) == "$\\begin{matrix}...\\end{matrix}$"


def test_an_aligned_row_is_said_whole_or_as_tex():
    cell = '<td class="ltx_eqn_cell"><math alttext="{{}={}}{}b" display="inline"><mrow><mo>=</mo><mi>b</mi></mrow></math></td>'
    left = '<td class="ltx_eqn_cell"><math alttext="a" display="inline"><mi>a</mi></math></td>'
    odd = '<td class="ltx_eqn_cell"><math alttext="c" display="inline"><maction><mi>c</mi></maction></math></td>'
    number = '<td class="ltx_eqn_cell"><span class="ltx_tag">(2)</span></td>'
    table = '<table class="ltx_equationgroup"><tr class="ltx_eqn_row">{}</tr></table>'
    (block,) = read(table.format(left + cell + number))
    assert block.kind == MATH and block.text == "$$a {{}={}}{}b$$ (2)" and shown(block.text, block.maths) == "a = b (2)"
    (block,) = read(table.format(left + odd + number))
    assert shown(block.text, block.maths) == block.text == "$$a c$$ (2)"


def test_tex_stays_in_the_text_a_price_is_not_a_formula_and_unicode_is_plain_text():
    (block,) = read('<p>It costs $5 and <math alttext="x^{2}"><msup><mi>x</mi><mn>2</mn></msup></math> more.</p>')
    assert block.text == "It costs $5 and $x^{2}$ more."  # what `text:` searches, what --tex prints
    assert shown(block.text, block.maths) == "It costs $5 and x² more."
    assert spans("$5 and $x^{2}$", {"$x^{2}$": "x²"}) == ((7, 14, "x²"),)
    hostile = '<math alttext="t"><mtext>\x1b]0;owned\x07[bold]red[/bold]\u202e</mtext></math>'
    assert said(hostile) == "[bold]red[/bold]"  # no escape sequence, no bidi control; markup is only text


def test_hostile_mathml_is_bounded_and_the_page_read_on(monkeypatch):
    deep = '<math alttext="deep">' + "<mrow>" * 10_000 + "<mi>x</mi>" + "</mrow>" * 10_000 + "</math>"
    blocks = read(f"<p>before {deep} after</p><p>next</p>")
    assert [shown(block.text, block.maths) for block in blocks] == ["before $deep$ after", "next"]  # too deep: TeX
    wide = '<math alttext="wide">' + "<mi>x</mi>" * 10_000 + "</math>"
    blocks = read(f"<p>{wide}</p>")
    assert [shown(block.text, block.maths) for block in blocks] == ["$wide$"]  # too many elements: TeX
    long = '<math alttext="long"><mtext>' + "word " * 100_000 + "</mtext></math>"
    assert said(long) == "$long$"
    # A formula's elements count against the page's bounds: nested past the page's depth, the page
    # is refused (made small here); with more elements than its work bound, too (HOSTILE_WORK).
    monkeypatch.setattr(html, "MAX_DEPTH", 1_000)
    with pytest.raises(PageRefused, match="nests elements more than 1,000 deep"):
        read('<p><math alttext="n">' + "<mrow>" * 1_001)


def test_stored_texts_keep_the_unicode_and_older_formats_show_tex(tmp_path):
    store = TextStore(tmp_path)
    text = "Let $x^{2}$ and $$y$$ be."
    block = Block(PARAGRAPH, text, maths=spans(text, {"$x^{2}$": "x²", "$$y$$": "y"}))
    path = store.save(Document("2101.00001", 1, "html", (block,)))
    data = json.loads(path.read_text())
    assert data["format"] == 4 and data["blocks"] == [["paragraph", text, None, {"maths": [[4, 11, "x²"], [16, 21, "y"]]}]]
    loaded = store.load("2101.00001")
    assert loaded is not None and loaded.blocks == (block,)
    assert list(lines(loaded, unicode=True)) == ["Let x² and y be."] and list(lines(loaded)) == [text]

    data["format"] = 2  # a text stored before: read as it was, its math as TeX
    data["blocks"] = [["paragraph", text]]
    path.write_text(json.dumps(data))
    loaded = store.load("2101.00001")
    assert loaded is not None and list(lines(loaded, unicode=True)) == [text]

    data["format"] = 3  # spans edited so they no longer fall on formulas: ignored, TeX shown
    data["blocks"] = [["paragraph", text, None, {"maths": [[0, 3, "\x1b[31mred"]]}]]
    path.write_text(json.dumps(data))
    loaded = store.load("2101.00001")
    assert loaded is not None and loaded.blocks[0].maths == () and list(lines(loaded, unicode=True)) == [text]


@pytest.mark.parametrize("shape", ["function applied", "fraction over a product"])
def test_each_element_is_said_once_however_deep_the_nesting(monkeypatch, shape):
    """A row looks ahead past a function application and a fraction weighs its denominator: said
    afresh at each level, 30 levels would be 2**30 conversions (hours for one formula)."""
    from reader.fulltext import mathml

    calls = []
    real = mathml._say_afresh
    monkeypatch.setattr(mathml, "_say_afresh", lambda node, script: calls.append(node) or real(node, script))
    builder, levels = mathml.MathBuilder(), 30

    def leaf(tag: str, text: str) -> None:
        builder.start(tag, [])
        builder.data(text)
        builder.end(tag)

    for _ in range(levels):
        if shape == "function applied":
            builder.start("mrow", [])
            leaf("mi", "f")
            leaf("mo", "\u2061")
        else:
            builder.start("mfrac", [])
            leaf("mn", "1")
            builder.start("mrow", [])
            leaf("mi", "a")
    leaf("mi", "x")
    for _ in range(levels):
        builder.end("mrow")
        if shape != "function applied":
            builder.end("mfrac")
    said = builder.unicode()
    assert said is not None and said.count("f" if shape == "function applied" else "1/") == levels
    assert len(calls) <= 2 * 5 * levels  # every element at most once as a script and once not
