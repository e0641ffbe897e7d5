"""The million-paper benchmark's parts run at 2,000 papers (issue 32): loopback arXiv, CLI
sync, the app in tmux three times, the commands. Figures are not checked (speed belongs to the
benchmark itself); what each step did is."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.timing import scaled

pytestmark = pytest.mark.slow  # a benchmark at scale, in tmux

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("tmux") is None, reason="the benchmark runs the app in tmux")
@pytest.mark.timeout(600)  # a sync, three app starts and two rankings in child processes: ~1-2 minutes
def test_million_benchmark_runs_at_2000_papers(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.million",
            "--papers",
            "2000",
            "--work",
            str(tmp_path),
            "--watch",
            "3",
            "--settle",
            "1",
            "--longest",
            "20",
            "--runs",
            "1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=scaled(600),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["cached"] == 2000  # the sync cached every paper the loopback arXiv served
    assert 2 <= figures["requests"] <= 10  # pages of 1,000, no result past 10,000
    assert [run["card_s"] is not None for run in figures["app"]] == [True] * 3  # the newest card was seen each time
    assert not any(run["traceback"] for run in figures["app"])
    assert all(run["peak_mb"] > 20 for run in figures["app"])  # the app's tree was measured
    assert figures["list_counts"] == {'abs:"of the" AND cat:cs.SE': 10, "zebra xylophone": 0}
    assert figures["ranked"] == 20
    assert figures["disk_mb"] > 1
    table = done.stdout
    for measure in ("whole first sync", "first start", "later start 2", "reader list --query", "reader star ID", "first `reader rank"):
        assert measure in table
    # The same cache measured with two checkouts in turn (this one twice here, the commands only).
    argv = [sys.executable, "-m", "benchmarks.million_pairs", str(tmp_path / "data"), "--against", str(ROOT), "--rounds", "1", "--no-app"]
    paired = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=scaled(300))
    assert paired.returncode == 0, paired.stderr[-3000:]
    for measure in ("star CPU s", "unstar wall s", "list --query (nothing) wall s", "list --query (of the) CPU s"):
        assert f"{measure:34} new: median" in paired.stdout and f"{measure:34} old: median" in paired.stdout
