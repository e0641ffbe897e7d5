"""Shared test helpers, first written for tests/test_bibtex.py."""

from __future__ import annotations

import dataclasses

from reader.arxiv.parse import parse_api_page
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
        id="2609.00001",
        version=1,
        title="A title",
        abstract="",
        authors=(Author("Ada Lovelace"),),
        categories=("cs.LG",),
        primary_category="cs.LG",
        published="2026-09-01T00:00:00Z",
        updated="2026-09-01T00:00:00Z",
    )
    return dataclasses.replace(base, **changes)


def nasty_papers() -> list[Paper]:
    specials = "Costs & benefits: 50% of #1 runs_fast cost $5, ~x, a^b, C:\\path, {lone brace, a<b>c|d"
    return [
        paper(id="2609.00001", title=specials),
        paper(id="2609.00002", title="BERT, GPT-4 and ImageNet: Q-learning for LLMs with $O(N\\log N)$ cost"),
        paper(
            id="2609.00003",
            title='Schr\\"{o}dinger meets M\\"uller: \\emph{exact} results in \\LaTeX',
            authors=(Author("Jos\\'{e} Ram\\'irez"), Author("Øyvind Müller"), Author("Sólrún Einarsdóttir")),
        ),
        paper(id="2609.00004", title="Forty authors", authors=tuple(Author(f"Author{i} Surname{i}") for i in range(40))),
        paper(id="2609.00005", title="Detector results", authors=(Author("ATLAS Collaboration"), Author("Jane Roe"))),
        paper(id="2609.00006", title="Escaping }, note = {x} attempts", authors=(Author("Evil }, year = {1999"),)),
        paper(id="2609.00007", title="中文 title with CJK 张伟", authors=(Author("张伟"), Author("Li Wei"))),
        paper(id="2609.00008", title="Et al. authors", authors=(Author("Bob Jones et al."),)),
        # Colliding keys: same first author, year and first significant word.
        paper(id="2609.00009", title="Deep learning again", published="2026-03-02T00:00:00Z"),
        paper(id="2609.00010", title="Deep learning once more", published="2026-03-01T00:00:00Z"),
        paper(id="2609.00011", title="deep Learning", published="2026-04-01T00:00:00Z"),
        paper(
            id="2609.00012",
            title="Smart quotes “like” this – and — dashes … α ≤ β",
            doi="10.1000/a_b%c",
            journal_ref="J. Phys. A: Math. 42 #3 & more (2009)",
        ),
        paper(id="2609.00013", title="0"),
        paper(id="2609.00014", title="Price is $35,000 in total, not math"),
        paper(id="2609.00015", title="Gaussian Processes meet Bertrand-Nash Equilibria in Ångström-scale Physics"),
        paper(
            id="2609.00016",
            title="Обучение с подкреплением: 한국어 and カタカナ, العربية 😀 x∈A",
            authors=(Author("Иван Петров"), Author("김철수"), Author("田中太郎"), Author("محمد علي")),
        ),
    ]
