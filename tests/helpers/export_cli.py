"""Shared test helpers, first written for tests/test_export_cli.py."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.arxiv_server import FakeArxiv
from tests.conftest import run
from tests.corpus import TODAY
from tests.helpers.cli import serve_agents, synced


class _Printed:
    """capsys's `readouterr` where no capsys is (a session fixture): what was printed since the last call."""

    def __init__(self) -> None:
        self.out, self.err = io.StringIO(), io.StringIO()

    def readouterr(self) -> tuple[str, str]:
        said = self.out.getvalue(), self.err.getvalue()
        for stream in (self.out, self.err):
            stream.seek(0)
            stream.truncate()
        return said


@pytest.fixture(scope="session")
def cached_once(tmp_path_factory) -> tuple[Path, list[str]]:
    """The data directory `cached` makes and the ids it gives, made once per worker: "Agents"
    synced through the command line from a loopback arXiv of its own, in the environment the
    suite's fixtures set (no READER_ variable of the machine's)."""
    work = tmp_path_factory.mktemp("cached")
    fake = FakeArxiv().start()
    printed = _Printed()
    try:
        with pytest.MonkeyPatch.context() as env, contextlib.redirect_stdout(printed.out), contextlib.redirect_stderr(printed.err):
            for key in [key for key in os.environ if key.startswith("READER_")]:
                env.delenv(key)
            for key, value in {
                "READER_DATA_DIR": str(work / "data"),
                "READER_CONFIG_DIR": str(work / "config"),
                "READER_LOG_DIR": str(work / "log"),
                "READER_ARXIV_API_URL": fake.api_url,
                "READER_ARXIV_RSS_URL": fake.rss_url,
                "READER_ARXIV_AR5IV_URL": fake.ar5iv_url,
                "READER_ARXIV_DELAY": "0",
                "READER_ARXIV_BACKOFF": "0.01",
                "READER_TODAY": TODAY.isoformat(),
            }.items():
                env.setenv(key, value)
            assert synced(printed, fake)[0] == 0
            ids = [row["id"] for row in json.loads(run(printed, "list", "--json", "--limit", "6")[1])]
    finally:
        fake.stop()
    return work / "data", ids


@pytest.fixture
def cached(arxiv_env, data_dir, cached_once):
    """ "Agents": 30 papers synced through the command line (`synced`), the loopback arXiv still
    serving them; the ids of the first six `reader list` shows. A copy of `cached_once`'s data
    directory: the sync ran once per worker, not once per test."""
    template, ids = cached_once
    shutil.copytree(template, data_dir)
    serve_agents(arxiv_env)
    return ids


def entries(text: str) -> list[str]:
    return [line.split("= {")[1].rstrip("},") for line in text.splitlines() if line.startswith("  eprint = ")]
