"""Shared test helpers, first written for tests/test_fulltext_cli.py."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from reader.store import Store
from tests.conftest import ROOT
from tests.corpus import recent_papers
from tests.fulltext_pages import HTML, PAPER_HTML, PAPER_PDF, PDF
from tests.helpers.timing import scaled


def three_cached(arxiv_env, monkeypatch, data_dir) -> list:
    """Three papers cached in a topic, the loopback arXiv serving their HTML and PDF addresses."""
    monkeypatch.setenv("READER_ARXIV_HTML_URL", arxiv_env.html_url)
    monkeypatch.setenv("READER_ARXIV_PDF_URL", arxiv_env.pdf_url)
    papers = recent_papers(3)
    store = Store(data_dir)
    store.add_topic("Agents", "ti:agent")
    store.save_papers(papers, "Agents")
    arxiv_env.papers = papers
    return papers


@pytest.fixture
def texts_env(arxiv_env, monkeypatch, data_dir):
    """Three cached papers: the first has arXiv's HTML, the second only a PDF, the third neither."""
    html, pdf_only, neither = three_cached(arxiv_env, monkeypatch, data_dir)
    arxiv_env.documents[f"/html/{html.id}v{html.version}"] = (HTML, PAPER_HTML)
    arxiv_env.documents[f"/pdf/{pdf_only.id}v{pdf_only.version}"] = (PDF, PAPER_PDF)
    return arxiv_env


def peak_rss_of_reader_text(paper_id: str) -> tuple[int, str, int]:
    """`reader text ID` in a process of its own: (exit status, stderr, its peak RSS in MB)."""
    # VmHWM is this program's own peak: ru_maxrss keeps the forking parent's from before exec.
    script = (
        "import re, sys\n"
        "from reader.cli import main\n"
        f"code = main(['text', {paper_id!r}])\n"
        "peak = re.search(r'VmHWM:\\s+(\\d+) kB', open('/proc/self/status').read()).group(1)\n"
        "print('RSS', int(peak) // 1024, file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=dict(os.environ), timeout=scaled(120)
    )
    rss_line = done.stderr.splitlines()[-1]
    return done.returncode, done.stderr, int(rss_line.split()[1])
