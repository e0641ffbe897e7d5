"""Papers and queries for comparing the search index with the scan evaluator (the reference).

Papers: every recorded arXiv page, plus hand-made ones with what is hard to match alike (TeX and
Latin accents, other scripts, odd categories, old-style ids, empty fields). Queries: every
string literal in the test suite that parses as a filter, plus queries generated from the
papers' own words for every field and operator."""

from __future__ import annotations

import ast
import dataclasses
import random

from reader.arxiv.parse import parse_api_page
from reader.core.query import MAX_TERMS, parse
from reader.core.text import words
from reader.errors import QueryError
from reader.models import Author, Paper
from tests.conftest import FIXTURES, ROOT

FIELDS = ("ti", "au", "abs", "co", "jr", "cat", "id", "all")


def fixture_papers() -> list[Paper]:
    papers = []
    for path in sorted(FIXTURES.glob("api-*.xml")):
        if "error" not in path.name:
            papers += parse_api_page(path.read_bytes()).papers
    return papers


def made_papers(model: Paper) -> list[Paper]:
    """Papers built to be hard to match alike."""
    specs = [
        {
            "title": "Schr\\\"{o}dinger operators on \\'{E}cole graphs",
            "abstract": "Na\u00efve bounds for \u00c5ngstr\u00f6m-scale $\\alpha$-decay; x4e2dx is not a letter.",
            "authors": (Author("Adrian Del Maestro", ("Vermont",)), Author("Jos\u00e9 \u00d1\u00fa\u00f1ez", ("UNAM", "Vermont"))),
            "categories": ("cond-mat.str-el", "cs.AI", "68T05", "cs.AI"),
            "comment": "12 pages, 3 figures",
            "journal_ref": "Phys. Rev. B 84, 1 (2011)",
        },
        {
            "title": "\u91cf\u5b50 \u8ba1\u7b97 with \u03b1 decay",
            "abstract": "\u041a\u0432\u0430\u043d\u0442\u043e\u0432\u044b\u0435 \u0432\u044b\u0447\u0438\u0441\u043b\u0435\u043d\u0438\u044f \u0e01\u0e32\u0e23 \u0627\u0644\u062d\u0648\u0633\u0628\u0629 \u03a9mega",
            "authors": (Author("\u5f20\u4f1f"), Author(""), Author("\u00d8deg\u00e5rd \u0141ukasz")),
            "categories": ("quant-ph", "Bad Cat", "hep-th"),
            "comment": None,
            "journal_ref": None,
        },
        {
            "title": "Del Maestro smith bob",
            "abstract": "under_score snake_case a-b c.d 0 00 1e5",
            "authors": (Author("Ada Smith"), Author("Bob Jones"), Author("O'Brien-Smith"), Author("Jean-Luc Picard")),
            "categories": ("cs", "cs.LG", "stat.ML"),
            "comment": "",
            "journal_ref": "  ",
        },
        {
            "title": "Math GT",
            "abstract": "math co math.co cs cs.ai",
            "authors": (Author("\\'Alvaro G\\\"unther"),),
            "categories": ("math.GT", "math.CO"),
            "comment": "cs.AI",
            "journal_ref": None,
        },
    ]
    ids = ["2609.90001", "2609.90002", "hep-th/9901001", "math.GT/0309136"]
    return [
        dataclasses.replace(model, id=pid, version=1 + i % 2, primary_category=spec["categories"][0], **spec)
        for i, (pid, spec) in enumerate(zip(ids, specs))
    ]


def suite_queries() -> list[str]:
    """Every string literal in the test suite that the filter accepts."""
    found: set[str] = set()
    for path in sorted((ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and 0 < len(node.value) < 20000:
                try:
                    parse(node.value, implicit_and=True)
                except QueryError:
                    continue
                found.add(node.value)
    return sorted(found)


def _word_of(rng: random.Random, paper: Paper, field: str) -> str | None:
    if field == "cat":
        return rng.choice(list(paper.categories) + [c.split(".")[0] for c in paper.categories]) if paper.categories else None
    if field == "id":
        return rng.choice([paper.id, f"{paper.id}v{paper.version}", paper.id.upper()])
    text = {
        "ti": paper.title,
        "abs": paper.abstract,
        "co": paper.comment or "",
        "jr": paper.journal_ref or "",
        "au": rng.choice(paper.authors).name if paper.authors else "",
        "all": rng.choice([paper.title, paper.abstract, paper.comment or "x", " ".join(a.name for a in paper.authors)]),
    }[field]
    found = text.split()
    if not found:
        return None
    start = rng.randrange(len(found))
    chosen = " ".join(found[start : start + rng.choice((1, 1, 2, 3))])
    return chosen if words(chosen) else None


def _term(rng: random.Random, papers: list[Paper]) -> str:
    if rng.random() < 0.05:
        low = rng.choice(papers).published[:10].replace("-", "")
        return f"submittedDate:[{low[: rng.choice((4, 6, 8))]} TO {rng.choice(papers).published[:4]}12312359]"
    if rng.random() < 0.03:
        return "rn:ABC-1"
    field = rng.choice(FIELDS)
    word = _word_of(rng, rng.choice(papers), field)
    if word is None or rng.random() < 0.05:
        word = rng.choice(["zebrafish", "the", "learning", "cs", "x4e2dx", "\u91cf\u5b50", "schrodinger", "del_maestro"])
    word = word.replace('"', " ")
    quoted = f'"{word}"' if (" " in word or rng.random() < 0.2) else word
    return quoted if field == "all" and rng.random() < 0.5 else f"{field}:{quoted}"


def generated_queries(papers: list[Paper], count: int, seed: int = 13) -> list[str]:
    rng = random.Random(seed)
    queries = []
    while len(queries) < count:
        query = _expression(rng, papers, depth=rng.choice((0, 1, 2, 3)))
        try:
            parse(query, implicit_and=True)
        except QueryError:
            continue
        queries.append(query)
    queries.append(" OR ".join(f"id:{p.id}" for p in papers[: MAX_TERMS // 2]))  # a long one
    queries.append("(" * 40 + "ti:the" + " OR abs:learning)" * 40)  # deeper than FTS5 takes
    return queries


def _expression(rng: random.Random, papers: list[Paper], depth: int) -> str:
    if depth == 0:
        return _term(rng, papers)
    parts = [_expression(rng, papers, depth - 1) for _ in range(rng.choice((1, 2, 3)))]
    query = parts[0]
    for part in parts[1:]:
        query += f" {rng.choice(('AND', 'OR', 'ANDNOT', ''))} {part}"
    return f"({query})" if rng.random() < 0.5 else query
