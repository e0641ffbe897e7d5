"""What `reader star ID` costs: it imports only what marking needs, and finds the paper's
cached version by reading its record alone, not decoding its whole shard (at 1,000,000 papers
a shard is ~1.8 MB of JSON)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from reader.store import Store
from tests.helpers.timing import scaled
from tests.themes import theme_papers

ROOT = Path(__file__).resolve().parent.parent
# Each is imported by some command, none by marking a paper.
NOT_FOR_A_STAR = {"reader.core.texmath", "anyascii", "subprocess", "secrets", "reader.core.momentum"}


def test_reader_star_imports_nothing_marking_does_not_need(data_dir, tmp_path):
    store = Store(data_dir)
    store.set_setting("examples_added", True)
    paper = theme_papers(3)["agents"][0]
    store.save_papers([paper], None)
    script = (
        "import json, sys\n"
        "from reader.cli import main\n"
        f"code = main(['--data-dir', {str(data_dir)!r}, 'star', {paper.id!r}])\n"
        "print(json.dumps([code, sorted(sys.modules)]))\n"
    )
    env = {**os.environ, "READER_CONFIG_DIR": str(tmp_path / "config"), "READER_LOG_DIR": str(tmp_path / "logs")}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=scaled(60), check=False
    )
    assert done.returncode == 0, done.stderr
    code, modules = json.loads(done.stdout.splitlines()[-1])
    assert code == 0 and Store(data_dir).marks().starred == {paper.id}
    assert NOT_FOR_A_STAR.isdisjoint(modules), NOT_FOR_A_STAR & set(modules)


def test_cached_versions_read_a_few_records_alone(data_dir, monkeypatch):
    store = Store(data_dir)
    papers = theme_papers(20)["agents"]
    store.save_papers(papers, None)
    whole_reads = []
    read_docs = store.shard_files.read_docs
    monkeypatch.setattr(store.shard_files, "read_docs", lambda shard: whole_reads.append(shard) or read_docs(shard))
    assert store.cached_versions([papers[0].id, papers[3].id]) == {papers[0].id: papers[0].version, papers[3].id: papers[3].version}
    assert whole_reads == []
    # A paper the shard does not hold: the whole shard is read to say so, as before.
    assert store.cached_versions([papers[0].id, papers[0].id[:-1] + "9"]) == {papers[0].id: papers[0].version}
    assert len(whole_reads) == 1
