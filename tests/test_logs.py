"""The log: sync writes a rotating log, `-v` echoes it to stderr, and every sync error line says
where the log is."""

from __future__ import annotations

import logging

from reader import logs
from tests.conftest import run
from tests.corpus import recent_papers

QUERY = "ti:agent AND cat:cs.LG"


def test_a_failed_topic_says_where_the_log_is_and_the_log_has_the_cause(capsys, arxiv_env, tmp_path):
    run(capsys, "topics", "add", "Broken", "ti:unknown")
    code, out, _ = run(capsys, "sync", "--topic", "Broken")
    log_file = tmp_path / "log" / "reader.log"
    assert code == 1
    failed = [line for line in out.splitlines() if "FAILED" in line]
    (line,) = failed
    assert line.startswith(
        "Broken: 0 new, 0 updated (0 fetched) - FAILED: arXiv says: Invalid query string: '(ti:unknown) AND submittedDate:["
    )
    assert line.endswith(f"]' (log: {log_file})")
    text = log_file.read_text()
    assert " ERROR reader.sync: Broken: 0 new, 0 updated (0 fetched) - FAILED: arXiv says: Invalid query string" in text
    assert " INFO reader.sync: syncing Broken" in text


def test_no_connection_at_all_says_where_the_log_is(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("READER_ARXIV_DELAY", "0")
    monkeypatch.setenv("READER_ARXIV_BACKOFF", "0.01")
    code, out, err = run(capsys, "sync")
    assert code == 1
    failed = [line for line in out.splitlines() if "FAILED" in line]
    assert failed and all(line.endswith(f" (log: {tmp_path / 'log' / 'reader.log'})") for line in failed)
    assert "retrying" in (tmp_path / "log" / "reader.log").read_text()  # the client's notice, as a warning


def test_verbose_prints_the_records_to_stderr_too(capsys, arxiv_env):
    arxiv_env.queries[QUERY] = recent_papers(30)
    run(capsys, "topics", "add", "Agents", QUERY)
    code, _out, err = run(capsys, "sync", "--topic", "Agents")
    assert code == 0 and "reader.sync:" not in err
    code, _out, err = run(capsys, "-v", "sync", "--topic", "Agents")
    assert code == 0
    assert "reader.sync: syncing Agents" in err and "reader.sync: Agents: 0 new, 0 updated (30 fetched)" in err


def test_records_of_every_reader_logger_are_cleaned_and_rotated(tmp_path, monkeypatch):
    monkeypatch.setattr(logs, "MAX_BYTES", 2000)
    path = tmp_path / "deep" / "log" / "reader.log"
    with logs.logging_to(path):
        logging.getLogger("reader.arxiv").info("GET %s -> 200", "http://127.0.0.1/api?q=\x1b]0;owned\x07\x1b[2J\u202ex")
        for number in range(200):
            logging.getLogger("reader.sync").info("record %d %s", number, "x" * 40)
        logging.getLogger("elsewhere").info("not ours")
    files = sorted(p.name for p in path.parent.iterdir())
    assert files == ["reader.log", "reader.log.1", "reader.log.2", "reader.log.3"]
    everything = "".join((path.parent / name).read_text() for name in files)
    assert "record 199 " in everything and "not ours" not in everything
    assert not any(ch in everything for ch in "\x1b\x07\u202e")
    assert all(p.stat().st_size <= 2000 for p in path.parent.iterdir())
    assert not logging.getLogger("reader").handlers  # nothing left behind after the block


def test_an_unwritable_log_never_breaks_a_command(capsys, monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("READER_LOG_DIR", str(blocker / "log"))
    monkeypatch.setenv("READER_ARXIV_DELAY", "0")
    monkeypatch.setenv("READER_ARXIV_BACKOFF", "0.01")
    code, out, err = run(capsys, "sync")
    assert code == 1 and "FAILED" in out
    assert "Traceback" not in err and "Logging error" not in err
