"""Faults lose nothing: kills mid-write, damaged files, two processes, failing disks, a hung server."""

from __future__ import annotations

import json
import os
import random

import pytest

from reader.cli import main
from reader.errors import StoreLockedError
from reader.store import Store
from tests.helpers.kill import DAMAGE, kill_after, seeded
from tests.sample_papers import sample_papers

STAR_LOOP = """
import sys
from pathlib import Path
from reader.store import Store
store = Store(Path(sys.argv[1]))
ids = sys.argv[2].split(",")
i = 0
while True:
    paper_id = ids[i % len(ids)]
    store.set_marks([paper_id], starred=True, read=i % 2 == 0)
    print(paper_id, flush=True)
    i += 1
"""

SYNC_LOOP = """
import asyncio, sys
from pathlib import Path
from reader.arxiv.client import ArxivClient, ClientOptions
from reader.store import Store, Topic
from reader.sync.syncer import Syncer
from tests.corpus import TODAY

async def run():
    store = Store(Path(sys.argv[1]))
    options = ClientOptions(api_url=sys.argv[2], rss_url=sys.argv[2], delay=0, retries=0)
    while True:
        async with ArxivClient(options) as client:
            await Syncer(store, client, today=TODAY).sync_topic(Topic("Big", "ti:big"))
        print("synced", flush=True)

asyncio.run(run())
"""


@pytest.mark.slow
def test_sigkill_during_state_changes_loses_nothing_acknowledged(data_dir):
    _store, ids = seeded(data_dir)
    rng = random.Random(6)
    for attempt in range(8):
        acknowledged = kill_after(STAR_LOOP, [str(data_dir), ",".join(ids[:20])], rng.uniform(0.3, 0.9))
        if attempt % 2:  # and then user.json is damaged: its copy holds every acknowledged change
            (data_dir / "user.json").write_bytes(b"\x00 damaged")
        after = Store(data_dir)
        assert bool(after.warnings) == bool(attempt % 2), after.warnings
        assert set(acknowledged) <= after.marks().starred
        assert [t.name for t in after.topics()] == ["Kept"]
        assert len(after.load_papers()) == len(ids)


@pytest.mark.slow
def test_sigkill_during_sync_keeps_the_cache_whole(data_dir, fake_arxiv):
    store, ids = seeded(data_dir)
    store.set_marks(ids[:5], starred=True)
    fake_arxiv.queries["ti:big"] = sample_papers(3000, per_day=30, id_base=40000)
    rng = random.Random(7)
    for _ in range(6):
        kill_after(SYNC_LOOP, [str(data_dir), fake_arxiv.api_url], rng.uniform(0.5, 2.5))
        after = Store(data_dir)
        papers = after.load_papers()
        assert not after.warnings, after.warnings
        assert set(after.index()) == set(papers)  # every indexed paper has its record
        assert set(ids) <= set(papers)
        assert after.marks().starred == set(ids[:5])
        assert [t.name for t in after.topics()] == ["Kept"]


@pytest.mark.parametrize("damage", DAMAGE)
@pytest.mark.parametrize("target", ["user.json", "user.json.bak", "sync.json", "index.json", "shard"])
def test_any_damaged_file_is_moved_aside_and_user_state_survives(data_dir, capsys, target, damage):
    store, ids = seeded(data_dir)
    store.set_marks(ids[:3], starred=True)
    store.set_marks(ids[3:5], read=True)
    store.sync_file.record_sync("Kept", "ti:kept")
    Store(data_dir)  # a start: refreshes the last good copy of user state
    path = next((data_dir / "papers").glob("*.json")) if target == "shard" else data_dir / target
    path.write_bytes(DAMAGE[damage](path.read_bytes()))

    code = main(["--data-dir", str(data_dir), "list", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = json.loads(out)
    assert main(["--data-dir", str(data_dir), "topics", "list"]) == 0  # reads sync.json too
    err += capsys.readouterr().err
    assert "damaged" in err and "Traceback" not in err
    assert list(data_dir.rglob(f"{path.name}.damaged-*"))
    store = Store(data_dir)
    assert store.marks().starred == set(ids[:3]) and store.marks().read == set(ids[3:5])
    assert [t.name for t in store.topics()] == ["Kept"]
    if target in ("user.json", "user.json.bak", "sync.json"):
        assert len(rows) == len(ids)  # the paper cache was not touched
    assert main(["--data-dir", str(data_dir), "topics", "list"]) == 0


def test_a_second_sync_refuses_while_one_runs(data_dir):
    store, _ = seeded(data_dir)
    with store.sync_lock():
        other = Store(data_dir)
        with pytest.raises(StoreLockedError, match="cannot sync: another reader process is busy"), other.sync_lock():
            pass


def test_a_full_disk_is_a_clear_error_and_changes_nothing(data_dir, capsys, monkeypatch):
    _store, ids = seeded(data_dir)
    before = {p: p.read_bytes() for p in data_dir.rglob("*.json")}

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    code = main(["--data-dir", str(data_dir), "star", ids[0]])
    err = capsys.readouterr().err
    last = err.splitlines()[-1]
    assert code == 1 and last.startswith("reader: error: cannot write") and "No space left on device" in last
    assert "Traceback" not in err
    monkeypatch.undo()
    assert {p: p.read_bytes() for p in data_dir.rglob("*.json")} == before
    assert not list(data_dir.rglob("*.tmp"))
