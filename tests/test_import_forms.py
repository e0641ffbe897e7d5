"""`reader import` finds every arXiv paper a real library names (tests/fixtures/import/real, see
SOURCES there): the academic-homepage `arxiv` field, `Ar{X}iv:ID` in a textbook's journal
fields, @string macros, links and `arXiv:ID` in any field, old-style ids with their subject
class, escaped math in titles; a malformed id's HTTP 400 costs only itself; the first run finds
what a second would; the summary tells why, grouped when there are many."""

from __future__ import annotations

import pytest

from reader.core.import_file import read
from reader.ids import parse_paper_id
from reader.store import Store
from tests.conftest import ROOT, run
from tests.helpers.import_library import CACHED, ON_ARXIV_ONLY, by_key, id_requests, imported, paper

REAL = ROOT / "tests" / "fixtures" / "import" / "real"
OLD_STYLE = paper("cs/0003005", "Querying the Web", ["Serge Abiteboul"], 10)
LAMBDA = paper("2611.01009", "The $\\Lambda$CDM Model at Small Scales", ["Elena Rossi"], 11)


@pytest.fixture
def library(data_dir) -> Store:
    store = Store(data_dir)
    store.save_papers([*CACHED, LAMBDA], None, news=False)
    return store


@pytest.fixture
def arxiv(arxiv_env):
    arxiv_env.by_id |= {ON_ARXIV_ONLY.id: ON_ARXIV_ONLY, OLD_STYLE.id: OLD_STYLE}
    arxiv_env.refused_ids.add("2013.12345")
    return arxiv_env


@pytest.mark.parametrize("name, entries", [("d2l.bib", 488), ("homepage.bib", 13)])
def test_every_arxiv_paper_of_a_real_file_is_found(name, entries):
    _, citations = read((REAL / name).read_bytes(), name)
    expected = dict(line.split() for line in (REAL / name.replace(".bib", ".expected")).read_text().splitlines())
    assert len(citations) == entries
    assert {c.key: c.arxiv_id for c in citations if c.arxiv_id} == expected


def test_an_id_alone_in_the_pages_of_an_arxiv_journal_is_found():
    """ADS's form (a real Zotero library holds it): the journal is arXiv, the id stands in `pages`."""
    from reader.core.citedids import cited_id

    assert cited_id({"journal": "arXiv e-prints", "pages": "astro-ph/0511773"}) == ("astro-ph/0511773", "text")
    assert cited_id({"journal": "{arXiv} e-prints", "eid": "{2101.00001}"}) == ("2101.00001", "text")
    assert cited_id({"journal": "Physical Review D", "pages": "2101.00001"}) is None  # a page number that looks like one


def test_old_style_ids_lose_their_subject_class():
    assert parse_paper_id("https://arxiv.org/abs/cs.DB/0003005v2") == ("cs/0003005", 2)
    assert parse_paper_id("math.GT/0309136") == ("math/0309136", None)


FOUND = {
    "homepage2026graph": ("2611.01008", "id"),  # arxiv = {ID}
    "macro2026attention": ("2611.01001", "text"),  # journal = arxiv # {ID}
    "html2026scaling": ("2612.02001", "link"),  # html = {arxiv.org/abs/ID}, no scheme
    "pages2026reason": ("2611.01004", "text"),  # pages = {arXiv:ID}
    "annote2026residual": ("2611.01002", "link"),  # a pdf link in annote
    "oldstyle2000": ("cs/0003005", "link"),  # arxiv.org/abs/cs.DB/0003005
    "textbook2026schrodinger": ("2611.01003", "text"),  # Ar{X}iv:ID [cs.LG]
    "macroauthors2026attention": ("2611.01001", "title"),  # authors given as macros
    "zotero2026lambda": ("2611.01009", "title"),  # \$\textbackslash{{Lambda}}\$ in the title
    "duplicate2026scaling": ("2612.02001", "title"),  # id-less duplicate of a paper fetched now
}


def test_each_form_is_found_and_a_malformed_id_costs_only_itself(capsys, library, arxiv):
    code, result, err = imported(capsys, str(REAL / "forms.bib"))
    assert code == 0, err
    assert {row["key"]: (row["id"], row["how"]) for row in result["matched"]} == FOUND
    unmatched = {row["key"]: row["reason"] for row in result["unmatched"]}
    assert unmatched == {
        "malformed2013": "not an arXiv id: arXiv refuses 2013.12345 as malformed",
        "knuth1968art": "no arXiv id, and no cached paper has this title (--search-titles looks for it on arXiv)",
    }
    assert sorted(result["fetched"]) == ["2612.02001", "cs/0003005"]
    # The batch arXiv refused is asked again without the malformed id.
    asked = [r.params["id_list"].split(",") for r in id_requests(arxiv)]
    assert asked == [["2612.02001", "cs/0003005", "2013.12345"], ["2612.02001", "cs/0003005"]]
    assert Store(library.data_dir).marks().starred == {pid for pid, _ in FOUND.values()}
    assert "12 entries: 10 matched, 2 fetched from arXiv, 2 not found" in err

    # A second run finds exactly what the first did, and asks arXiv nothing: the malformed id
    # was remembered beside those arXiv has not.
    again_code, again, _ = imported(capsys, str(REAL / "forms.bib"))
    assert again_code == 0 and by_key(again) == by_key(result) and again["fetched"] == []
    assert len(id_requests(arxiv)) == 2
    assert Store(library.data_dir).sync_file.malformed_on_arxiv() == {"2013.12345": "2026-12-02"}


def test_the_summary_prints_titles_without_braces(capsys, library, arxiv):
    code, out, err = run(capsys, "import", str(REAL / "forms.bib"))
    assert code == 0, err
    assert "knuth1968art\tThe Art of Computer Programming\tno arXiv id, and no cached paper has this title" in out


def test_hundreds_not_found_are_told_by_reason(capsys, library, arxiv, tmp_path):
    many = tmp_path / "many.bib"
    many.write_text(
        "".join(f"@article{{nobody{n}, title = {{An {{U}}nknown Paper {n}}}, author = {{Doe, Jane}}}}\n" for n in range(300))
        + "".join(f"@misc{{untitled{n}, note = {{{n}}}}}\n" for n in range(5))
        + "@article{vaswani, title = {Attention Is All You Need}, author = {Vaswani, Ashish}}\n",
        encoding="utf-8",
    )
    code, out, err = run(capsys, "import", str(many))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "306 entries: 1 matched, 0 fetched from arXiv, 305 not found"
    assert lines[2] == (
        "300 entries: no arXiv id, and no cached paper has this title: nobody0, nobody1, nobody2, nobody3, "
        "nobody4, nobody5, nobody6, nobody7 and 292 more"
    )
    assert lines[3] == "5 entries: no arXiv id and no title: untitled0, untitled1, untitled2, untitled3, untitled4"
    assert len(lines) == 5 and "--json" in lines[4]
