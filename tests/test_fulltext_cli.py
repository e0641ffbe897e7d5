"""Full texts on the command line (issue 30): `reader text`, `fetch-text`, `pdf`, `refs` and
`text:` searches, against the loopback arXiv serving LaTeXML's real output in arXiv's chrome."""

from __future__ import annotations

import gzip
import json
import os
import sys
from pathlib import Path

import pytest

from reader.arxiv.options import USER_AGENT
from reader.core.query import parse
from reader.core.scan import SearchBlock
from reader.fulltext.store import TextStore
from reader.fulltext.text_index import stored_words
from reader.search_index import SearchIndex
from reader.service.search_texts import shard_texts
from reader.store import Store
from tests.arxiv_server import Fault
from tests.conftest import ROOT, run
from tests.fulltext_pages import HOSTILE_HTML, HTML, PAPER_HTML, PAPER_PDF, SECRETS, deep_page, gzip_bomb
from tests.helpers.fulltext import peak_rss_of_reader_text
from tests.terminal import run_in_terminal

EXPECTED_ORDER = [
    "Reward Shaping for Tool-Using Agents",
    "Ada Lovelace",
    "Alan Turing",
    "Abstract",
    r"We study reward shaping for agents that call tools. Our method improves success by $12\%$.",
    "1 Introduction",
    r"Agents trained with sparse rewards learn slowly[^1]. We shape the reward with a potential $\Phi(s)$ so that "
    r"the optimal policy $\pi^{*}$ is unchanged. The shaped reward is",
    "  [^1]: A footnote about sparse rewards and credit.",
    r"    $$r^{\prime}(s,a,s^{\prime})=r(s,a,s^{\prime})+\gamma\Phi(s^{\prime})-\Phi(s).$$ (1)",
    "This follows earlier work on potentials [1] and on tool use [2, 3].",
    "2 Method",
    "2.1 Potentials from demonstrations",
    "Our contributions are:",
    "  • a potential learned from demonstrations;",
    r"  • a bound on the regret, $O(\sqrt{T})$;",
    "  • experiments on three benchmarks.",
    "3 Results",
    "Table 1 reports the success rates.",
    "  Method | Success | Steps",
    "  Sparse | 41.0 | 120",
    "  Shaped | 53.0 | 85",
    "Table 1: Success rate of each method on the benchmarks.",
    "References",
    "[1] A. Y. Ng, D. Harada and S. Russell. Policy invariance under reward transformations. In ICML, 1999.",
    "[2] T. Schick et al. Toolformer: Language models can teach themselves to use tools. arXiv:2302.04761, 2023.",
    "[3] S. Yao et al. ReAct: Synergizing reasoning and acting in language models. https://arxiv.org/abs/2210.03629v3.",
    "[4] J. Doe. A paper with an arXiv DOI. doi:10.48550/arXiv.2609.00002.",
]


def test_text_prints_the_paper_in_reading_order_without_chrome_and_keeps_it(capsys, texts_env, data_dir):
    paper = texts_env.papers[0]
    code, out, err = run(capsys, "text", paper.id)
    assert code == 0, err
    lines = out.splitlines()
    assert [line for line in lines if line] == EXPECTED_ORDER  # piped: one line per block, nothing wrapped
    assert "CHROME" not in out and "Back to arXiv" not in out and "HTML conversions" not in out
    assert "Φ" not in out and "𝑥" not in out  # MathML's glyphs never: the TeX stands for them
    requests = texts_env.document_requests()
    assert [r.path for r in requests] == [f"/html/{paper.id}v{paper.version}"]
    assert requests[0].user_agent == USER_AGENT
    stored = TextStore(data_dir).path(paper.id, paper.version)
    assert stored.is_file() and "CHROME" not in stored.read_text()

    texts_env.stop()  # stored: printed again offline, with no request
    code, again, err = run(capsys, "text", f"arXiv:{paper.id}")
    assert (code, again) == (0, out), err
    assert len(texts_env.document_requests()) == 1


def test_no_html_falls_back_to_ar5iv_then_the_pdf_after_the_polite_delay(capsys, texts_env, monkeypatch, data_dir):
    monkeypatch.setenv("READER_ARXIV_DELAY", "0.3")
    paper = texts_env.papers[1]
    code, out, err = run(capsys, "text", paper.id)
    assert code == 0, err
    assert "read from its PDF" in err
    assert "We study reward shaping for agents that call tools. Our method improves success by 12%." in out
    assert "[2] T. Schick et al. Toolformer: Language models can teach themselves to use tools. arXiv:2302.04761, 2023." in out
    html, ar5iv, pdf = texts_env.document_requests()
    assert (html.path, ar5iv.path, pdf.path) == (
        f"/html/{paper.id}v{paper.version}",
        f"/ar5iv/{paper.id}",
        f"/pdf/{paper.id}v{paper.version}",
    )  # ar5iv has no version in its URL: it serves the one it has
    assert ar5iv.started - html.ended >= 0.3 and pdf.started - ar5iv.ended >= 0.3
    assert texts_env.max_in_flight == 1
    assert TextStore(data_dir).stored_pdf(paper.id, paper.version).read_bytes() == PAPER_PDF


def test_no_html_and_no_pdf_is_a_one_line_error(capsys, texts_env, data_dir):
    paper = texts_env.papers[2]
    code, out, err = run(capsys, "text", paper.id)
    assert (code, out) == (1, "")
    assert err == f"reader: error: arXiv has neither HTML nor a PDF of {paper.id}v{paper.version}, and ar5iv has no HTML of it\n"
    assert len(texts_env.document_requests()) == 3  # a 404 is final: no retry
    assert TextStore(data_dir).stored_versions() == {}


def test_a_paper_not_in_the_cache_is_a_one_line_error_with_no_request(capsys, texts_env):
    code, out, err = run(capsys, "text", "2101.00001")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "not in the cache: 2101.00001 (`reader add 2101.00001` fetches it" in err
    assert texts_env.document_requests() == []


def test_a_text_of_an_older_version_prints_with_a_note_naming_both(capsys, texts_env, data_dir):
    paper = texts_env.papers[0]
    assert run(capsys, "text", paper.id)[0] == 0
    newer = paper.version + 1
    store = Store(data_dir)
    import dataclasses

    store.save_papers([dataclasses.replace(paper, version=newer)], "Agents")
    code, out, err = run(capsys, "text", paper.id)
    assert code == 0 and out.startswith("Reward Shaping")
    assert f"this is the text of {paper.id}v{paper.version}; the cache has v{newer}" in err
    assert len(texts_env.document_requests()) == 1  # printed from the store


def test_refresh_fetches_again(capsys, texts_env):
    paper = texts_env.papers[0]
    run(capsys, "text", paper.id)
    code, _, _ = run(capsys, "text", paper.id, "--refresh")
    assert code == 0 and len(texts_env.document_requests()) == 2


def test_hostile_page_prints_its_words_and_nothing_else(capsys, texts_env, data_dir):
    paper = texts_env.papers[0]
    texts_env.documents[f"/html/{paper.id}v{paper.version}"] = (HTML, HOSTILE_HTML)
    code, out, err = run(capsys, "text", paper.id)
    assert code == 0, err
    stored = TextStore(data_dir).path(paper.id, paper.version).read_text()
    for secret in SECRETS:
        assert secret not in out and secret not in err and secret not in stored, secret
    for character in "\x1b\x07\x9b\x9d\x9c\u202e\u202c\u2066\u2069":
        assert character not in out and character not in stored
    assert "chrome" not in out
    assert "Hostile [bold red]Title[/]" in out  # markup-looking text, as written
    assert r"Visible words [link=https://x.example]click[/link] and \[escaped] link words" in out
    assert "raw escapes end red clear" in out and "as references done bg csi ok" in out
    assert "bidi desrever and isolate text" in out
    assert "<b>not bold</b> $(rm -rf ~) `whoami` %s %n {{7*7}}" in out


@pytest.mark.slow
def test_a_page_nested_100000_deep_is_read_whole(capsys, texts_env):
    paper = texts_env.papers[0]
    texts_env.documents[f"/html/{paper.id}v{paper.version}"] = (HTML, deep_page())
    code, out, err = run(capsys, "text", paper.id)
    assert (code, out) == (0, "before the depths\n\ndeep words\n\nafter the depths\n"), err


@pytest.mark.slow
@pytest.mark.parametrize("stacked", [False, True])
def test_a_gzip_bomb_is_refused_at_once_and_not_retried(capsys, texts_env, data_dir, stacked):
    paper = texts_env.papers[0]
    body = gzip_bomb()
    headers = {**HTML, "Content-Encoding": "gzip, gzip" if stacked else "gzip"}
    texts_env.documents[f"/html/{paper.id}v{paper.version}"] = (headers, gzip.compress(body) if stacked else body)
    code, out, err = run(capsys, "text", paper.id)
    assert (code, out) == (1, "")
    assert err == "reader: error: arXiv's response exceeded 64 MB; refused\n"
    assert len(texts_env.document_requests()) == 1
    assert TextStore(data_dir).stored_versions() == {}


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from /proc (Linux)")
@pytest.mark.parametrize("page", ["bomb", "deep"])
def test_reader_text_stays_within_300_mb_on_the_bomb_and_the_deep_page(texts_env, page):
    paper = texts_env.papers[0]
    if page == "bomb":
        texts_env.documents[f"/html/{paper.id}v{paper.version}"] = ({**HTML, "Content-Encoding": "gzip"}, gzip_bomb())
    else:
        texts_env.documents[f"/html/{paper.id}v{paper.version}"] = (HTML, deep_page())
    code, stderr, peak = peak_rss_of_reader_text(paper.id)
    assert code == (1 if page == "bomb" else 0), stderr
    assert "Traceback" not in stderr
    assert peak <= 300


def test_fetch_text_fetches_what_is_not_stored_one_by_one_and_goes_on_after_a_failure(capsys, texts_env, data_dir):
    first, pdf_only, neither = texts_env.papers
    run(capsys, "text", first.id)  # stored already: no request for it
    before = len(texts_env.document_requests())
    code, out, err = run(capsys, "fetch-text", "--topic", "agents")
    assert code == 1
    assert out == "fetched 1 of 2 texts; 1 stored already; 1 failed\n"
    assert f"{pdf_only.id}v{pdf_only.version}: stored from the PDF (no HTML)" in err
    assert f"{neither.id}v{neither.version}: FAILED: arXiv has neither HTML nor a PDF" in err
    paths = [r.path for r in texts_env.document_requests()[before:]]
    assert f"/html/{first.id}v{first.version}" not in paths
    assert set(TextStore(data_dir).stored_versions()) == {first.id, pdf_only.id}
    assert texts_env.max_in_flight == 1

    code, out, _ = run(capsys, "fetch-text", first.id, pdf_only.id)
    assert (code, out) == (0, "fetched 0 of 0 texts; 2 stored already\n")


@pytest.mark.parametrize("command", ["text", "fetch-text"])
def test_help_sentences_start_with_a_capital(capsys, command):
    code, out, _ = run(capsys, command, "--help")
    out = " ".join(out.split())
    assert code == 0
    assert "the references last. Texts are kept" in out or "one by one. Texts are kept" in out


def test_fetch_text_needs_papers_named(capsys, texts_env):
    code, out, err = run(capsys, "fetch-text")
    assert (code, out) == (1, "") and "name the papers" in err


def test_pdf_is_saved_byte_for_byte_reused_and_its_path_printed_last(capsys, texts_env, data_dir, tmp_path):
    paper = texts_env.papers[1]
    code, out, err = run(capsys, "pdf", paper.id)
    assert code == 0, err
    path = Path(out.splitlines()[-1])
    assert path.is_absolute() and path.read_bytes() == PAPER_PDF
    assert path == TextStore(data_dir).pdf_path(paper.id, paper.version).absolute()
    target = tmp_path / "out" / "paper.pdf"
    target.parent.mkdir()
    code, out, err = run(capsys, "pdf", paper.id, "-o", str(target))
    assert code == 0, err
    assert out.splitlines()[-1] == str(target.absolute()) and target.read_bytes() == PAPER_PDF
    assert [r.path for r in texts_env.document_requests()] == [f"/pdf/{paper.id}v{paper.version}"]  # reused


def test_pdf_missing_is_a_one_line_error(capsys, texts_env):
    paper = texts_env.papers[0]
    code, out, err = run(capsys, "pdf", paper.id)
    assert (code, out) == (1, "")
    assert err == f"reader: error: arXiv has no PDF of {paper.id}v{paper.version}\n"


def test_pdf_to_a_folder_suggests_a_pdf_file_name(capsys, texts_env, tmp_path):
    code, out, err = run(capsys, "pdf", texts_env.papers[0].id, "-o", str(tmp_path))
    assert (code, out) == (1, "")
    assert err == f"reader: error: {tmp_path} is a folder: give a file name, e.g. {tmp_path / 'paper.pdf'}\n"
    assert not texts_env.document_requests()


def test_refs_lists_the_bibliography_with_arxiv_ids_and_marks(capsys, texts_env, data_dir):
    paper = texts_env.papers[0]
    cited = "2609.00002"
    store = Store(data_dir)
    import dataclasses

    store.save_papers([dataclasses.replace(paper, id=cited, version=1)], "Agents")
    store.set_marks([cited], starred=True)
    code, _, err = run(capsys, "refs", paper.id)
    assert code == 1 and "no stored text" in err
    run(capsys, "text", paper.id)
    code, out, _ = run(capsys, "refs", paper.id)
    assert code == 0
    assert out.splitlines() == [
        EXPECTED_ORDER[-4],
        EXPECTED_ORDER[-3] + "  [arXiv:2302.04761]",
        EXPECTED_ORDER[-2] + "  [arXiv:2210.03629]",
        EXPECTED_ORDER[-1] + "  [arXiv:2609.00002: cached, starred]",
    ]
    code, out, _ = run(capsys, "refs", paper.id, "--json")
    rows = json.loads(out)
    assert [row["arxiv_id"] for row in rows] == [None, "2302.04761", "2210.03629", "2609.00002"]
    assert rows[3] == {
        "number": 4,
        "key": "bib.bib4",
        "text": EXPECTED_ORDER[-1],
        "arxiv_id": cited,
        "cached": True,
        "starred": True,
        "read": False,
    }


def test_refs_of_a_hand_edited_text_print_no_escape_sequence(capsys, texts_env, data_dir):
    """A stored text's reference ids are checked when read, like its words: the file may be edited."""
    paper = texts_env.papers[0]
    run(capsys, "text", paper.id)
    path = TextStore(data_dir).path(paper.id, paper.version)
    data = json.loads(path.read_text())
    for block in data["blocks"]:
        if block[0] == "reference":  # [kind, text, arxiv_id, {number, key}]
            block[2] = "2302.04761\x1b]0;PWNED\x07\x1b[2J"
    path.write_text(json.dumps(data))
    code, out, _ = run(capsys, "refs", paper.id)
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    assert out.splitlines() == EXPECTED_ORDER[-4:]
    code, out, _ = run(capsys, "refs", paper.id, "--json")
    assert [row["arxiv_id"] for row in json.loads(out)] == [None, None, None, None]


def test_text_field_searches_stored_texts_offline_like_the_scan_evaluator(capsys, texts_env, data_dir):
    first, pdf_only, _ = texts_env.papers
    run(capsys, "text", first.id)
    run(capsys, "text", pdf_only.id)
    texts_env.stop()  # searching needs no network
    queries = {
        'text:"reward shaping"': {first.id, pdf_only.id},
        'text:"shaping reward"': {first.id, pdf_only.id},  # an inflection of its "the shaped reward"
        'text:"shaping agents"': set(),
        "text:toolformer AND text:potentials": {first.id, pdf_only.id},
        "text:SCHRÖDINGER OR text:lovelace": {first.id, pdf_only.id},
        'text:"sparse rewards" ANDNOT text:zzz': {first.id, pdf_only.id},
        'text:"reward shaping" AND id:' + first.id: {first.id},
        "text:nowhere": set(),
        "shaping": set(),  # plain words keep their meaning: not the full texts
    }
    store = Store(data_dir)
    bodies = stored_words(data_dir)
    index = SearchIndex.open(data_dir)
    index.refresh(store)
    try:
        for query, expected in queries.items():
            node = parse(query, implicit_and=True)
            scan = set().union(*(SearchBlock(shard_texts(store, s), {}, bodies).matching(node) for s in store.shards()))
            assert index.matching(node) == scan, query
            if expected:
                assert scan >= expected, query
            elif query != "shaping":
                assert scan == set(), query
    finally:
        index.close()
    code, out, err = run(capsys, "list", "--query", 'text:"reward shaping"')
    assert code == 0, err
    assert {line.split()[2].split("v")[0] for line in out.splitlines() if line[:1].isdigit()} == {first.id, pdf_only.id}
    code, out, err = run(capsys, "export", "--query", "text:toolformer", "--format", "ris")
    assert code == 0 and out.count("TY  - ") == 2


def test_text_field_is_an_error_in_a_topic_query(capsys, texts_env):
    code, out, err = run(capsys, "topics", "add", "Shaping", 'text:"reward shaping"')
    assert (code, out) == (1, "")
    assert "text: searches the full texts stored here: it works in the filter, not in an arXiv query" in err


@pytest.mark.parametrize("setting", ["READER_ARXIV_HTML_URL", "READER_ARXIV_PDF_URL"])
def test_document_urls_are_checked_like_the_api_url(capsys, monkeypatch, setting):
    monkeypatch.setenv(setting, "ftp://example.org/")
    code, out, err = run(capsys, "topics", "list")
    assert (code, out) == (1, "")
    assert err.startswith(f"reader: error: {setting}='ftp://example.org/' is not an http(s) URL")
    code, out, err = run(capsys, "config")  # shows the problem beside the value in use
    assert code == 1 and f"{setting}='ftp://example.org/' is not an http(s) URL" in out + err


def test_retries_a_503_and_follows_no_redirect_to_another_host(capsys, texts_env):
    paper = texts_env.papers[0]
    texts_env.faults = [Fault("status", 503, {"Retry-After": "0"})]
    code, out, err = run(capsys, "text", paper.id)
    assert code == 0 and out.startswith("Reward Shaping"), err
    assert [r.path for r in texts_env.document_requests()] == [f"/html/{paper.id}v{paper.version}"] * 2
    other = texts_env.papers[1]
    texts_env.redirects[f"/html/{other.id}v{other.version}"] = (302, "http://example.invalid/html/x")
    code, out, err = run(capsys, "text", other.id)
    assert (code, out) == (1, "")
    assert err == "reader: error: arXiv redirected to another host (example.invalid); not followed\n"


def test_ctrl_c_in_fetch_text_keeps_what_was_saved(capsys, texts_env, data_dir, monkeypatch):
    from reader.fulltext.fetch import TextFetcher

    first, second, _ = texts_env.papers
    texts_env.documents[f"/html/{second.id}v{second.version}"] = (HTML, PAPER_HTML)
    real = TextFetcher.text

    async def interrupted_at_the_second(self, paper_id, version, progress=None):
        if paper_id == second.id:
            raise KeyboardInterrupt
        return await real(self, paper_id, version, progress)

    monkeypatch.setattr(TextFetcher, "text", interrupted_at_the_second)
    code, _, err = run(capsys, "fetch-text", first.id, second.id)
    assert code == 130 and err.endswith("reader: interrupted\n")
    assert TextStore(data_dir).stored_versions() == {first.id: first.version}
    assert TextStore(data_dir).load(first.id).blocks[0].text == "Reward Shaping for Tool-Using Agents"


def test_on_a_terminal_the_text_is_wrapped_and_paged(capsys, texts_env, monkeypatch, tmp_path):
    paper = texts_env.papers[0]
    paged = tmp_path / "paged.txt"
    monkeypatch.setenv("PAGER", f"cat > {paged}")
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.setenv("LINES", "20")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, err = run(capsys, "text", paper.id, "--tex")  # the line count below is of the TeX's lengths
    assert (code, out) == (0, "")  # all of it went to the pager
    text = paged.read_text()
    assert all(len(line) <= 60 for line in text.splitlines())
    assert "Agents trained with sparse rewards learn slowly[^1]. We\nshape the reward" in text
    assert len(text.splitlines()) > len(EXPECTED_ORDER) * 2 - 1


def test_text_prints_math_in_unicode_on_a_terminal_and_tex_when_piped_or_asked(capsys, texts_env, monkeypatch, tmp_path):
    paper = texts_env.papers[0]
    display_tex = r"$$r^{\prime}(s,a,s^{\prime})=r(s,a,s^{\prime})+\gamma\Phi(s^{\prime})-\Phi(s).$$ (1)"
    display_unicode = "r′(s, a, s′) = r(s, a, s′) + γΦ(s′) − Φ(s). (1)"
    code, piped, err = run(capsys, "text", paper.id)
    assert code == 0 and f"    {display_tex}" in piped.splitlines() and "Φ" not in piped, err  # piped: TeX, for grep and pasting
    code, forced, err = run(capsys, "text", paper.id, "--unicode")
    assert code == 0, err
    assert f"    {display_unicode}" in forced.splitlines() and r"the optimal policy π* is unchanged" in forced and "$" not in forced

    paged = tmp_path / "paged.txt"
    monkeypatch.setenv("PAGER", f"cat > {paged}")
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("LINES", "20")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, err = run(capsys, "text", paper.id)
    assert (code, out) == (0, ""), err
    terminal = paged.read_text()
    assert f"    {display_unicode}\n" in terminal and "  • a bound on the regret, O(√T);\n" in terminal and "$" not in terminal
    code, out, err = run(capsys, "text", paper.id, "--tex")
    assert (code, out) == (0, ""), err
    assert f"    {display_tex}\n" in paged.read_text() and "Φ" not in paged.read_text()
    code, out, err = run(capsys, "text", paper.id, "--tex", "--unicode")
    assert code == 1 and err.strip() == "reader: error: argument --unicode: not allowed with argument --tex (see `reader text --help`)"


def test_in_a_real_terminal_reader_text_shows_unicode_and_tex_with_tex(capsys, texts_env):
    paper = texts_env.papers[0]
    assert run(capsys, "text", paper.id)[0] == 0  # fetched and stored (piped)
    env = {**os.environ, "PAGER": "cat"}
    shown = run_in_terminal([sys.executable, "-m", "reader", "text", paper.id], env=env, cwd=str(ROOT), size=(100, 200))
    assert shown.status == 0, shown.output
    assert "    r′(s, a, s′) = r(s, a, s′) + γΦ(s′) − Φ(s). (1)\r\n" in shown.output and "\\gamma" not in shown.output
    tex = run_in_terminal([sys.executable, "-m", "reader", "text", paper.id, "--tex"], env=env, cwd=str(ROOT), size=(100, 200))
    assert tex.status == 0 and "\\gamma\\Phi(s^{\\prime})" in tex.output and "γ" not in tex.output, tex.output
