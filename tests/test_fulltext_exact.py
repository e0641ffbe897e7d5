"""Full texts printed exactly (issue 40): LaTeXML 0.8.7's real output of exact.tex (formulas wrapped
with `%` lines, colours under pgf, align/eqnarray/gathered, footnotemarks, authors with
affiliations, e-mails and thanks, a table with empty cells, a bibliography labelled by name and
year but cited by number) and of frontmatter.tex (mnras: pubyear, pagerange), in arXiv's chrome;
and an HTML paper its authors submitted (no LaTeXML, no PDF). See fixtures/fulltext/make.sh."""

from __future__ import annotations

import json

import pytest

from reader.core.citedids import cited_id
from reader.core.query import parse
from reader.core.scan import SearchBlock
from reader.fulltext.refs import arxiv_id_in_text
from reader.fulltext.store import TextStore
from reader.fulltext.text_index import stored_words
from reader.ids import PaperIdError, parse_paper_id
from reader.search_index import SearchIndex
from reader.service.search_texts import shard_texts
from reader.store import Store
from tests.conftest import run
from tests.fulltext_pages import FULLTEXT, HTML
from tests.helpers.fulltext import three_cached

EXACT_HTML = (FULLTEXT / "exact.html").read_bytes()
FRONT_MATTER_HTML = (FULLTEXT / "frontmatter.html").read_bytes()
AUTHOR_PAGE = (FULLTEXT / "author-page.html").read_bytes()


@pytest.fixture
def exact_env(arxiv_env, monkeypatch, data_dir):
    """Three cached papers: exact.tex's page, frontmatter.tex's, and an authors' own HTML page."""
    papers = three_cached(arxiv_env, monkeypatch, data_dir)
    for paper, page in zip(papers, (EXACT_HTML, FRONT_MATTER_HTML, AUTHOR_PAGE)):
        arxiv_env.documents[f"/html/{paper.id}v{paper.version}"] = (HTML, page)
    return arxiv_env


def _text(capsys, paper) -> list[str]:
    code, out, err = run(capsys, "text", paper.id)
    assert code == 0, err
    return out.splitlines()


def test_formulas_paste_back_whole(capsys, exact_env):
    lines = _text(capsys, exact_env.papers[0])
    text = "\n".join(lines)
    # LaTeXML wrapped this formula's TeX twice with `%`, a newline and indentation: a `% ` left in
    # would comment out the rest of the formula once pasted.
    assert (
        r"A long inline formula $\mathcal{L}(\theta)=\sum_{i=1}^{N}\sum_{j=1}^{M}\left(y_{ij}-f_{\theta}(x_{ij})\right)^{2}"
        r"+\lambda\sum_{k=1}^{K}\left\|\theta_{k}\right\|_{2}^{2}+\mu\sum_{k=1}^{K}\left|\theta_{k}\right|$ wraps in the page."
    ) in text
    assert r"A coloured symbol ${\color[rgb]{1,0,0}\boldsymbol{W}}$ keeps its letter." in text
    assert r"A percent sign $50\%$ stays." in text
    assert "% " not in text and "pgfstrokecolor" not in text and "pgfsys" not in text


def test_aligned_rows_print_one_display_line_each_with_its_number(capsys, exact_env):
    lines = _text(capsys, exact_env.papers[0])
    start = lines.index("1 Formulas")
    display = [line for line in lines[start:] if line.startswith("    $$")]
    assert display == [
        r"    $$h_{t} =Wx_{t}+b,$$ (1)",
        r"    $$y_{t} =\sigma(h_{t}).$$ (2)",
        r"    $$a = b+c$$ (3)",
        r"    $$d = e-f$$ (4)",
        r"    $$\begin{gathered}x=1\\ y=2\end{gathered}$$ (5)",
    ]
    assert "displaystyle" not in "\n".join(lines)


def test_footnotemarks_and_front_matter_notes_print_nothing(capsys, exact_env):
    exact, front_matter, _ = exact_env.papers
    lines = _text(capsys, exact)
    assert "Schrödinger wrote this first[^1]; see also the same note again." in lines
    assert [line for line in lines if "[^" in line and "]:" in line] == ["  [^1]: A note on the wave equation."]
    assert not any("footnotemark" in line for line in lines)
    lines = _text(capsys, front_matter)
    assert "Haloes form late[^1]." in lines and "  [^1]: As expected." in lines
    assert not any("†" in line or "pubyear" in line or "pagerange" in line for line in lines)


def test_authors_print_one_line_each_with_affiliation_then_e_mails_and_thanks_apart(capsys, exact_env):
    lines = _text(capsys, exact_env.papers[0])
    assert lines[:9] == [
        "Exact Text of Aligned Equations",
        "",
        "Ozan İrsoy, Cornell University <oirsoy@cs.cornell.edu>",
        "  Equal contribution.",
        "Erwin Schrödinger, University of Vienna <erwin@univie.ac.at>",
        "Emmy Noether, Bryn Mawr College",
        "  Work done while at Göttingen.",
        "",
        "Abstract",
    ]


def test_references_cited_by_number_print_their_numbers_and_refs_json_gives_number_and_key(capsys, exact_env):
    paper = exact_env.papers[0]
    lines = _text(capsys, paper)
    assert "Numbered citations [1, 2, 3, 4, 5]." in lines
    references = lines[lines.index("References") + 2 :]
    assert [line[:26] for line in references] == [
        "[1] Keimer et al. [2015] B",
        "[2] Bahdanau et al. [2014]",
        "[3] Schick et al. [2023] T",
        "[4] Witten [1991] E. Witte",
        "[5] Doe [2020] J. Doe. A p",
    ]
    code, out, err = run(capsys, "refs", paper.id, "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert [(row["number"], row["key"], row["arxiv_id"]) for row in rows] == [
        (1, "bib.bib1", None),
        (2, "bib.bib2", "1409.0473"),  # DBLP: `CoRR, abs/1409.0473`
        (3, "bib.bib3", "2302.04761"),  # `arXiv: 2302.04761v2`
        (4, "bib.bib4", "hep-th/9108004"),
        (5, "bib.bib5", "2001.01234"),  # `arXiv 2001.01234`
    ]
    assert rows[1]["text"] == references[1]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("D. Bahdanau. Neural machine translation. CoRR, abs/1409.0473, 2014.", "1409.0473"),
        ("CoRR abs/1706.03762v5", "1706.03762"),
        ("arXiv preprint arXiv 2001.01234, 2020.", "2001.01234"),
        ("arXiv: 2302.04761v2", "2302.04761"),
        ("ArXiv:hep-th/9108004v1", "hep-th/9108004"),
        ("arXiv math.GT/0309136", "math/0309136"),
        ("arXiv preprint, 2020.", None),
        ("CoRR, abs/12345", None),
    ],
)
def test_arxiv_ids_in_references_in_every_written_form(text, found):
    assert arxiv_id_in_text(text) == found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # A real PDF's reference (arXiv 1804.08269, [71]): `quant-ph` lost its hyphen.
        ("[71] M. Znojil, H. Bila and V. Jakubsky, arXiv:quantph/0312148.", None),
        ("arXiv:foo-bar/0312148", None),
        ("arXiv:physics.GT/0101001", None),  # physics has no such subject classes
        ("arXiv:quant-ph/0312148", "quant-ph/0312148"),
        ("arXiv:math-ph/0101001v2", "math-ph/0101001"),
        ("arXiv:nlin.CD/0101001", "nlin/0101001"),
        ("arXiv:q-bio/0309001 and arXiv:cond-mat/9901001", "q-bio/0309001"),
    ],
)
def test_old_style_ids_name_a_real_archive(text, found):
    assert arxiv_id_in_text(text) == found


def test_an_id_with_no_such_archive_is_not_an_id_anywhere():
    with pytest.raises(PaperIdError):
        parse_paper_id("quantph/0312148")
    assert cited_id({"journal": "arXiv:quantph/0312148"}) is None
    assert cited_id({"journal": "arXiv:quant-ph/0312148"}) == ("quant-ph/0312148", "text")


def test_table_rows_print_the_same_on_the_first_fetch_and_from_the_store(capsys, exact_env, data_dir):
    paper = exact_env.papers[0]
    code, first, err = run(capsys, "text", paper.id)
    assert code == 0, err
    assert "  Sparse | | 120\n  Shaped | 53.0 |\n" in first
    code, again, err = run(capsys, "text", paper.id)  # from the store
    assert (code, again) == (0, first), err
    assert len(exact_env.document_requests()) == 1


def test_text_search_folds_what_a_person_types(capsys, exact_env, data_dir):
    """`İrsoy`, `irsoy`, `schrodinger` find both bylines: frontmatter.tex's marks its affiliations
    with \\textsuperscript, which LaTeXML writes as <sup> right after the name (`İrsoy1,∗`: no word
    `irsoy` in it before)."""
    exact, front_matter, _ = exact_env.papers
    _text(capsys, exact)
    byline = _text(capsys, front_matter)[2]
    exact_env.stop()
    store = Store(data_dir)
    bodies = stored_words(data_dir)
    index = SearchIndex.open(data_dir)
    index.refresh(store)
    both = {exact.id, front_matter.id}
    try:
        for query in ("text:İrsoy", "text:irsoy", "text:IRSOY", 'text:"ozan irsoy"', "text:schrodinger", "text:Schrödinger"):
            node = parse(query, implicit_and=True)
            scan = set().union(*(SearchBlock(shard_texts(store, s), {}, bodies).matching(node) for s in store.shards()))
            assert index.matching(node) == scan == both, query
    finally:
        index.close()
    for query in ("text:İrsoy", "text:schrodinger"):
        code, out, err = run(capsys, "list", "--query", query, "--json")
        assert code == 0, err
        assert {row["id"] for row in json.loads(out)} == both, query
    assert byline == "Corentin Cadiou^1, Ozan İrsoy^1,$\\ast$ and Erwin Schrödinger^2"


def test_an_html_paper_its_authors_submitted_prints_as_its_visible_text(capsys, exact_env, data_dir):
    paper = exact_env.papers[2]  # arXiv's format H: no LaTeXML and no PDF (a 404)
    code, out, err = run(capsys, "text", paper.id)
    assert code == 0, err
    assert "an HTML page its authors submitted (no LaTeXML, no PDF)" in err
    assert [line for line in out.splitlines() if line] == [
        "Proceedings of the Workshop on Exact Text",
        "Editors: Ozan İrsoy, Erwin Schrödinger",
        "This index lists the accepted papers; all of them are on the workshop website.",
        "Accepted papers",
        "  LIST:arXiv:2401.00907",
        "  LIST:arXiv:2401.01640",
    ]
    requests = [request.path for request in exact_env.document_requests()]
    assert requests == [
        f"/html/{paper.id}v{paper.version}",
        f"/ar5iv/{paper.id}",
        f"/pdf/{paper.id}v{paper.version}",
    ]  # ar5iv and the PDF first
    assert TextStore(data_dir).load(paper.id).source == "page"
    code, again, err = run(capsys, "text", paper.id)
    assert (code, again) == (0, out) and "its authors submitted" in err
    assert len(exact_env.document_requests()) == 3  # none again: stored


def test_a_text_stored_by_the_previous_format_is_still_read_and_searched(capsys, exact_env, data_dir):
    """Texts made before references kept their numbers (format 1) print and are searched offline."""
    paper = exact_env.papers[0]
    path = TextStore(data_dir).path(paper.id, paper.version)
    path.parent.mkdir(parents=True, exist_ok=True)
    old = {
        "format": 1,
        "id": paper.id,
        "version": paper.version,
        "source": "html",
        "blocks": [["title", "Old Title"], ["paragraph", "Stored words of Ozan İrsoy."], ["reference", "[1] A. Ref.", "2302.04761"]],
    }
    path.write_text(json.dumps(old, ensure_ascii=False), encoding="utf-8")
    exact_env.stop()
    code, out, err = run(capsys, "text", paper.id)
    assert code == 0, err
    assert out.splitlines() == ["Old Title", "", "Stored words of Ozan İrsoy.", "", "[1] A. Ref."]
    code, out, err = run(capsys, "list", "--query", "text:irsoy", "--json")
    assert code == 0 and [row["id"] for row in json.loads(out)] == [paper.id], err
