"""PDFs read like papers: real pdflatex PDFs in three styles (tests/fixtures/pdfpapers, made by
its make.sh from the .tex files beside them): accents composed, ligatures as letters, the arXiv
stamp cut out, running headers, figure labels and equation lines not taken for headings,
REVTeX's headings found, real hyphens kept, each bibliography entry a block with its arXiv id;
and ar5iv's HTML tried before the PDF."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from reader.fulltext.document import HEADING, PARAGRAPH, REFERENCE
from reader.fulltext.pdf import pdf_blocks
from reader.fulltext.pdflines import Paragraphs
from reader.fulltext.refs import arxiv_id_in_text
from reader.fulltext.store import TextStore
from reader.store import Store
from tests.conftest import ROOT, run
from tests.corpus import recent_papers
from tests.fulltext_pages import HTML, PAPER_HTML, PDF
from tests.helpers.timing import scaled

PAPERS = ROOT / "tests" / "fixtures" / "pdfpapers"
STYLES = ("article", "revtex", "elsarticle")
LOOSE_ACCENTS = re.compile("[\u00a8\u00b4\u02c6\u02dc\u00af\u02d8\u02d9\u02da\u02dd\u02c7\u00b8\u02db\u0131]")

HEADINGS = {
    "article": ["Abstract", "1 Introduction", "2 Model", "2.1 Coins", "3 Results", "4 Conclusion", "References"],
    "revtex": ["I. INTRODUCTION", "II. THE MODEL", "A. Regularization", "III. RESULTS", "IV. CONCLUSION"],
    "elsarticle": ["Abstract", "1. Introduction", "2. Method", "3. Results", "Acknowledgements", "References"],
}
REFERENCES = {  # each entry's start, and the arXiv id it names in a form the id patterns read today
    "article": [
        ("1. D. Aharonov", "quant-ph/0012090"),
        ("2. A. M. Childs", "quant-ph/0306054"),
        ("3. M. López-Morales", "2104.01234"),
        ("4. J. Kempe", None),
    ],
    "revtex": [
        ("[1] H. B. G. Casimir", None),
        ("[2] J. Polchinski", "hep-th/9711200"),
        ("[3] M. López-Morales and E. Schrödinger", "1901.04567"),
        ("[4] E. Elizalde", None),
    ],
    "elsarticle": [
        ("García-Núñez, I., Åström, B., 2021.", "2106.01234"),
        ("Hairer, E., Wanner, G., 1996.", None),
        ("Kingma, D.P., Ba, J., 2015.", "1412.6980"),
        ("Schrödinger, E., 1926.", None),
    ],
}


def blocks_of(style: str, folder: Path = PAPERS):
    return pdf_blocks(folder / f"{style}.pdf")


@pytest.mark.parametrize("style", STYLES)
def test_each_bibliography_entry_is_a_block_with_the_arxiv_id_it_names(style):
    references = [block for block in blocks_of(style) if block.kind == REFERENCE]
    assert [(block.text[: len(start)], block.arxiv_id or None) for block, (start, _) in zip(references, REFERENCES[style])] == REFERENCES[
        style
    ]
    assert len(references) == len(REFERENCES[style])
    for block in references:  # whatever form an entry uses, the id patterns read it whole
        assert block.arxiv_id == arxiv_id_in_text(block.text)


def test_entries_keep_the_other_id_forms_whole_for_the_id_patterns():
    texts = " ".join(block.text for style in STYLES for block in blocks_of(style) if block.kind == REFERENCE)
    for form in (
        "arXiv quant-ph/0306054",
        "CoRR abs/2104.01234",
        "(Springer, 1995), hep-th/9901001.",
        "URL: https://arxiv.org/abs/1412.6980.",
    ):
        assert form in texts


@pytest.mark.parametrize("style", STYLES)
def test_accents_are_composed_and_ligatures_are_letters(style):
    text = "\n".join(block.text for block in blocks_of(style))
    assert not LOOSE_ACCENTS.search(text)
    assert not re.search("[\ufb00-\ufb06]", text)
    expected = {
        "article": ["Schrödinger’s equation", "María López-Morales", "Gödel-Escher", "efficient", "fluffy offset"],
        "revtex": ["Jürgen Schröder", "Universität Zürich", "François Dupré", "École Normale Supérieure", "definite sign"],
        "elsarticle": ["Björn Åström", "Inés García-Núñez", "efficient sparse solvers", "the first affine", "fluid"],
    }[style]
    for words in expected:
        assert words in text


@pytest.mark.parametrize("style", STYLES)
def test_headings_are_the_sections_in_order_and_nothing_else(style):
    assert [block.text for block in blocks_of(style) if block.kind == HEADING] == HEADINGS[style]


def test_the_arxiv_stamp_is_cut_out_and_running_headers_dropped():
    article, revtex = blocks_of("article"), blocks_of("revtex")
    assert article[0].text.startswith("Quantum Walks on Sparse Graphs Erik Lindqvist")
    assert revtex[0].text.startswith("Vacuum Energy of Compact Dimensions Jürgen")  # it was glued to the title
    everything = " ".join(block.text for block in article + revtex)
    assert "arXiv:2301.01234v2" not in everything and "9901001v3" not in everything
    assert "Sparse Graphs Lindqvist" not in everything  # the header of pages 2 and 3
    assert any(
        block.text.startswith("The coin is a unitary") and "consider the Fourier coin, whose" in block.text for block in article
    )  # the paragraph goes on over the page break, header gone


def test_a_hyphen_at_a_line_break_is_kept_when_real():
    text = " ".join(block.text for style in STYLES for block in blocks_of(style))
    for kept in (
        "The state-of-the-art in this direction",
        "The proof is self-contained",
        "The X-ray of this",
        "García-Núñez and Åström",
        "Differential-Algebraic Problems",
    ):
        assert kept in text
    for joined in ("depends on the radius", "a definite sign", "far more efficiently", "stochastic optimization", "Recent work"):
        assert joined in text


# Lines of a real emulateapj bibliography as pypdf reads them (arXiv 1001.0012, pages 9 and 11),
# then the page of tables that follows it.
AUTHOR_YEAR_PAGES = (
    "Introduction of the paper, long enough to set the page's usual width for the bibliography.\n"
    "REFERENCES\n"
    "Alonso, R., Guillot, T., Mazeh, T., Aigrain, S., Alapini, A.,\n"
    "Barge, P., Hatzes, A., & Pont, F. 2009b, A&A, 501, L23\n"
    "Anderson, D. R. et al. 2010, A&A, 513, L3+\n"
    "Barman, T. S. 2008, ApJ, 676, L61\n"
    "Burrows, A., Sudarsky, D., & Hubeny, I. 2006, ApJ, 650, 1140\n"
    "Campo, C. J. et al. 2010, ArXiv e-prints\n"
    "Charbonneau, D. et al. 2005, ApJ, 626, 523\n"
    "Kurucz, R. L. 2005, Memorie della Societa Astronomica Italiana\n"
    "Supplement, 8, 14\n"
    "Rodler, F., K¨urster, M., & Henning, T. 2008, A&A, 485, 859\n"
    "—. 2010, A&A, 514, A23+\n"
    "Rogers, J. C., Apai, D., L´opez-Morales, M., Sing, D. K., &\n"
    "Burrows, A. 2009, ApJ, 707, 1707\n"
    "Zahnle, K., Marley, M. S., Freedman, R. S., Lodders, K., &\n"
    "Fortney, J. J. 2009, ApJ, 701, L20",
    "Secondary Eclipses & Phase Variations of Exoplanets\n"
    "CoRoT-1b1 2424(84) 0.60(0.42) 1.6(6) × 10−4 2726(141) Td=2674(144) K\n"
    "2.15(0.32) 3.36(42) × 10−3 2490(157)\n"
    "8.0(2.9) 4.1(1.1) × 10−3",
)


def test_paragraphs_give_each_page_once_and_can_be_asked_again():
    builder = Paragraphs()
    builder.page("A first page of text.\n", 1)
    assert [block.text for block in builder.blocks()] == ["A first page of text."]
    assert builder.blocks() == []  # given already
    builder.page("A later page of text.\n", 4)
    assert [block.text for block in builder.blocks()] == ["A later page of text."]


def test_an_author_year_bibliography_has_one_block_per_entry_and_ends_before_the_tables():
    builder = Paragraphs()
    for page in AUTHOR_YEAR_PAGES:
        builder.page(page)
    blocks = builder.blocks()
    assert [block.text[:24] for block in blocks if block.kind == REFERENCE] == [
        "Alonso, R., Guillot, T.,",
        "Anderson, D. R. et al. 2",  # ADS's `L3+` ends it
        "Barman, T. S. 2008, ApJ,",
        "Burrows, A., Sudarsky, D",
        "Campo, C. J. et al. 2010",  # `ArXiv e-prints` ends it
        "Charbonneau, D. et al. 2",
        "Kurucz, R. L. 2005, Memo",  # `Supplement, 8, 14` goes on with it
        "Rodler, F., Kürster, M.,",
        "—. 2010, A&A, 514, A23+",  # the same authors again
        "Rogers, J. C., Apai, D.,",
        "Zahnle, K., Marley, M. S",
    ]
    last = next(index for index, block in enumerate(blocks) if block.text.startswith("Zahnle"))
    assert blocks[last].text.endswith("Fortney, J. J. 2009, ApJ, 701, L20")
    tables = blocks[last + 1 :]  # not entries, nor glued to the last one
    assert {block.kind for block in tables} == {PARAGRAPH}
    assert "8.0(2.9) 4.1(1.1)" in " ".join(block.text for block in tables)


# --- the command line: refs and ar5iv ---------------------------------------------------------------


@pytest.fixture
def pdf_papers_env(arxiv_env, monkeypatch, data_dir):
    """Four cached papers: three with only a PDF (the styles), one with only ar5iv's HTML."""
    monkeypatch.setenv("READER_ARXIV_HTML_URL", arxiv_env.html_url)
    monkeypatch.setenv("READER_ARXIV_PDF_URL", arxiv_env.pdf_url)
    papers = recent_papers(4)
    store = Store(data_dir)
    store.add_topic("Physics", "ti:walk")
    store.save_papers(papers, "Physics")
    for paper, style in zip(papers, STYLES):
        arxiv_env.documents[f"/pdf/{paper.id}v{paper.version}"] = (PDF, (PAPERS / f"{style}.pdf").read_bytes())
    arxiv_env.documents[f"/ar5iv/{papers[3].id}"] = (HTML, PAPER_HTML)
    arxiv_env.papers = papers
    return arxiv_env


def test_refs_finds_the_arxiv_ids_that_pdf_bibliographies_cite(capsys, pdf_papers_env):
    found = []
    for paper in pdf_papers_env.papers[:3]:
        code, _, err = run(capsys, "fetch-text", paper.id)
        assert code == 0, err
        code, out, err = run(capsys, "refs", paper.id)
        assert code == 0, err
        assert len(out.splitlines()) == 4  # one line per entry
        found += re.findall(r"\[arXiv:([^\]:]+)", out)
    assert {"quant-ph/0012090", "hep-th/9711200", "1901.04567", "2106.01234", "1412.6980"} <= set(found)


def test_ar5iv_html_is_read_before_the_pdf_and_the_text_says_so(capsys, pdf_papers_env, data_dir):
    paper = pdf_papers_env.papers[3]
    code, out, err = run(capsys, "text", paper.id)
    assert code == 0, err
    assert "We study reward shaping for agents that call tools. Our method improves success by $12\\%$." in out
    assert f"this text is ar5iv's HTML ({pdf_papers_env.ar5iv_url})" in err and "maybe an earlier one" in err
    assert [r.path for r in pdf_papers_env.document_requests()] == [f"/html/{paper.id}v{paper.version}", f"/ar5iv/{paper.id}"]
    assert TextStore(data_dir).load(paper.id).source == "ar5iv"
    code, out, err = run(capsys, "fetch-text", pdf_papers_env.papers[0].id)
    assert code == 0 and "stored from the PDF (no HTML)" in err, err
    code, out, err = run(capsys, "refs", paper.id)
    assert "[arXiv:2302.04761]" in out


# --- the fixtures remade, where pdflatex is -------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (the committed PDFs are tested)")
def test_the_fixtures_remade_by_pdflatex_read_the_same(tmp_path):
    made = subprocess.run(["sh", str(PAPERS / "make.sh"), str(tmp_path)], capture_output=True, text=True, timeout=scaled(300))
    if made.returncode != 0:
        pytest.skip(f"a TeX package is missing (REVTeX, elsarticle?): {made.stderr.strip()[-200:]}")
    for style in STYLES:
        fresh = [(block.kind, block.text, block.arxiv_id) for block in blocks_of(style, tmp_path)]
        kept = [(block.kind, block.text, block.arxiv_id) for block in blocks_of(style)]
        assert [b for b in fresh if "submitted to" not in b[1]] == [b for b in kept if "submitted to" not in b[1]]


# --- figures: a caption is a figure on its page ----------------------------------------------------


def test_a_figures_caption_is_a_block_of_its_own_with_its_page_and_survives_the_store(tmp_path):
    from reader.fulltext.document import FIGURE, Document

    blocks = [block for block in pdf_blocks(PAPERS / "article.pdf") if block.kind == FIGURE]
    assert [(block.text, block.page) for block in blocks] == [("Figure 1: Success probability of the walk against the number of steps.", 2)]
    texts = TextStore(tmp_path)
    texts.save(Document("2301.00001", 1, "pdf", tuple(blocks)))
    assert texts.load("2301.00001").blocks[0].page == 2


def test_a_caption_is_found_after_the_figures_own_words_and_a_sentence_naming_a_figure_is_not_one():
    builder = Paragraphs()
    builder.page("A first page of text, well over the width of a short line here.\nIt ends.")
    builder.page(
        "The model is drawn as shown in\n"
        "Fig. 3. The walk then goes on over the arcs of the graph as before, in order.\n"
        "0 Epochs 100\n"
        "1.0 Success\n"
        "FIG. 2: The success of the walk.\n"
        "Another paragraph starts here, and it is long enough to be a paragraph.\n",
        5,  # page 4 of the PDF was skipped
    )
    blocks = builder.blocks()
    assert [(block.kind, block.page) for block in blocks if block.text.startswith(("FIG", "The model"))] == [
        (PARAGRAPH, None),
        ("figure", 5),
    ]


REALDATA_PDFS = Path("/work/shared/realdata/fulltext2/pdf")  # real arXiv PDFs, on the project's machines


@pytest.mark.slow  # pypdf reads each in about 10 s
@pytest.mark.skipif(not REALDATA_PDFS.is_dir(), reason="the real PDFs are on the project's machines only")
@pytest.mark.parametrize(
    "name, pages",
    [
        ("0905.2465.pdf", [7, 8, 10, 10, 11, 11, 13, 13, 14, 16, 18, 19, 20, 21, 23, 25, 26, 27]),  # REVTeX's `FIG. 1:`
        ("1001.0012.pdf", [3, 5, 5, 7, 7, 7, 8]),  # AAS's `Fig. 1.—`
    ],
)
def test_the_figures_of_real_pdfs_are_found_on_their_pages(name, pages):
    from reader.fulltext.document import FIGURE

    assert [block.page for block in pdf_blocks(REALDATA_PDFS / name) if block.kind == FIGURE] == pages
