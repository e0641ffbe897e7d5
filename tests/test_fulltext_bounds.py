"""Bounded work on hostile pages: every construct a page holds counts, so a small gzip page that
would cost minutes of CPU or gigabytes is refused within seconds, in one line, never retried,
with nothing stored; and a PDF whose pages share one huge content stream, or with one page of
70 MB of text operators, is read or refused within bounds."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from reader.fulltext.store import TextStore
from tests.conftest import run
from tests.fulltext_pages import HOSTILE_WORK, HTML, PAPER_PDF, PDF, pdf_of_text_operators
from tests.helpers.fulltext import peak_rss_of_reader_text

# texts_env: conftest's fixture (the fixture: three cached papers, with HTML, a PDF, neither)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from /proc (Linux)"),
]  # slow: full-size hostile pages


@pytest.mark.parametrize("name", list(HOSTILE_WORK))
def test_a_hostile_page_is_refused_in_one_line_within_300_mb_and_never_retried(texts_env, data_dir, name):
    paper = texts_env.papers[0]
    body = gzip.compress(HOSTILE_WORK[name](), 1)
    texts_env.documents[f"/html/{paper.id}v{paper.version}"] = ({**HTML, "Content-Encoding": "gzip"}, body)
    code, stderr, peak = peak_rss_of_reader_text(paper.id)
    told = [line for line in stderr.splitlines() if not line.startswith("RSS ")]
    assert code == 1, stderr
    assert len(told) == 1 and told[0].startswith("reader: error: the page has ") and told[0].endswith("; refused"), stderr
    assert len(texts_env.document_requests()) == 1  # final: no retry, no PDF instead
    assert TextStore(data_dir).stored_versions() == {}
    assert peak <= 300


def _serve_pdf(env, body: bytes) -> str:
    paper = env.papers[1]  # arXiv has no HTML of it
    env.documents[f"/pdf/{paper.id}v{paper.version}"] = (PDF, body)
    return paper.id


@pytest.mark.parametrize("pdf", ["1,999 pages sharing one 10 MB stream", "one page of 70 MB"])
def test_a_pdf_whose_pages_draw_too_much_is_an_error_in_one_line_within_300_mb(texts_env, data_dir, pdf):
    if pdf.startswith("1,999"):
        body = pdf_of_text_operators(1999, 530_000)
        why = "(1,999 of 1,999 pages unreadable or too large)"
    else:
        body = pdf_of_text_operators(1, 3_700_000)
        why = "(1 of 1 pages unreadable or too large)"
    paper_id = _serve_pdf(texts_env, body)
    code, stderr, peak = peak_rss_of_reader_text(paper_id)
    told = [line for line in stderr.splitlines() if not line.startswith("RSS ")]
    assert code == 1, stderr
    assert told == [f"reader: error: {paper_id}v1: no text could be read from the PDF {why}"]
    assert TextStore(data_dir).stored_versions() == {}
    assert peak <= 300


def test_a_pdf_page_too_large_is_skipped_and_counted_and_the_rest_read(capsys, texts_env, data_dir):
    paper_id = _serve_pdf(texts_env, pdf_of_text_operators(1, 3_700_000, after=PAPER_PDF))
    code, out, err = run(capsys, "text", paper_id)
    assert code == 0, err
    assert "Reward Shaping for Tool-Using Agents" in out and "word word" not in out
    assert "1 of 3 pages of the PDF could not be read (damaged, or too large); skipped" in err
    assert TextStore(data_dir).stored_versions() == {paper_id: 1}


@pytest.mark.parametrize("location", ["data:text/html,<p>words</p>", "javascript:alert(1)", "file:///etc/passwd", "FILE:/etc/passwd"])
def test_a_redirect_to_an_address_that_is_no_web_page_is_told_as_what_it_is(capsys, texts_env, data_dir, location):
    paper = texts_env.papers[0]
    texts_env.redirects[f"/html/{paper.id}v{paper.version}"] = (302, location)
    code, out, err = run(capsys, "text", paper.id)
    scheme = location.split(":")[0].lower()
    assert (code, out) == (1, "")
    assert err == f"reader: error: arXiv redirected to a {scheme}: address, which is no web page; not followed\n"
    assert len(texts_env.document_requests()) == 1
    assert TextStore(data_dir).stored_versions() == {}
