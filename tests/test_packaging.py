"""The distribution as a user gets it: the wheel built from this checkout, installed into a fresh
venv, run from a directory outside the checkout, so every resource must come from the wheel."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from reader.store import Store
from tests.corpus import recent_papers
from tests.terminal import run_in_terminal

ROOT = Path(__file__).resolve().parent.parent
# slow: builds and installs the wheel (about a minute on a quiet machine, counted in the first test's
# limit); one xdist worker builds it for the three tests.
pytestmark = [pytest.mark.slow, pytest.mark.packaging, pytest.mark.timeout(300), pytest.mark.xdist_group("packaging")]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """bin/ of a fresh venv holding only the built wheel and its dependencies."""
    work = tmp_path_factory.mktemp("packaging")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(work / "dist"), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = (work / "dist").glob("*.whl")
    assert wheel.name.startswith("arxiv_topic_reader-")
    subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True)
    subprocess.run(
        [str(work / "venv" / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", str(wheel)],
        check=True,
        capture_output=True,
    )
    return work / "venv" / "bin"


def user_env(tmp_path: Path, bin_dir: Path) -> dict[str, str]:
    """A user's environment: no PYTHONPATH (nothing from the checkout), arXiv unreachable."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("READER_", "PYTHON"))}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(tmp_path),
        TERM="xterm-256color",
        READER_DATA_DIR=str(tmp_path / "data"),
        READER_CONFIG_DIR=str(tmp_path / "config"),
        READER_LOG_DIR=str(tmp_path / "log"),
        READER_ARXIV_API_URL="http://127.0.0.1:9/api/query",
        READER_ARXIV_RSS_URL="http://127.0.0.1:9/rss/",
    )
    return env


def test_wheel_carries_the_package_its_styles_and_its_demo_set(installed):
    (wheel,) = (installed.parent.parent / "dist").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "reader/cli.py" in names and "reader/demo/seed-topic-page.json" in names
    # styles/ is the stylesheet's source; the wheel carries it inside the package.
    assert zipfile.ZipFile(wheel).read("reader/styles/reader.tcss") == (ROOT / "styles" / "reader.tcss").read_bytes()
    assert not any(name.startswith(("tests/", "benchmarks/", "styles/")) for name in names)


def test_installed_app_takes_its_stylesheet_from_the_installed_package(installed, tmp_path):
    env = user_env(tmp_path, installed)
    found = subprocess.run(
        [str(installed / "python"), "-c", "from reader.app.app import ReaderApp; print(ReaderApp.CSS_PATH)"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert found.startswith(str(installed.parent)) and found.endswith("reader/styles/reader.tcss"), found


def test_installed_command_runs_outside_the_checkout(installed, tmp_path):
    env = user_env(tmp_path, installed)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    where = subprocess.run(
        [str(installed / "python"), "-c", "import reader; print(reader.__file__)"],
        env=env,
        cwd=outside,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(installed.parent)), where

    version = subprocess.run(["reader", "--version"], check=False, env=env, cwd=outside, capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.strip() == f"reader {__import__('reader').__version__}"

    store = Store(tmp_path / "demo-data")
    papers = recent_papers(5)
    store.save_papers(papers, None)
    listing = subprocess.run(
        ["reader", "--data-dir", str(tmp_path / "demo-data"), "list", "--limit", "3"],
        check=False,
        env=env,
        cwd=outside,
        capture_output=True,
        text=True,
    )
    assert listing.returncode == 0, listing.stderr
    assert [line.split()[2] for line in listing.stdout.splitlines()[::2]] == [f"{p.id}v{p.version}" for p in papers[:3]]


def test_installed_app_opens_headless_on_the_bundled_demo_and_quits(installed, tmp_path):
    env = user_env(tmp_path, installed)
    run = run_in_terminal(["reader"], env=env, cwd=str(tmp_path), keys=[("demo paper", "q")], deadline=60)
    # The demo set and the stylesheet come from the wheel: without either the app stops with an
    # error before it draws a card.
    assert "demo paper" in run.output, run.output[-2000:]
    assert "Error:" not in run.output and "Traceback" not in run.output
    assert run.status == 0
