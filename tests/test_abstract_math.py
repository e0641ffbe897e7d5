"""Math in titles and abstracts shown as Unicode (reader/core/texmath.py): on the recorded
fixtures' real TeX, on what pylatexenc's defaults would drop, on hostile text; and in the app,
on cards and in the detail view (the setting, and T switching the view)."""

from __future__ import annotations

import os
import re
import sys

import pytest

from reader.app.screens.detail import DetailScreen
from reader.arxiv.parse import parse_api_page
from reader.core.texmath import MAX_DEPTH, MAX_SPAN, convert, tex_to_unicode
from reader.store import Store
from tests.conftest import fixture_bytes, run
from tests.corpus import recent_papers, record_synced
from tests.helpers.app import make_app, ready, settings
from tests.terminal import run_in_terminal

FIXTURE = "api-2026-search-all-testing-100-entries.xml"


@pytest.fixture(scope="module")
def recorded():
    """The fixture's papers by id."""
    return {paper.id: paper for paper in parse_api_page(fixture_bytes(FIXTURE)).papers}


@pytest.mark.parametrize(
    "tex, shown",
    [  # spans as the fixture's abstracts write them
        (r"$\nabla f(\mathbf{x})/\|\nabla f(\mathbf{x})\|$", "∇f(𝐱)/‖∇f(𝐱)‖"),
        (r"$f\colon\mathbb R^n\to\mathbb R$", "f: ℝⁿ → ℝ"),
        (r"$\tilde{O}(\varepsilon^{-2})$", "Õ(ε⁻²)"),
        (r"$\tildeΘ(\sqrt{\log N} \cdot \varepsilon^{-2})$", "Θ̃(√(log N) · ε⁻²)"),
        (r"$M = O(K^2\log{(N/K)}/p^3)$", "M = O(K² log(N/K)/p³)"),
        (r"$X \sim N(\mathbfθ, I_\infty)$", "X ∼ N(𝛉, I_∞)"),
        (r"$\mathbfθ \in Γ\subset \ell_2$", "𝛉 ∈ Γ ⊂ ℓ₂"),
        (r"$γ:V \rightarrow \{1,2,\dots,k\}$", "γ:V → {1,2,…,k}"),
        (r"$\varepsilon_1/\varepsilon_2^2$", "ε₁/ε₂²"),
        (r"$0 \le α, β\le 1/8$", "0 ≤ α, β ≤ 1/8"),
        (r"$25\%$", "25%"),
        # and what the issue names
        (r"$\|W\|_F$", "‖W‖_F"),
        (r"$\mathcal{O}(n^2)$", "𝒪(n²)"),
        (r"$\mathbb{E}_{x\sim p}[\log q(x)]$", "𝔼_{x ∼ p}[log q(x)]"),
        (r"$x_{ij}$", "x_{ij}"),  # ⱼ is too rarely drawn: the subscript stays TeX
        (r"$x_{i+1}$", "xᵢ₊₁"),
        (r"$\frac{a}{b} + \frac{n+1}{2}$", "a/b + (n+1)/2"),
        (r"$\sqrt{x}$", "√x"),
        (r"$\hat{x}$", "x̂"),
        (r"$a \not= b$", "a ≠ b"),
        (r"$W^\top x \cdot y$", "Wᵀx · y"),
        (r"$\neg p \land q \iff x \perp y$", "¬p ∧ q ⟺ x ⊥ y"),  # latex2text's table lacks these
        (r"$\alpha$-divergence", "α-divergence"),
        (r"\(x^2\) and $$\sum_{i=1}^n x_i$$", "x² and ∑ᵢ₌₁ⁿ xᵢ"),
        (r"\emph{Sch\"on} costs \$5", "Schön costs $5"),
    ],
)
def test_math_spans_are_shown_as_unicode(tex, shown):
    assert tex_to_unicode(tex) == shown


def test_the_fixtures_abstracts_are_converted_whole_with_their_plain_text_untouched(recorded):
    gradient = recorded["2405.11454"].abstract  # \mathbb R^n, \|...\|, \mathbf{x}
    assert r"\|\nabla f(\mathbf{x})\|" in gradient
    converted = convert(gradient)
    assert converted.kept == ()
    assert "‖∇f(𝐱)‖" in converted.text and "$" not in converted.text and "\\" not in converted.text
    # the words between the spans are as arXiv wrote them
    plain = [piece for piece in re.split(r"\$[^$]+\$", gradient) if piece.strip()]
    assert all(piece.strip() in converted.text for piece in plain)
    assert tex_to_unicode(recorded["2306.03845"].title) == "ωTest: WebView-Oriented Testing for Android Applications"


@pytest.mark.parametrize(
    "tex, shown, kept",
    [
        (r"$\foo{x} + y$", r"\foo{x} + y", [r"\foo", "{x}"]),  # unknown: as typed, its argument too
        (r"$\cite{x}$", r"\cite{x}", [r"\cite{x}"]),  # pylatexenc would print <cit.>
        (r"$\overline{xy}$", r"\overline{xy}", [r"\overline{xy}"]),  # an accent over two letters
        (r"$\sqrt[n]{x}$", r"\sqrt[n]{x}", [r"\sqrt[n]{x}"]),
        (r"$\begin{pmatrix}a\\b\end{pmatrix}$", r"\begin{pmatrix}a\\b\end{pmatrix}", [r"\begin{pmatrix}a\\b\end{pmatrix}"]),
        (r"$\frac{a}$ rest", r"$\frac{a}$ rest", [r"$\frac{a}$"]),  # not TeX that reads: the span whole
        (r"cut at $\mathcal{O}(n", r"cut at $\mathcal{O}(n", []),  # a card's abstract ends mid-span
    ],
)
def test_what_cannot_be_said_in_unicode_stays_tex(tex, shown, kept):
    converted = convert(tex)
    assert (converted.text, list(converted.kept)) == (shown, kept)


def test_hostile_text_is_bounded_and_comes_out_clean():
    too_long = "$" + "x+" * MAX_SPAN + "x$"
    assert tex_to_unicode(too_long) == too_long
    too_deep = "$" + "{" * (MAX_DEPTH + 1) + "x" + "}" * (MAX_DEPTH + 1) + "$"
    assert tex_to_unicode(too_deep) == too_deep
    assert tex_to_unicode("$" + "\\left(" * 40 + "$") == "(" * 40
    # control characters and markup inside math never reach the screen as such
    shown = tex_to_unicode("$\\text{\x1b[31mred\x07}$ and [bold]x[/bold] $\\alpha\u202e$")
    assert shown == "[31mred and [bold]x[/bold] α"


def _fixture_store(data_dir, ids):
    """A cache of the fixture's papers named (their TeX as recorded), re-dated to recent days."""
    chosen = [paper for paper in recent_papers(100) if paper.title in ids]
    store = Store(data_dir)
    store.add_topic("Testing", "all:testing")
    store.save_papers(chosen, "Testing")
    record_synced(store, "Testing", "all:testing")
    return store, chosen


def _screen(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_cards_and_the_detail_view_show_math_as_unicode_and_t_switches_it(data_dir, recorded):
    titles = {recorded["2306.03845"].title, recorded["2106.13414"].title}  # $ω$Test; $\varepsilon_1$ in the abstract
    store, chosen = _fixture_store(data_dir, titles)
    omega, tolerance = sorted(chosen, key=lambda paper: paper.title.startswith("$"), reverse=True)
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = _screen(app)
        assert "ωTest: WebView-Oriented Testing" in screen and "$ω$" not in screen
        assert "{1, …, n}, is it ε₁-close" in screen
        await pilot.press("enter" if app.main.paper_list.current == tolerance.id else "j", "enter")
        await ready(pilot)
        assert isinstance(app.screen, DetailScreen) and app.screen.paper_id == tolerance.id
        view = app.screen.record_view
        abstract = view.text.split("\nAbstract\n")[1].split("\nNote\n")[0]
        assert "ε₁-close to or ε₂-far" in abstract and "$" not in abstract
        await pilot.press("T")
        assert r"$\varepsilon_1$-close to or $\varepsilon_2$-far" in " ".join(view.text.split())
        await pilot.press("T")
        assert "ε₁-close to or ε₂-far" in view.text
        await pilot.press("escape")
        assert omega.title in store.load_paper(omega.id).title  # the cache keeps arXiv's TeX


async def test_the_tex_setting_shows_cards_and_the_detail_view_as_arxiv_wrote_them(data_dir, recorded):
    store, chosen = _fixture_store(data_dir, {recorded["2306.03845"].title})
    app = make_app(store, app_settings=settings(math="tex"))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert "$ω$Test: WebView-Oriented Testing" in _screen(app)
        await pilot.press("enter")
        await ready(pilot)
        assert app.screen.record_view.text.splitlines()[1] == "$ω$Test: WebView-Oriented Testing for Android Applications"
        await pilot.press("T")
        assert app.screen.record_view.text.splitlines()[1] == "ωTest: WebView-Oriented Testing for Android Applications"


def test_reader_list_shows_unicode_on_a_terminal_and_arxivs_tex_in_a_pipe(data_dir, recorded, capsys):
    _fixture_store(data_dir, {recorded["2306.03845"].title})
    argv = [sys.executable, "-m", "reader", "--data-dir", str(data_dir), "list"]
    env = {**os.environ, "TERM": "xterm-256color"}
    on_terminal = run_in_terminal(argv, env=env, deadline=60)
    assert on_terminal.status == 0, on_terminal.output
    assert "ωTest: WebView-Oriented Testing" in on_terminal.output and "$ω$" not in on_terminal.output
    as_tex = run_in_terminal(argv, env={**env, "READER_DISPLAY_MATH": "tex"}, deadline=60)
    assert "$ω$Test: WebView-Oriented Testing" in as_tex.output
    code, out, _ = run(capsys, "--data-dir", str(data_dir), "list")  # standard output is no terminal
    assert code == 0 and "[cs.SE]  $ω$Test: WebView-Oriented Testing" in out
