"""Bounded work on hostile pages: every construct a page holds counts, so a small gzip page that
would cost minutes of CPU or gigabytes is refused within seconds, in one line, never retried,
with nothing stored; and a PDF whose pages share one huge content stream, or with one page of
70 MB of text operators, is read or refused within bounds."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from reader.fulltext.store import TextStore
from tests import test_fulltext_cli
from tests.fulltext_pages import HOSTILE_WORK, HTML

texts_env = test_fulltext_cli.texts_env  # the fixture: three cached papers, with HTML, a PDF, neither
pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from /proc (Linux)")


@pytest.mark.parametrize("name", list(HOSTILE_WORK))
def test_a_hostile_page_is_refused_in_one_line_within_300_mb_and_never_retried(texts_env, data_dir, name):
    paper = texts_env.papers[0]
    body = gzip.compress(HOSTILE_WORK[name](), 1)
    texts_env.documents[f"/html/{paper.id}v{paper.version}"] = ({**HTML, "Content-Encoding": "gzip"}, body)
    code, stderr, peak = test_fulltext_cli._peak_rss_of_reader_text(paper.id)
    told = [line for line in stderr.splitlines() if not line.startswith("RSS ")]
    assert code == 1, stderr
    assert len(told) == 1 and told[0].startswith("reader: error: the page has ") and told[0].endswith("; refused"), stderr
    assert len(texts_env.document_requests()) == 1  # final: no retry, no PDF instead
    assert TextStore(data_dir).stored_versions() == {}
    assert peak <= 300
