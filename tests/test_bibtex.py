"""BibTeX export: every fixture paper and hand-made nasty cases pass real bibtex and pdflatex."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from reader.core.bibtex import export
from reader.core.citekeys import natural_key as base_key
from reader.core.citekeys import unique_keys
from reader.core.latex import escape_text
from reader.models import Author
from tests.helpers.bibtex import BIBCHECK, fixture_papers, nasty_papers, paper
from tests.helpers.timing import scaled


def test_keys_are_scholar_style_unique_and_stable():
    collide = nasty_papers()[8:11]
    keys = unique_keys(collide)
    assert keys == {"2609.00010": "lovelace2026deep", "2609.00009": "lovelace2026deepa", "2609.00011": "lovelace2026deepb"}
    # A newer paper with the same key joins: the others keep theirs.
    newer = paper(id="2610.00001", title="Deep nets", published="2026-10-01T00:00:00Z")
    assert {k: v for k, v in unique_keys(collide + [newer]).items() if k != newer.id} == keys
    assert (
        base_key(paper(title="The Attention Is All You Need", authors=(Author("Ashish Vaswani"),), published="2017-06-12T00:00:00Z"))
        == "vaswani2017attention"
    )
    assert all(re.fullmatch(r"[a-z0-9]+", k) for k in unique_keys(nasty_papers()).values())


def test_any_number_of_papers_sharing_a_key_get_keys_of_their_own():
    # One author, one year, one first word: a prolific group reaches past zz (it stopped there).
    many = [
        paper(id=f"2609.{i:05d}", title=f"Quantum Monte Carlo study {i}", published=f"2026-09-{1 + i % 28:02d}T00:00:00Z")
        for i in range(1400)
    ]
    keys = unique_keys(many)
    assert len(set(keys.values())) == 1400
    assert {
        "lovelace2026quantum",
        "lovelace2026quantumz",
        "lovelace2026quantumaa",
        "lovelace2026quantumzz",
        "lovelace2026quantumaaa",
    } <= set(keys.values())


def test_escaping_rules():
    assert escape_text("50% & #1_x $5") == r"50\% \& \#1\_x \$5"
    assert escape_text("a ~ b ^ c \\ d") == r"a \textasciitilde{} b \textasciicircum{} c \textbackslash{} d"
    assert escape_text("BERT and GPT-4 beat Title Case", protect_case=True) == "{BERT} and {GPT-4} beat {Title} {Case}"
    assert escape_text("cost $O(N)$ here", protect_case=True) == "cost {$O(N)$} here"
    assert escape_text("Müller Øyvind") == r"M{\"u}ller {\O}yvind"
    assert escape_text("(BERT), ImageNet: \\LaTeX.", protect_case=True) == r"({BERT}), {ImageNet}: {\LaTeX}."
    assert escape_text("Price is $35,000 in total") == r"Price is \$35,000 in total"


def test_authors_are_joined_with_and_and_corporate_names_braced():
    text = export(nasty_papers())
    forty = re.search(r"@misc\{surname02026forty,.*?author = \{(.*?)\},\n", text, re.DOTALL).group(1)
    assert forty.count(" and ") == 39
    assert "author = {{ATLAS Collaboration} and Roe, Jane}" in text
    assert "author = {Jones, Bob and others}" in text
    assert r"author = {Ram{\'i}rez, Jos{\'e} and M{\"u}ller, {\O}yvind and Einarsd{\'o}ttir, S{\'o}lr{\'u}n}" in text


def test_hostile_text_stays_inside_its_field():
    text = export([nasty_papers()[5]])
    # The balanced pair is the title's own grouping (printed as x); the lone brace is text.
    assert "title = {Escaping \\textbraceright{}, note = {x} attempts}" in text
    assert "author = {{Evil \\textbraceright{}, year = \\textbraceleft{}1999}}" in text
    assert "\n  note" not in text


def test_capitalised_words_after_the_first_are_braced():
    title = "Gaussian processes for Bertrand-Nash games: a (Bayesian) view of Ångström's law, II"
    assert escape_text(title, protect_case=True) == (
        r"Gaussian processes for {Bertrand-Nash} games: a ({Bayesian}) view of {{\r{A}}ngstr{\"o}m's} law, {II}"
    )
    assert escape_text("Non-linear maps", protect_case=True) == "Non-linear maps"  # the first word: styles keep it
    assert escape_text("$k$-Means and Deep nets", protect_case=True) == "{$k$}-{Means} and {Deep} nets"


def test_scripts_latex_cannot_typeset_are_transliterated():
    assert escape_text("张伟 and 김철수") == "Zhang Wei and Gim Cheol Su"
    assert escape_text("中文 title by 张伟", protect_case=True) == "{Zhong Wen} title by {Zhang Wei}"
    assert escape_text("Иван Петров, カタカナ") == "Ivan Petrov, katakana"
    text = export([nasty_papers()[6], nasty_papers()[15]])
    assert "author = {{Zhang Wei} and Wei, Li}" in text  # kept whole: family name first, as written
    assert "author = {Petrov, Ivan and {Gim Cheol Su} and {Tian Zhong Tai Lang} and `ly, mhmd}" in text
    assert "@misc{zhangwei2026zhongwen," in text and "@misc{petrov2026obuchenie," in text
    assert re.search(r"title = \{.*\$\\in\$", text)  # a symbol with a math command keeps its meaning
    assert all(ord(ch) < 128 for ch in text)


def test_unicode_keeps_utf8_and_still_escapes():
    text = export([nasty_papers()[2], nasty_papers()[6], nasty_papers()[11]], unicode=True)
    assert "author = {Ramírez, José and Müller, Øyvind and Einarsdóttir, Sólrún}" in text
    assert "author = {{张伟} and Wei, Li}" in text
    assert "title = {中文 title with {CJK} 张伟}" in text
    assert "Schrödinger" in text and "“like”" in text
    assert r"note = {Published in J. Phys. A: Math. 42 \#3 \& more (2009)}" in text
    assert "@misc{zhangwei2026zhongwen," in text  # keys stay ASCII


def test_demo_papers_are_left_out():
    assert export([paper(demo=True)]) == ""


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("bibtex") is None, reason="bibtex is not installed (apt-get install texlive-binaries texlive-base texlive-latex-base)"
)
@pytest.mark.parametrize("which", ["fixtures", "nasty"])
def test_real_tool_chains_accept_the_export(tmp_path, which):
    papers = fixture_papers() if which == "fixtures" else nasty_papers()
    bib = tmp_path / f"{which}.bib"
    bib.write_text(export(papers), encoding="utf-8")
    result = subprocess.run(
        ["bash", str(BIBCHECK), "--strict", "--no-biber", "--python", sys.executable, str(bib)],
        capture_output=True,
        text=True,
        timeout=scaled(300),
        check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "bibcheck: PASS (0 warning(s))" in result.stdout
    entries = len({p.id for p in papers})  # one entry per paper, none lost or split
    assert f"entry counts: bibtex/plain={entries}, bibtexparser={entries}, pybtex={entries}" in result.stdout


def _bbl(tmp_path, text: str, style: str = "plain") -> str:
    """What real bibtex makes of a .bib file: the .bbl, after checking it reported no error."""
    (tmp_path / "refs.bib").write_text(text, encoding="utf-8")
    (tmp_path / "doc.aux").write_text(f"\\relax\n\\citation{{*}}\n\\bibstyle{{{style}}}\n\\bibdata{{refs}}\n")
    result = subprocess.run(["bibtex", "doc"], cwd=tmp_path, capture_output=True, text=True, timeout=scaled(60), check=False)
    assert result.returncode == 0, result.stdout
    return (tmp_path / "doc.bbl").read_text("utf-8")


@pytest.mark.skipif(
    shutil.which("bibtex") is None, reason="bibtex is not installed (apt-get install texlive-binaries texlive-base texlive-latex-base)"
)
def test_plain_bibtex_keeps_the_capitals_of_names(tmp_path):
    bbl = " ".join(_bbl(tmp_path, export([nasty_papers()[14], nasty_papers()[6]])).split())
    assert "Gaussian {Processes} meet {Bertrand-Nash} {Equilibria} in" in bbl
    assert "{Zhong Wen} title with {CJK} {Zhang Wei}" in bbl


@pytest.mark.skipif(
    shutil.which("bibtex") is None, reason="bibtex is not installed (apt-get install texlive-binaries texlive-base texlive-latex-base)"
)
@pytest.mark.parametrize("style", ["plain", "unsrt"])
def test_sentence_case_styles_keep_the_capitals_of_a_titles_first_word(tmp_path, style):
    # The styles keep only the title's very first letter: the Nash of a first word Bertrand-Nash,
    # and a first word after a parenthesis, need braces too.
    titles = ["Bertrand-Nash equilibria in games", "(Gaussian) noise in Hilbert spaces"]
    papers = [paper(id=f"2609.0030{i}", title=title) for i, title in enumerate(titles)]
    typeset = re.sub(r"[{}]", "", " ".join(_bbl(tmp_path, export(papers), style).split()))  # braces only guard case
    assert all(title in typeset for title in titles), typeset


@pytest.mark.skipif(
    shutil.which("bibtex") is None, reason="bibtex is not installed (apt-get install texlive-binaries texlive-base texlive-latex-base)"
)
def test_unicode_export_passes_bibtex_with_its_utf8_intact(tmp_path):
    from bibtexparser import parse_string

    text = export(nasty_papers(), unicode=True)
    bbl = " ".join(_bbl(tmp_path, text).split())
    assert "{张伟} and Li~Wei" in bbl and "Øyvind Müller" in bbl and "Иван Петров" in bbl
    library = parse_string(text)
    assert not library.failed_blocks
    assert len(library.entries) == len(nasty_papers())
