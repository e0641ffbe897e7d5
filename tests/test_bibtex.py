"""BibTeX export: every fixture paper and hand-made nasty cases pass real bibtex and pdflatex."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import sys

import pytest

from reader.arxiv.parse import parse_api_page
from reader.core.bibtex import base_key, escape_text, export, unique_keys
from reader.models import Author, Paper
from tests.conftest import FIXTURES, TOOLS, fixture_bytes

BIBCHECK = TOOLS / "bibcheck.sh"


def fixture_papers() -> list[Paper]:
    papers = []
    for name in sorted(p.name for p in FIXTURES.glob("api-*.xml")) or ["missing"]:
        if "error" in name:
            continue
        papers += parse_api_page(fixture_bytes(name)).papers
    return papers


def paper(**changes) -> Paper:
    base = Paper(
        id="2609.00001", version=1, title="A title", abstract="", authors=(Author("Ada Lovelace"),),
        categories=("cs.LG",), primary_category="cs.LG", published="2026-09-01T00:00:00Z",
        updated="2026-09-01T00:00:00Z",
    )
    return dataclasses.replace(base, **changes)


def nasty_papers() -> list[Paper]:
    specials = "Costs & benefits: 50% of #1 runs_fast cost $5, ~x, a^b, C:\\path, {lone brace, a<b>c|d"
    return [
        paper(id="2609.00001", title=specials),
        paper(id="2609.00002", title="BERT, GPT-4 and ImageNet: Q-learning for LLMs with $O(N\\log N)$ cost"),
        paper(id="2609.00003", title="Schr\\\"{o}dinger meets M\\\"uller: \\emph{exact} results in \\LaTeX",
              authors=(Author("Jos\\'{e} Ram\\'irez"), Author("Øyvind Müller"), Author("Sólrún Einarsdóttir"))),
        paper(id="2609.00004", title="Forty authors", authors=tuple(Author(f"Author{i} Surname{i}") for i in range(40))),
        paper(id="2609.00005", title="Detector results", authors=(Author("ATLAS Collaboration"), Author("Jane Roe"))),
        paper(id="2609.00006", title="Escaping }, note = {x} attempts", authors=(Author("Evil }, year = {1999"),)),
        paper(id="2609.00007", title="中文 title with CJK 张伟", authors=(Author("张伟"), Author("Li Wei"))),
        paper(id="2609.00008", title="Et al. authors", authors=(Author("Bob Jones et al."),)),
        # Colliding keys: same first author, year and first significant word.
        paper(id="2609.00009", title="Deep learning again", published="2026-03-02T00:00:00Z"),
        paper(id="2609.00010", title="Deep learning once more", published="2026-03-01T00:00:00Z"),
        paper(id="2609.00011", title="deep Learning", published="2026-04-01T00:00:00Z"),
        paper(id="2609.00012", title="Smart quotes “like” this – and — dashes … α ≤ β", doi="10.1000/a_b%c",
              journal_ref="J. Phys. A: Math. 42 #3 & more (2009)"),
        paper(id="2609.00013", title="0"),
        paper(id="2609.00014", title="Price is $35,000 in total, not math"),
    ]


def test_keys_are_scholar_style_unique_and_stable():
    collide = nasty_papers()[8:11]
    keys = unique_keys(collide)
    assert keys == {"2609.00010": "lovelace2026deep", "2609.00009": "lovelace2026deepa", "2609.00011": "lovelace2026deepb"}
    # A newer paper with the same key joins: the others keep theirs.
    newer = paper(id="2610.00001", title="Deep nets", published="2026-10-01T00:00:00Z")
    assert {k: v for k, v in unique_keys(collide + [newer]).items() if k != newer.id} == keys
    assert base_key(paper(title="The Attention Is All You Need", authors=(Author("Ashish Vaswani"),), published="2017-06-12T00:00:00Z")) == "vaswani2017attention"
    assert all(re.fullmatch(r"[a-z0-9]+", k) for k in unique_keys(nasty_papers()).values())


def test_escaping_rules():
    assert escape_text("50% & #1_x $5") == r"50\% \& \#1\_x \$5"
    assert escape_text("a ~ b ^ c \\ d") == r"a \textasciitilde{} b \textasciicircum{} c \textbackslash{} d"
    assert escape_text("BERT and GPT-4 beat Title Case", protect_case=True) == "{BERT} and {GPT-4} beat Title Case"
    assert escape_text("cost $O(N)$ here", protect_case=True) == "cost {$O(N)$} here"
    assert escape_text("Müller Øyvind") == r'M{\"u}ller {\O}yvind'
    assert escape_text("(BERT), ImageNet: \\LaTeX.", protect_case=True) == r"({BERT}), {ImageNet}: {\LaTeX}."
    assert escape_text("Price is $35,000 in total") == r"Price is \$35,000 in total"


def test_authors_are_joined_with_and_and_corporate_names_braced():
    text = export(nasty_papers())
    forty = re.search(r"@misc\{surname02026forty,.*?author = \{(.*?)\},\n", text, re.S).group(1)
    assert forty.count(" and ") == 39
    assert "author = {{ATLAS Collaboration} and Jane Roe}" in text
    assert "author = {Bob Jones and others}" in text
    assert r"author = {Jos{\'e} Ram{\'{\i}}rez and {\O}yvind M{\"u}ller and S{\'o}lr{\'u}n Einarsd{\'o}ttir}" in text


def test_hostile_text_stays_inside_its_field():
    text = export([nasty_papers()[5]])
    assert "title = {Escaping \\textbraceright{}, note = \\textbraceleft{}x\\textbraceright{} attempts}" in text
    assert "\n  note" not in text


def test_demo_papers_are_left_out():
    assert export([paper(demo=True)]) == ""


@pytest.mark.skipif(shutil.which("bibtex") is None, reason="bibtex is not installed (apt-get install texlive-binaries texlive-base texlive-latex-base)")
@pytest.mark.parametrize("which", ["fixtures", "nasty"])
def test_real_tool_chains_accept_the_export(tmp_path, which):
    papers = fixture_papers() if which == "fixtures" else nasty_papers()
    bib = tmp_path / f"{which}.bib"
    bib.write_text(export(papers), encoding="utf-8")
    result = subprocess.run(
        ["bash", str(BIBCHECK), "--strict", "--no-biber", "--python", sys.executable, str(bib)],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "bibcheck: PASS (0 warning(s))" in result.stdout
    entries = len({p.id for p in papers})  # one entry per paper, none lost or split
    assert f"entry counts: bibtex/plain={entries}, bibtexparser={entries}, pybtex={entries}" in result.stdout
