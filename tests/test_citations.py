"""Citations as every tool reads them (issue 31): names split right by bibtex, biber, pybtex,
bibtexparser, rispy and citeproc-py; capitals, logos and author braces kept in titles; accents
that biber reads. Crafted papers are compiled with real bibtex + pdflatex (plain, OT1) and with
biblatex + biber + pdflatex (T1, lmodern), and the PDF is read back with pdftotext."""

from __future__ import annotations

import json
import re
import warnings

import pytest

from reader.core import bibtex, csljson, ris
from reader.core.citation import name_parts
from reader.core.latex import escape_text
from reader.models import Author
from tests.helpers.bibtex import paper
from tests.helpers.export import SCHEMA
from tests.helpers.tex import compile_with_biber, compile_with_bibtex, needs_biber, needs_tex

pytestmark = pytest.mark.slow  # TeX tool chains

# One paper per kind of name, each its only author (alpha labels come from a lone author's name).
NAMES = {
    "2609.00101": "Samuel Davis Jr.",
    "2609.00102": "Jun-ichi Kato",
    "2609.00103": "Johannes Diderik van der Waals",
    "2609.00104": "Νίκος Γεωργίου",
    "2609.00105": "佐藤 花子",
    "2609.00106": "张伟",
    "2609.00107": "José Díaz",
    "2609.00108": "ATLAS Collaboration",
    "2609.00109": "Maria da Silva Santos",
    "2609.00110": "Robert Tarjan, III",
}
# (family, given, suffix) or the literal name, as every format must say it.
SPLIT = {
    "Samuel Davis Jr.": ("Davis", "Samuel", "Jr."),
    "Jun-ichi Kato": ("Kato", "Jun-ichi", ""),
    "Johannes Diderik van der Waals": ("van der Waals", "Johannes Diderik", ""),
    "Νίκος Γεωργίου": ("Γεωργίου", "Νίκος", ""),
    "佐藤 花子": ("佐藤", "花子", ""),
    "张伟": "张伟",
    "José Díaz": ("Díaz", "José", ""),
    "ATLAS Collaboration": "ATLAS Collaboration",
    "Maria da Silva Santos": ("Santos", "Maria da Silva", ""),
    "Robert Tarjan, III": ("Tarjan", "Robert", "III"),
}
TITLES = {
    "2609.00201": r"\LaTeX{} and {\LaTeX} typeset \TeX\ documents",
    "2609.00202": "#MeToo and the {Strong} baselines of {GPT}-4",
    "2609.00203": r"The {\#MeToo} corpus and \LaTeX",
    "2609.00204": "α-divergence in ΛCDM cosmology",
    "2609.00205": r"Unbalanced } brace and \emph{emphasis} with \input{x} as text",
}


def name_papers():
    return [paper(id=pid, title="Names", authors=(Author(name),)) for pid, name in NAMES.items()]


def title_papers():
    return [paper(id=pid, title=title) for pid, title in TITLES.items()]


def test_every_kind_of_name_splits_as_the_paper_means_it():
    for name, expected in SPLIT.items():
        parts = name_parts(name)
        assert (parts.literal if isinstance(expected, str) else (parts.family, parts.given, parts.suffix)) == expected, name
    assert name_parts("Samuel Davis, Jr.") == name_parts("Samuel Davis Jr.")
    assert name_parts("Evil }, year = {1999").literal  # any other comma keeps a name whole


def test_bibtex_writes_family_comma_given():
    authors = _authors_by_id(bibtex.export(name_papers()))
    assert authors == {
        "2609.00101": "Davis, Jr., Samuel",
        "2609.00102": "Kato, Jun-ichi",
        "2609.00103": "van der Waals, Johannes Diderik",
        "2609.00104": "Georgioy, Nikos",  # transliterated (anyascii), never math
        "2609.00105": "{Zuo Teng}, Hua Zi",  # the family name first, as written; braced: one family name
        "2609.00106": "{Zhang Wei}",
        "2609.00107": r"D{\'i}az, Jos{\'e}",  # the accent on the plain i, not the dotless \i
        "2609.00108": "{ATLAS Collaboration}",
        "2609.00109": "Santos, Maria da Silva",
        "2609.00110": "Tarjan, III, Robert",
    }
    unicode = _authors_by_id(bibtex.export(name_papers(), unicode=True))
    assert (unicode["2609.00104"], unicode["2609.00105"], unicode["2609.00106"]) == ("Γεωργίου, Νίκος", "佐藤, 花子", "{张伟}")


def _authors_by_id(text: str) -> dict[str, str]:
    return {
        re.search(r"eprint = \{(.*?)\}", entry).group(1): re.search(r"author = \{(.*)\},\n", entry).group(1)
        for entry in text.split("@misc")[1:]
    }


def _families_from_bibtex(text: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Each entry's family names (von and last parts) as pybtex and bibtexparser read them."""
    import bibtexparser
    from bibtexparser.middlewares import SeparateCoAuthors, SplitNameParts
    from pybtex.database import parse_string

    def tidy(parts: list[str]) -> str:
        return " ".join(parts).replace("{", "").replace("}", "")

    by_pybtex = {
        entry.fields["eprint"]: [tidy(p.prelast_names + p.last_names) for p in entry.persons["author"]]
        for entry in parse_string(text, "bibtex").entries.values()
    }
    library = bibtexparser.parse_string(text, append_middleware=[SeparateCoAuthors(), SplitNameParts()])
    assert not library.failed_blocks
    by_parser = {entry["eprint"]: [tidy(n.von + n.last) for n in entry["author"]] for entry in library.entries}
    return by_pybtex, by_parser


def test_pybtex_bibtexparser_rispy_and_csl_json_read_the_same_names():
    import bibtexparser
    import jsonschema
    import rispy
    from bibtexparser.middlewares import SeparateCoAuthors, SplitNameParts
    from pybtex.database import parse_string

    papers = name_papers()
    text = bibtex.export(papers, unicode=True)  # --unicode: the names exactly as arXiv sent them
    persons = {e.fields["eprint"]: e.persons["author"][0] for e in parse_string(text, "bibtex").entries.values()}
    library = bibtexparser.parse_string(text, append_middleware=[SeparateCoAuthors(), SplitNameParts()])
    parts = {e["eprint"]: e["author"][0] for e in library.entries}
    records = {r["accession_number"].removeprefix("arXiv:"): r for r in rispy.loads(ris.export(papers))}
    items = json.loads(csljson.export(papers))
    jsonschema.Draft7Validator(json.loads(SCHEMA.read_text())).validate(items)
    csl = {item["number"].removeprefix("arXiv:"): item["author"][0] for item in items}

    for pid, name in NAMES.items():
        expected = SPLIT[name]
        person, split = persons[pid], parts[pid]
        if isinstance(expected, str):  # kept whole: one braced unit, a literal
            assert person.last_names == split.last == ["{" + name + "}"] and not person.first_names and not split.first
            assert records[pid]["authors"] == [name] and csl[pid] == {"literal": name}
            continue
        family, given, suffix = expected
        assert " ".join(person.prelast_names + person.last_names) == " ".join(split.von + split.last) == family, name
        assert " ".join(person.first_names + person.middle_names) == " ".join(split.first) == given, name
        assert " ".join(person.lineage_names) == " ".join(split.jr) == suffix, name
        assert records[pid]["authors"] == [", ".join(filter(None, (family, given, suffix)))]
        assert csl[pid] == {"family": family, "given": given} | ({"suffix": suffix} if suffix else {})

    # The ASCII export splits the same way (its letters transliterated or written as accents).
    by_pybtex, by_parser = _families_from_bibtex(bibtex.export(papers))
    assert by_pybtex == by_parser
    assert by_pybtex["2609.00103"] == ["van der Waals"] and by_pybtex["2609.00105"] == ["Zuo Teng"]
    assert by_pybtex["2609.00107"] == [r"D\'iaz"]


def test_ris_and_csl_json_carry_the_suffix_and_citeproc_renders_it():
    from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
    from citeproc.source.json import CiteProcJSON

    text = ris.export([paper(authors=(Author("Samuel Davis Jr."), Author("佐藤 花子")))])
    assert "AU  - Davis, Samuel, Jr.\nAU  - 佐藤, 花子\n" in text
    items = csljson.items(name_papers())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # citeproc-py notes the variables its styles do not use
        bibliography = CitationStylesBibliography(
            CitationStylesStyle("harvard-cite-them-right", validate=False), CiteProcJSON(items), formatter.plain
        )
        for item in items:
            bibliography.register(Citation([CitationItem(item["id"])]))
        rendered = [str(entry) for entry in bibliography.bibliography()]
    # (citeproc-py initialises "Jun-ichi" and "花子" oddly, but reads family and given as written.)
    for start in (
        "Davis, S., Jr. (2026)",
        "Kato, J.",
        "van der Waals, J.D. (2026)",
        "Γεωργίου, Ν. (2026)",
        "佐藤, ",
        "张伟 (2026)",
        "Díaz, J. (2026)",
        "ATLAS Collaboration (2026)",
        "Santos, M. da S. (2026)",
        "Tarjan, R., III (2026)",
    ):
        assert any(line.startswith(start) for line in rendered), (start, rendered)


def test_titles_keep_logos_capitals_and_the_authors_braces():
    escaped = {pid: escape_text(title, protect_case=True) for pid, title in TITLES.items()}
    assert escaped["2609.00201"] == r"{\LaTeX} and {\LaTeX} typeset {\TeX} documents"
    assert escaped["2609.00202"] == r"\#{MeToo} and the {Strong} baselines of {GPT}-4"
    assert escaped["2609.00203"] == r"The {{\#MeToo}} corpus and {\LaTeX}"  # not {\#MeToo}: bibtex lowercases that
    assert escaped["2609.00204"] == r"$\alpha$-divergence in {$\Lambda$CDM} cosmology"
    assert escaped["2609.00205"] == (
        r"Unbalanced \textbraceright{} brace and emphasis with "
        r"\textbackslash{}input\textbraceleft{}x\textbraceright{} as text"
    )
    # A pair right after a pair printed as text is text too; an escaped brace is text; a group
    # whose text starts with a command is braced twice.
    assert escape_text(r"\frac{a}{b} and \{x\} and {\&} {B}", protect_case=True) == (
        r"\textbackslash{}frac\textbraceleft{}a\textbraceright{}\textbraceleft{}b\textbraceright{} and "
        r"\textbraceleft{}x\textbraceright{} and {{\&}} {B}"
    )
    assert escape_text("A {Strong} note", protect_case=False) == r"A \textbraceleft{}Strong\textbraceright{} note"  # notes: as written
    # RIS, CSL-JSON and the digest keep the title text arXiv sent.
    assert ris.record(title_papers()[1], "k").splitlines()[2] == "TI  - #MeToo and the {Strong} baselines of {GPT}-4"
    assert csljson.item(title_papers()[0], "k")["title"] == TITLES["2609.00201"]


# --- real tools -------------------------------------------------------------------------------


@needs_tex
def test_bibtex_and_pdflatex_print_names_as_the_papers_mean_them(tmp_path):
    text, bbl = compile_with_bibtex(tmp_path / "plain", bibtex.export(name_papers()), "plain")
    text = text.replace("ı\u0301", "í")  # OT1 has no í: LaTeX puts the accent on a dotless ı (as it should)
    for shown in (
        "Samuel Davis, Jr.",
        "Jun-ichi Kato",
        "Johannes Diderik van der Waals",
        "Nikos Georgioy",
        "Hua Zi Zuo Teng",
        "Zhang Wei",
        "José Díaz",
        "ATLAS Collaboration",
        "Maria da Silva Santos",
        "Robert Tarjan, III",
    ):
        assert shown in text, (shown, text)
    assert "$" not in bbl  # no Greek letter of a name became math
    _, bbl = compile_with_bibtex(tmp_path / "alpha", bibtex.export(name_papers()), "alpha")
    labels = re.findall(r"\\bibitem\[(.*?)\]", bbl)
    # alpha labels a lone author by the first letters of the family name (von part initials first).
    assert sorted(labels) == sorted(["Dav26", "Kat26", "vdW26", "Geo26", "{Zuo}26", "{Zha}26", r"D{\'i}a26", "{ATL}26", "San26", "Tar26"])


@needs_tex
def test_bibtex_and_pdflatex_print_titles_as_the_papers_mean_them(tmp_path):
    for style in ("plain", "alpha"):
        text, _ = compile_with_bibtex(tmp_path / style, bibtex.export(title_papers()), style)
        assert "LATEX and LATEX typeset TEX documents" in text  # the logos, not \LaTeX{} or "latex"
        assert "#MeToo and the Strong baselines of GPT-4" in text  # capitals kept, braces not printed
        assert "The #MeToo corpus and LATEX" in text
        assert "α-divergence in ΛCDM cosmology" in text
        assert r"Unbalanced } brace and emphasis with \input{x} as text" in text
        assert "\\LaTeX" not in text and "latex" not in text and "{" not in text.replace(r"\input{x}", "")


@needs_biber
@pytest.mark.parametrize("unicode", [False, True])
def test_biber_reads_names_accents_and_titles(tmp_path, unicode):
    papers = name_papers() + title_papers()
    if unicode:  # UTF-8 that pdflatex can typeset: Latin letters (Greek and CJK are for xelatex and lualatex)
        papers = [p for p in papers if p.id not in ("2609.00104", "2609.00105", "2609.00106", "2609.00204")]
    text = compile_with_biber(tmp_path, bibtex.export(papers, unicode=unicode))
    assert "José Díaz" in text and "ı" not in text  # {\'i}: biber reads í, T1 typesets í
    assert "Jun-ichi Kato" in text and "Samuel Davis Jr." in text and "Johannes Diderik van der Waals" in text
    assert "[Dav26]" in text and "[Kat26]" in text and "[Wa" in text  # biblatex labels by the last name
    assert "LATEX and LATEX typeset TEX documents" in text
    assert "#MeToo and the Strong baselines of GPT-4" in text and "The #MeToo corpus and LATEX" in text
    if not unicode:
        assert "Nikos Georgioy" in text and "Hua Zi Zuo Teng" in text and "α-divergence in ΛCDM cosmology" in text


BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def test_no_export_carries_an_invisible_bidi_control():
    hebrew = paper(title="\u202eמודלים\u202c and \u2067GPT\u2069", authors=(Author("\u202bדוד כהן\u202c"), Author("Ada\u200f Lovelace")))
    for text in (bibtex.export([hebrew]), bibtex.export([hebrew], unicode=True), ris.export([hebrew]), csljson.export([hebrew])):
        assert not set(text) & set(BIDI_CONTROLS), text
    assert "AU  - כהן, דוד\nAU  - Lovelace, Ada\n" in ris.export([hebrew])
