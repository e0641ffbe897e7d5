"""What a browser does not show is not read (hidden elements), a page is read in the charset it
declares, and an escape sequence written as references in a formula's TeX leaves nothing: each
through `reader text` against the loopback arXiv, and `text:` searches of what was stored."""

from __future__ import annotations

import pytest

from reader.fulltext.store import TextStore
from reader.store import Store
from tests.conftest import run
from tests.corpus import recent_papers
from tests.fulltext_pages import HTML

HIDDEN_FORMS = {
    "HIDDENATTR": "<p hidden>HIDDENATTR words</p>",
    "HIDDENEMPTY": '<div hidden=""><p>HIDDENEMPTY words <b>and more</b></p></div>',
    "DISPLAYNONE": '<p style="display:none">DISPLAYNONE words</p>',
    "DISPLAYSPACED": '<div style="color: red; DISPLAY : None !important"><p>DISPLAYSPACED <i>words</i></p></div>',
    "INVISIBLE": '<p>shown <span style="visibility:hidden">INVISIBLE words</span> too</p>',
}


def page(body: str, head: str = "") -> str:
    return (
        f"<!DOCTYPE html><html><head>{head}<title>t</title></head><body>"
        f'<article class="ltx_document"><h1 class="ltx_title ltx_title_document">A Visible Title</h1>'
        f"{body}</article></body></html>"
    )


@pytest.fixture
def one_paper(arxiv_env, monkeypatch, data_dir):
    monkeypatch.setenv("READER_ARXIV_HTML_URL", arxiv_env.html_url)
    monkeypatch.setenv("READER_ARXIV_PDF_URL", arxiv_env.pdf_url)
    paper = recent_papers(1)[0]
    store = Store(data_dir)
    store.add_topic("Agents", "ti:agent")
    store.save_papers([paper], "Agents")
    arxiv_env.paper = paper
    return arxiv_env


def serve(env, headers: dict[str, str], body: bytes) -> str:
    paper = env.paper
    env.documents[f"/html/{paper.id}v{paper.version}"] = (headers, body)
    return paper.id


def lines_of(out: str) -> list[str]:
    return [line for line in out.splitlines() if line]  # piped: one line a block, a blank between


def found_by(capsys, query: str) -> set[str]:
    code, out, err = run(capsys, "list", "--query", query)
    assert code == 0, err
    return {line.split()[2].split("v")[0] for line in lines_of(out) if line[:1].isdigit()}


def test_hidden_elements_are_neither_printed_nor_stored_nor_found(capsys, one_paper, data_dir):
    body = "<p>Visible words before.</p>" + "".join(HIDDEN_FORMS.values()) + "<p>Visible words after.</p>"
    paper_id = serve(one_paper, HTML, page(body).encode())
    code, out, err = run(capsys, "text", paper_id)
    assert code == 0, err
    assert lines_of(out) == ["A Visible Title", "Visible words before.", "shown too", "Visible words after."]
    stored = TextStore(data_dir).path(paper_id, one_paper.paper.version).read_text()
    assert "Visible words after" in stored
    assert found_by(capsys, "text:visible") == {paper_id}
    for word in HIDDEN_FORMS:
        assert word not in stored, word
        assert found_by(capsys, f"text:{word.lower()}") == set(), word


def test_an_element_hidden_before_the_article_hides_the_article_inside_it(capsys, one_paper):
    hidden_copy = '<div style="display:none"><article class="ltx_document"><p>DECOY words</p></article></div>'
    body = page("<p>The real words.</p>").replace("<body>", "<body>" + hidden_copy)
    code, out, err = run(capsys, "text", serve(one_paper, HTML, body.encode()))
    assert code == 0, err
    assert "DECOY" not in out and "The real words." in out


NAMES = "<p>By Gödel, Ångström, Erdős-free Müller and Zoë; “quoted” – 5 €.</p>"


@pytest.mark.parametrize(
    ("headers", "head", "codec"),
    [
        ({"Content-Type": "text/html; charset=ISO-8859-1"}, "", "cp1252"),
        ({"Content-Type": "text/html; charset=windows-1252"}, "", "cp1252"),
        ({"Content-Type": "text/html"}, '<meta charset="windows-1252">', "cp1252"),
        ({"Content-Type": "text/html"}, '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">', "cp1252"),
        # The header wins over the page's own <meta>, as in a browser.
        ({"Content-Type": "text/html; charset=latin1"}, '<meta charset="utf-8">', "cp1252"),
        ({"Content-Type": "text/html; charset=utf-8"}, '<meta charset="iso-8859-1">', "utf-8"),
    ],
    ids=["header-latin1", "header-1252", "meta-charset", "meta-http-equiv", "header-over-meta", "utf8-header-over-meta"],
)
def test_a_page_is_read_in_the_charset_it_declares(capsys, one_paper, headers, head, codec):
    names = NAMES.replace("Erdős-free ", "")  # ő has no byte in windows-1252
    code, out, err = run(capsys, "text", serve(one_paper, headers, page(names, head).encode(codec)))
    assert code == 0, err
    assert "By Gödel, Ångström, Müller and Zoë; “quoted” – 5 €." in lines_of(out)
    assert found_by(capsys, "text:gödel") == {one_paper.paper.id}


def test_an_unknown_charset_is_read_as_utf8_and_logged(capsys, one_paper, caplog):
    headers = {"Content-Type": "text/html; charset=x-no-such-charset"}
    code, out, err = run(capsys, "text", serve(one_paper, headers, page(NAMES).encode("utf-8")))
    assert code == 0, err
    assert "By Gödel, Ångström, Erdős-free Müller and Zoë; “quoted” – 5 €." in lines_of(out)
    assert "unknown charset 'x-no-such-charset'; read as UTF-8" in caplog.text


def test_a_meta_charset_after_the_first_kilobyte_is_not_honoured(capsys, one_paper):
    late = "<!-- " + "x" * 1100 + ' --><meta charset="windows-1252">'
    code, out, err = run(capsys, "text", serve(one_paper, {"Content-Type": "text/html"}, page(NAMES, late).encode("utf-8")))
    assert code == 0, err
    assert "By Gödel, Ångström, Erdős-free Müller and Zoë; “quoted” – 5 €." in lines_of(out)


def test_escape_sequences_written_as_references_in_a_formula_leave_nothing(capsys, one_paper, data_dir):
    alttexts = {
        "inline": "x&#27;[2J+y&#x1b;[31m",
        "title": "a&#27;]0;EVIL-TITLE&#7;b",
        "c1": "c&#155;1;31md&#x9d;0;EVIL-OSC&#x9c;",
        "named": "&lt;e&gt; &amp;#27;[0m",  # no reference to an ESC: its text, as written
    }
    maths = "".join(f'<math alttext="{text}" display="inline"><mi>Q</mi></math> ' for text in alttexts.values())
    body = f'<p>Formulas {maths}end.</p><math alttext="&#27;[2Jz^{{2}}" display="block"><mi>z</mi></math>'
    paper_id = serve(one_paper, HTML, page(body).encode())
    code, out, err = run(capsys, "text", paper_id)
    assert code == 0, err
    lines = lines_of(out)
    assert lines[1] == r"Formulas $x+y$ $ab$ $cd$ $<e> &#27;[0m$ end."
    assert lines[2] == "    $$z^{2}$$"
    stored = TextStore(data_dir).path(paper_id, one_paper.paper.version).read_text()
    for remnant in ("[2J", "[31m", "EVIL", "1;31m", "\x1b", "\x07", "\x9b"):
        assert remnant not in out and remnant not in stored, remnant
