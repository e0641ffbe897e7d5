"""What changed since the user looked: papers updated since they were read (the version read is
kept in user.json), and papers new since the previous visit (arrivals are kept in the index)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from reader.cli import main
from reader.store import Store
from tests.corpus import TODAY, recent_papers
from tests.test_reliability import kill_after, seeded

QUERY = "ti:agent AND cat:cs.LG"

READ_LOOP = """
import sys
from pathlib import Path
from reader.store import Store
store = Store(Path(sys.argv[1]))
ids = sys.argv[2].split(",")
i = 0
while True:
    paper_id = ids[i % len(ids)]
    store.set_marks([paper_id], read=True)
    print(paper_id, flush=True)
    i += 1
"""


@pytest.fixture
def arxiv_env(fake_arxiv, monkeypatch):
    monkeypatch.setenv("READER_ARXIV_API_URL", fake_arxiv.api_url)
    monkeypatch.setenv("READER_ARXIV_RSS_URL", fake_arxiv.rss_url)
    monkeypatch.setenv("READER_ARXIV_DELAY", "0")
    monkeypatch.setenv("READER_ARXIV_BACKOFF", "0.01")
    monkeypatch.setenv("READER_TODAY", TODAY.isoformat())
    return fake_arxiv


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def listed(capsys, *args) -> list[dict]:
    code, out, err = run(capsys, "list", "--json", *args)
    assert code == 0, err
    return json.loads(out)


def sync(capsys, fake, papers):
    fake.queries[QUERY] = papers
    code, out, err = run(capsys, "sync", "--topic", "Agents")
    assert code == 0, out + err
    return out


def first_sync(capsys, fake, papers):
    assert run(capsys, "topics", "remove", "RL for LLM Agents")[0] == 0
    assert run(capsys, "topics", "add", "Agents", QUERY)[0] == 0
    return sync(capsys, fake, papers)


def newer(paper, version):
    return dataclasses.replace(paper, version=version)


# --- updated since read -------------------------------------------------------------------------


def test_read_versions_round_trip_and_follow_the_read_marks(data_dir):
    store, ids = seeded(data_dir, 10)
    index = store.index()
    store.set_marks(ids[:3], read=True)
    expected = {pid: index.get(pid).version for pid in ids[:3]}
    assert Store(data_dir).read_versions() == expected
    store.set_marks(ids[:1], read=False)
    assert Store(data_dir).read_versions() == {pid: expected[pid] for pid in ids[1:3]}
    store.set_marks(ids[3:4], starred=True)  # other marks leave read versions alone
    assert Store(data_dir).read_versions() == {pid: expected[pid] for pid in ids[1:3]}


def test_a_later_version_is_an_update_until_read_again(data_dir):
    store, ids = seeded(data_dir, 10)
    paper = store.load_papers()[ids[0]]
    store.set_marks([paper.id, ids[1]], read=True)
    assert store.updated_ids() == set()
    store.save_papers([newer(paper, paper.version + 2)], "Kept")
    reopened = Store(data_dir)
    assert reopened.updated_ids() == {paper.id}
    assert reopened.read_versions()[paper.id] == paper.version
    reopened.set_marks([paper.id], read=True)  # opening it in the app marks it read again
    assert Store(data_dir).updated_ids() == set()
    assert Store(data_dir).read_versions()[paper.id] == paper.version + 2


def read_doc(data: dict) -> dict:
    return next(doc for doc in data["marks"].values() if doc["kind"] == "read")


def test_read_marks_written_before_read_versions_read_fine(data_dir):
    store, ids = seeded(data_dir, 10)
    store.set_marks(ids[:2], read=True)
    for name in ("user.json", "user.json.bak"):
        path = data_dir / name
        data = json.loads(path.read_text())
        del read_doc(data)["versions"]
        path.write_text(json.dumps(data))
    store = Store(data_dir)
    assert not store.warnings
    assert store.marks().read == set(ids[:2]) and store.read_versions() == {} and store.updated_ids() == set()
    store.set_marks(ids[:1], read=True)
    assert Store(data_dir).read_versions() == {ids[0]: store.index().get(ids[0]).version}


@pytest.mark.parametrize("bad", [["1", 1], [1], [1, 2, 3], [1, -1], [True, 1], {"a": 1}, None])
def test_wrong_shaped_read_versions_are_repaired_from_the_copy(data_dir, capsys, bad):
    store, ids = seeded(data_dir, 10)
    store.set_marks(ids[:2], read=True)
    expected = store.read_versions()
    path = data_dir / "user.json"
    data = json.loads(path.read_text())
    read_doc(data)["versions"] = bad
    path.write_text(json.dumps(data))

    code, out, err = run(capsys, "--data-dir", str(data_dir), "list", "--json")
    assert code == 0, err
    if bad is None:  # as if written before versions were kept
        assert not err and all(row["read_version"] is None for row in json.loads(out))
        return
    assert "user.json is damaged (marks: read versions" in err, err
    assert {row["id"]: row["read_version"] for row in json.loads(out) if row["read"]} == expected
    after = Store(data_dir)
    assert not after.warnings and after.read_versions() == expected


def test_sigkill_while_marking_read_loses_no_read_version(data_dir):
    _store, ids = seeded(data_dir)
    for attempt, seconds in enumerate((0.4, 0.8, 0.6)):
        acknowledged = kill_after(READ_LOOP, [str(data_dir), ",".join(ids[:20])], seconds)
        if attempt % 2:
            (data_dir / "user.json").write_bytes(b"\x00 damaged")
        after = Store(data_dir)
        assert set(acknowledged) <= set(after.read_versions())


def test_list_updated_after_a_resync_at_a_later_version(capsys, arxiv_env):
    papers = recent_papers(20)
    first_sync(capsys, arxiv_env, papers)
    target = next(p for p in papers if p.version == 1)
    other = next(p for p in papers if p.id != target.id)
    assert run(capsys, "read", target.id, other.id)[0] == 0
    rows = {row["id"]: row for row in listed(capsys)}
    assert rows[target.id]["read_version"] == 1 and rows[other.id]["read_version"] == other.version
    assert all(row["read_version"] is None for row in rows.values() if not row["read"])
    assert listed(capsys, "--updated") == []

    sync(capsys, arxiv_env, [newer(p, 2) if p.id == target.id else p for p in papers])
    updated = listed(capsys, "--updated")
    assert [(row["id"], row["version"], row["read_version"]) for row in updated] == [(target.id, 2, 1)]
    code, out, _ = run(capsys, "list", "--updated")
    assert f"{target.id}v2" in out and other.id not in out

    assert run(capsys, "read", target.id)[0] == 0
    assert listed(capsys, "--updated") == []
    assert {row["id"]: row["read_version"] for row in listed(capsys)}[target.id] == 2
