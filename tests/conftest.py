from __future__ import annotations

import fcntl
import os
import shutil
import sys
from pathlib import Path

import pytest

from reader.cli import main
from tests.arxiv_server import FakeArxiv
from tests.helpers.timing import TIME_FACTOR, scale_time_limits

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "arxiv"  # recorded arXiv responses (CC0), see SOURCES.md
TOOLS = ROOT / "tests" / "tools"

# Bytecode is written even where PYTHONDONTWRITEBYTECODE is set (it is in some shells here): else
# every worker rewrites and compiles every test module again at collection (about 9 of its 13 s of
# CPU), and every child process a test starts compiles the modules of reader it imports again.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def fixture_bytes(name: str) -> bytes:
    """A recorded arXiv response from tests/fixtures/arxiv."""
    return (FIXTURES / name).read_bytes()


def pytest_collection_modifyitems(config, items):
    """Time limits stretched by READER_TEST_TIME_FACTOR on a loaded machine (tests/helpers/timing.py)."""
    default = config.getoption("timeout", None) or config.getini("timeout") or 0
    scale_time_limits(items, float(default), TIME_FACTOR)


@pytest.fixture
def fake_arxiv():
    server = FakeArxiv().start()
    yield server
    server.stop()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


def built_once_per_run(tmp_path_factory, name: str, build) -> Path:
    """A data directory `build(data_dir)` makes, made once for the whole run: under xdist the
    first worker to ask builds it in the run's shared temporary directory while the others wait
    on a lock, then every worker reads the same one. Nothing may write to it: tests take copies."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        data_dir = tmp_path_factory.mktemp(name) / "data"
        build(data_dir)
        return data_dir
    shared = tmp_path_factory.getbasetemp().parent / name  # the run's directory, above each worker's
    shared.mkdir(exist_ok=True)
    with open(shared / "building.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (shared / "built").exists():
            build(shared / "data")
            (shared / "built").touch()
    return shared / "data"


@pytest.fixture(scope="session")
def learned_cache(tmp_path_factory) -> Path:
    """A data directory of 400 real papers with their meaning index built (tests/helpers/meaning.py):
    built once per run, a few seconds; a test takes a copy (`learned_data_dir`), never this one."""
    from tests.helpers.meaning import meaning_store

    return built_once_per_run(tmp_path_factory, "learned", meaning_store)


@pytest.fixture
def learned_data_dir(learned_cache, data_dir) -> Path:
    """The test's own copy of `learned_cache`, in its `data_dir`."""
    shutil.copytree(learned_cache, data_dir)
    return data_dir


@pytest.fixture
def demo_store(data_dir):
    """A data directory with the demo page's topic and no papers: the app opens on the demo set."""
    from reader.store import Store

    store = Store(data_dir)
    store.add_topic("RL for LLM Agents", "ti:agent")
    return store


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path):
    """No test reads the user's real data or reaches arXiv by accident."""
    for key in list(os.environ):
        if key.startswith("READER_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("READER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("READER_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("READER_LOG_DIR", str(tmp_path / "log"))
    monkeypatch.setenv("READER_ARXIV_API_URL", "http://127.0.0.1:9/api/query")
    monkeypatch.setenv("READER_ARXIV_RSS_URL", "http://127.0.0.1:9/rss/")
    monkeypatch.setenv("READER_ARXIV_AR5IV_URL", "http://127.0.0.1:9/ar5iv/")


def _no_disk_wait(fd: int) -> None:
    """os.fsync for the tests: the write is in the page cache either way."""


@pytest.fixture(autouse=True)
def _no_fsync(monkeypatch):
    """fsync makes a write survive a power cut, which no test makes; it waits ~5 ms on the disk
    each time, some 20 times a test (every atomic write flushes its file and its directory). A kill
    mid-write is tested in child processes, with the real fsync; tests that make fsync fail patch it again."""
    monkeypatch.setattr(os, "fsync", _no_disk_wait)


@pytest.fixture
def arxiv_env(fake_arxiv, monkeypatch):
    """The command line pointed at the loopback arXiv, without delays, on the suite's fixed day."""
    from tests.corpus import TODAY  # corpus.py reads fixtures through this module

    monkeypatch.setenv("READER_ARXIV_API_URL", fake_arxiv.api_url)
    monkeypatch.setenv("READER_ARXIV_RSS_URL", fake_arxiv.rss_url)
    monkeypatch.setenv("READER_ARXIV_AR5IV_URL", fake_arxiv.ar5iv_url)
    monkeypatch.setenv("READER_ARXIV_DELAY", "0")
    monkeypatch.setenv("READER_ARXIV_BACKOFF", "0.01")
    monkeypatch.setenv("READER_TODAY", TODAY.isoformat())
    return fake_arxiv


def run(capsys, *args):
    """`reader ARGS...` in this process: (exit status, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# Fixtures shared by several test modules (pytest finds them here, by these names)
from tests.helpers.app import papers as papers  # noqa: E402, F401
from tests.helpers.app import store as store  # noqa: E402, F401
from tests.helpers.app import store as two_topics  # noqa: E402, F401
from tests.helpers.export_cli import cached as cached  # noqa: E402, F401
from tests.helpers.export_cli import cached_once as cached_once  # noqa: E402, F401
from tests.helpers.fulltext import texts_env as texts_env  # noqa: E402, F401
from tests.helpers.import_library import arxiv as arxiv  # noqa: E402, F401
from tests.helpers.import_library import library as library  # noqa: E402, F401
