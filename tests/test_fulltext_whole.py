"""A download counts only when it is whole, and one odd file in the data directory never disables
a feature: against the loopback arXiv cutting bodies short (no Content-Length, the connection
closed half-way), with files a kill or a macOS copy leaves in fulltext/, pdf/ and papers/."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reader.fulltext.store import TextStore
from reader.store import Store
from tests.arxiv_server import Fault
from tests.conftest import ROOT, run
from tests.fulltext_pages import HTML, PAPER_HTML, PAPER_PDF, PDF

# texts_env: conftest's fixture (the fixture: three cached papers, with HTML, a PDF, neither)
APPLE_DOUBLE = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        " + b"\x00" * 64  # what macOS leaves as ._NAME


def _closed_after(headers: dict[str, str], body: bytes) -> Fault:
    """An answer with no Content-Length, ended by closing the connection after `body`."""
    head = "HTTP/1.1 200 OK\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "Connection: close\r\n\r\n"
    return Fault("raw", body=head.encode() + body)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) if folder.is_dir() else []


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _reader(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """`reader ARGS` in a process of its own (one that hangs fails the test instead of the suite)."""
    return subprocess.run([sys.executable, "-m", "reader", *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout)


def _blank_pdf() -> bytes:
    """A valid PDF with one page and no text on it (a scan, as far as reading its text goes)."""
    import pypdf

    writer = pypdf.PdfWriter()
    writer.add_blank_page(612, 792)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


# --- 6. a download counts only when it is whole ---------------------------------------------------


def test_a_pdf_cut_short_without_content_length_is_not_kept(capsys, texts_env, data_dir, monkeypatch):
    paper = texts_env.papers[1]
    target = TextStore(data_dir).pdf_path(paper.id, paper.version)
    monkeypatch.setenv("READER_ARXIV_RETRIES", "0")
    texts_env.faults = [Fault("cut")]
    code, out, err = run(capsys, "pdf", paper.id)
    assert (code, out) == (1, "")
    assert err == "reader: error: arXiv's PDF arrived cut short (the connection closed before its end) (gave up after 1 tries)\n"
    assert not target.exists() and _leftovers(target.parent) == []

    monkeypatch.setenv("READER_ARXIV_RETRIES", "2")
    texts_env.faults = [Fault("cut")]  # a retry gets it whole
    code, out, err = run(capsys, "pdf", paper.id)
    assert code == 0, err
    assert Path(out.splitlines()[-1]).read_bytes() == PAPER_PDF
    assert len(texts_env.document_requests()) == 3


def test_a_pdf_text_cut_short_is_an_error_and_nothing_is_stored(capsys, texts_env, data_dir, monkeypatch):
    paper = texts_env.papers[1]
    monkeypatch.setenv("READER_ARXIV_RETRIES", "0")
    texts_env.faults = [Fault("status", 404), Fault("status", 404), Fault("cut")]  # no HTML, none at ar5iv
    code, out, err = run(capsys, "text", paper.id)
    assert (code, out) == (1, "") and "cut short" in err and err.count("\n") == 1
    assert TextStore(data_dir).stored_versions() == {}
    assert not TextStore(data_dir).pdf_path(paper.id, paper.version).exists()


def test_an_html_page_cut_short_is_an_error_and_nothing_is_stored(capsys, texts_env, data_dir, monkeypatch):
    paper = texts_env.papers[0]
    monkeypatch.setenv("READER_ARXIV_RETRIES", "0")
    for fault in (Fault("cut"), _closed_after(HTML, PAPER_HTML[:1000])):  # cut in the article, and before it
        texts_env.requests.clear()
        texts_env.faults = [fault]
        code, out, err = run(capsys, "text", paper.id)
        assert (code, out) == (1, "")
        assert err == "reader: error: arXiv's page arrived cut short (the connection closed before its end) (gave up after 1 tries)\n"
        assert TextStore(data_dir).stored_versions() == {}
        assert len(texts_env.document_requests()) == 1  # not taken for a page without the paper: no PDF asked


def test_whole_bodies_without_content_length_are_kept(capsys, texts_env, data_dir):
    html, pdf_only, _ = texts_env.papers
    texts_env.faults = [_closed_after(HTML, PAPER_HTML)]
    code, out, err = run(capsys, "text", html.id)
    assert code == 0 and out.startswith("Reward Shaping for Tool-Using Agents"), err
    texts_env.faults = [_closed_after(PDF, PAPER_PDF)]
    code, out, err = run(capsys, "pdf", pdf_only.id)
    assert code == 0 and Path(out.splitlines()[-1]).read_bytes() == PAPER_PDF, err


def test_a_stored_pdf_that_does_not_open_is_fetched_again(capsys, texts_env, data_dir):
    paper = texts_env.papers[1]
    target = TextStore(data_dir).pdf_path(paper.id, paper.version)
    target.parent.mkdir(parents=True)
    target.write_bytes(PAPER_PDF[: len(PAPER_PDF) // 2])  # what an earlier version kept of a cut download
    code, out, err = run(capsys, "pdf", paper.id)
    assert code == 0, err
    assert target.read_bytes() == PAPER_PDF
    target.write_bytes(PAPER_PDF[: len(PAPER_PDF) // 2])
    code, out, err = run(capsys, "text", paper.id)
    assert code == 0 and "Our method improves success by 12%." in out, err
    assert target.read_bytes() == PAPER_PDF
    assert [r.path for r in texts_env.document_requests()][-1] == f"/pdf/{paper.id}v{paper.version}"


def test_refresh_fetches_the_pdf_again(capsys, texts_env, data_dir):
    paper = texts_env.papers[1]
    assert run(capsys, "text", paper.id)[0] == 0
    assert len(texts_env.document_requests()) == 3
    assert run(capsys, "text", paper.id, "--refresh")[0] == 0
    assert [r.path[:5] for r in texts_env.document_requests()] == ["/html", "/ar5i", "/pdf/"] * 2


def test_a_text_with_no_readable_block_is_an_error_never_stored(capsys, texts_env, data_dir):
    paper = texts_env.papers[1]
    texts_env.documents[f"/pdf/{paper.id}v{paper.version}"] = (PDF, _blank_pdf())
    for _ in range(2):  # fetched again the next time
        code, out, err = run(capsys, "text", paper.id)
        assert (code, out) == (1, "")
        assert err == f"reader: error: {paper.id}v{paper.version}: no text could be read from the PDF\n"
        assert TextStore(data_dir).stored_versions() == {}
    assert [r.path[:5] for r in texts_env.document_requests()] == ["/html", "/ar5i", "/pdf/", "/html", "/ar5i"]  # the PDF opens: kept
    html = texts_env.papers[0]
    code, out, err = run(capsys, "fetch-text", paper.id, html.id)  # one paper's failure does not stop the rest
    assert (code, out) == (1, "fetched 1 of 2 texts; 1 failed\n")
    assert f"{paper.id}v{paper.version}: FAILED: {paper.id}v{paper.version}: no text could be read from the PDF" in err
    assert TextStore(data_dir).stored_versions() == {html.id: html.version}


def test_a_stored_text_without_a_valid_block_is_fetched_again(capsys, texts_env, data_dir):
    paper = texts_env.papers[0]
    texts = TextStore(data_dir)
    texts.directory.mkdir(parents=True)
    head = {"format": 1, "id": paper.id, "version": paper.version, "source": "html", "blocks": [["nonsense", 3], "x"]}
    texts.path(paper.id, paper.version).write_text(json.dumps(head))
    code, out, err = run(capsys, "text", paper.id)
    assert code == 0 and out.startswith("Reward Shaping for Tool-Using Agents"), err
    assert len(texts_env.document_requests()) == 1
    assert texts.load(paper.id).blocks[0].text == "Reward Shaping for Tool-Using Agents"


def test_temporary_files_a_kill_leaves_are_removed_by_the_next_command_writing_there(capsys, texts_env, data_dir):
    html, pdf_only, _ = texts_env.papers
    pdf_dir = data_dir / "pdf"
    texts_env.faults = [Fault("drip", seconds=0.05)]  # a PDF arriving slowly
    child = subprocess.Popen(
        [sys.executable, "-m", "reader", "pdf", pdf_only.id], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 30
        while not _leftovers(pdf_dir) and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.01)  # polling for the file the download writes
    finally:
        child.kill()
        child.wait()
    assert _leftovers(pdf_dir) == [f".{pdf_only.id}v{pdf_only.version}.pdf.{child.pid}.part"], child.stderr.read()

    dead, alive = _dead_pid(), os.getppid()
    fulltext = data_dir / "fulltext"
    fulltext.mkdir()
    left = [f".{html.id}v{html.version}.json.{dead}.tmp", f".other.json.{dead}.tmp"]
    (fulltext / f".x.json.{alive}.tmp").write_text("another process's, still writing")
    for name in left:
        (fulltext / name).write_text('{"format": 1, "blocks": [')
    (pdf_dir / f".{html.id}v1.pdf.{dead}.tmp").write_bytes(b"%PDF-1.5")
    texts_env.faults = []
    assert run(capsys, "text", html.id)[0] == 0
    assert _leftovers(fulltext) == [f".x.json.{alive}.tmp"]
    code, out, err = run(capsys, "pdf", pdf_only.id)
    assert code == 0, err
    assert _leftovers(pdf_dir) == [] and Path(out.splitlines()[-1]).read_bytes() == PAPER_PDF

    papers = data_dir / "papers"  # a sync killed while writing a shard
    (papers / f".{html.id[:7]}.json.{dead}.tmp").write_bytes(b'{"meta": {"1": {"schema": 1}}, "papers": {"1": {')
    Store(data_dir).save_papers([dataclasses.replace(html, version=html.version + 1)], "Agents")
    assert _leftovers(papers) == []


# --- 7. one odd file never disables a feature -----------------------------------------------------


@pytest.mark.slow
def test_odd_names_and_a_fifo_in_fulltext_are_skipped(capsys, texts_env, data_dir, caplog):
    html, pdf_only, _ = texts_env.papers
    assert run(capsys, "text", html.id)[0] == 0
    fulltext = data_dir / "fulltext"
    stored = TextStore(data_dir).path(html.id, html.version).name
    (fulltext / f"._{stored}").write_bytes(APPLE_DOUBLE)
    (fulltext / "..v1.json").write_bytes(APPLE_DOUBLE)
    (fulltext / f"._{pdf_only.id}v{pdf_only.version}.json").write_bytes(APPLE_DOUBLE)
    os.mkfifo(fulltext / f"{pdf_only.id}v{pdf_only.version}.json")  # a FIFO named as a stored text

    for _ in range(2):
        done = _reader("list", "--query", 'text:"reward shaping"', "--json")
        assert done.returncode == 0, done.stderr
        assert [row["id"] for row in json.loads(done.stdout)] == [html.id]
    done = _reader("text", pdf_only.id)  # the FIFO is no stored text: the PDF is read
    assert done.returncode == 0 and "Our method improves success by 12%." in done.stdout, done.stderr
    assert (fulltext / f"._{stored}").read_bytes() == APPLE_DOUBLE  # not reader's: left alone

    caplog.set_level("WARNING", logger="reader")
    assert TextStore(data_dir).stored_versions() == {html.id: html.version, pdf_only.id: pdf_only.version}
    TextStore(data_dir).stored_versions()
    skipped = sorted(r.getMessage().rpartition(" skipped: ")[::2] for r in caplog.records if "skipped" in r.getMessage())
    assert skipped == [  # logged once each
        (str(fulltext / name), why)
        for name, why in sorted(
            [
                (f"._{stored}", "its name is not one of reader's"),
                ("..v1.json", "its name is not one of reader's"),
                (f"._{pdf_only.id}v{pdf_only.version}.json", "its name is not one of reader's"),
            ]
        )
    ]


def test_a_fifo_and_apple_double_files_in_pdf_are_skipped(capsys, texts_env, data_dir):
    paper = texts_env.papers[1]
    pdf_dir = data_dir / "pdf"
    pdf_dir.mkdir(parents=True)
    name = TextStore(data_dir).pdf_path(paper.id, paper.version).name
    (pdf_dir / f"._{name}").write_bytes(APPLE_DOUBLE)
    os.mkfifo(pdf_dir / name)
    os.mkfifo(pdf_dir / f".{name}.1.part")  # named like a leftover, but no file of ours
    done = _reader("pdf", paper.id)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.splitlines()[-1]).read_bytes() == PAPER_PDF
    assert (pdf_dir / f"._{name}").read_bytes() == APPLE_DOUBLE
    assert (pdf_dir / f".{name}.1.part").is_fifo()


def test_odd_files_in_papers_are_skipped(capsys, texts_env, data_dir):
    store = Store(data_dir)
    shards = store.shards()
    papers = data_dir / "papers"
    for shard in shards:
        (papers / f"._{shard}.json").write_bytes(APPLE_DOUBLE)
    (papers / "..json").write_bytes(APPLE_DOUBLE)
    os.mkfifo(papers / "2001.99.json")
    assert Store(data_dir).shards() == shards
    done = _reader("list", "--json")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)) == 3
    assert all((papers / f"._{shard}.json").read_bytes() == APPLE_DOUBLE for shard in shards)


@pytest.mark.parametrize("odd", ["apple_double", "fifo"])
def test_text_query_in_the_app_and_cli_survives_an_odd_file(capsys, texts_env, data_dir, odd):
    paper = texts_env.papers[0]
    assert run(capsys, "text", paper.id)[0] == 0
    fulltext = data_dir / "fulltext"
    if odd == "fifo":
        os.mkfifo(fulltext / "2609.99999v1.json")
    else:
        (fulltext / "._2609.10049v1.json").write_bytes(APPLE_DOUBLE)
    done = _reader("list", "--query", "text:potential")
    assert done.returncode == 0 and paper.id in done.stdout, done.stderr
