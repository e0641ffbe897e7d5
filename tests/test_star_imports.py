"""`reader star ID` is mostly Python's start and its imports: a mark imports only what it uses."""

from __future__ import annotations

import subprocess
import sys

from reader.store import Store
from tests.helpers.kill import ROOT, seeded

# Runs the command line in a fresh interpreter, then prints every module it imported.
STAR_THEN_MODULES = "import sys; from reader.cli import main; code = main(sys.argv[1:]); print(' '.join(sys.modules)); sys.exit(code)"


def test_a_star_imports_neither_tinydb_nor_the_toml_parser(data_dir):
    """Every store opened read sync.json through TinyDB (~3 ms of imports a star); the check on
    opening reads the file itself, and TinyDB is imported only to query or write sync.json.
    tomllib is imported only when there is a config file to parse (the suite's has none)."""
    store, ids = seeded(data_dir, 3)
    store.sync_file.record_progress("Kept", "ti:kept", [("202612010000", "202612070000")], "2026-12-07", 3)
    assert (data_dir / "sync.json").exists()
    done = subprocess.run(
        [sys.executable, "-c", STAR_THEN_MODULES, "--data-dir", str(data_dir), "star", ids[0]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    said, modules = done.stdout.splitlines()
    assert said == "star: 1 paper"
    assert not {name for name in modules.split() if name.split(".")[0] in ("tinydb", "tomllib")}
    assert ids[0] in Store(data_dir).marks().starred
    assert Store(data_dir).sync_file.sync_state("Kept").spans == (("202612010000", "202612070000"),)


def test_a_damaged_sync_file_is_still_moved_aside_when_a_star_opens_the_store(data_dir):
    store, ids = seeded(data_dir, 3)
    (data_dir / "sync.json").write_text('{"topics": {"1": {"name": 3}}}')
    done = subprocess.run(
        [sys.executable, "-m", "reader", "--data-dir", str(data_dir), "star", ids[0]], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "sync.json" in done.stderr and "moved to sync.json.damaged-" in done.stderr
    assert not (data_dir / "sync.json").exists()
    assert len(list(data_dir.glob("sync.json.damaged-*"))) == 1
