"""What changed since the user looked: papers updated since they were read (the version read is
kept in user.json), and papers new since the previous visit (arrivals are kept in the index)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from reader.store import Store
from tests.conftest import run
from tests.corpus import recent_papers
from tests.helpers.kill import kill_after, seeded

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
    store.record_visit(f"topic {i % 7}")
    print(paper_id, f"topic-{i % 7}", flush=True)
    i += 1
"""


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


@pytest.mark.slow
def test_sigkill_while_marking_read_and_visiting_loses_nothing_acknowledged(data_dir):
    _store, ids = seeded(data_dir)
    seen = 0
    for attempt, seconds in enumerate((0.6, 0.9, 0.7)):
        acknowledged = kill_after(READ_LOOP, [str(data_dir), ",".join(ids[:20])], seconds)
        seen += len(acknowledged)
        if attempt % 2:
            (data_dir / "user.json").write_bytes(b"\x00 damaged")
        after = Store(data_dir)
        assert {word for word in acknowledged if not word.startswith("topic")} <= set(after.read_versions())
        visits = json.loads((data_dir / "user.json").read_text())["visits"].values()
        assert {word.replace("-", " ") for word in acknowledged if word.startswith("topic")} <= {v["key"] for v in visits}
    assert seen  # the loop did get to write


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


# --- new since the previous visit ---------------------------------------------------------------


def test_visits_keep_the_previous_and_the_current_time(data_dir, monkeypatch):
    store, _ = seeded(data_dir, 5)
    clock = iter([1.0, 2.0, 3.0])
    monkeypatch.setattr("reader.store.user_state.time.time", lambda: next(clock))
    store.record_visit("app")
    store.record_visit("Kept")
    store.record_visit("app")
    data = json.loads((data_dir / "user.json").read_text())
    assert sorted(data["visits"].values(), key=lambda v: v["key"]) == [
        {"key": "Kept", "previous": None, "current": 2000},
        {"key": "app", "previous": 1000, "current": 3000},
    ]
    store.remove_topic("Kept")  # its visits go with it
    assert [v["key"] for v in json.loads((data_dir / "user.json").read_text())["visits"].values()] == ["app"]


def test_arrivals_since_the_previous_visit_are_new_but_not_a_first_sync(data_dir, monkeypatch):
    now = [1.0]
    monkeypatch.setattr("time.time", lambda: now[0])
    store = Store(data_dir)
    store.add_topic("A", "ti:a")
    store.add_topic("B", "ti:b")
    papers = recent_papers(12)
    store.save_papers(papers[:4], "A")  # A's first sync
    store.sync_file.record_sync("A", "ti:a")
    now[0] = 2.0
    store.save_papers(papers[4:6], "A")
    store.save_papers(papers[6:8], None)  # found another way (newer versions): arrivals too
    assert store.new_ids() == {p.id for p in papers[4:8]}  # no visit yet: every arrival is new
    store.record_visit("app")  # at 2 s: its first visit
    store.record_visit("A")
    now[0] = 3.0
    store.save_papers(papers[8:10], "A")
    store.save_papers(papers[10:12], "B")  # B's first sync
    store.save_papers(papers[:2], "B")  # already cached: they do not arrive again
    store.record_visit("app")  # at 3 s: the previous visit is at 2 s
    assert Store(data_dir).new_ids() == {p.id for p in papers[8:10]}
    assert Store(data_dir).new_ids("A") == {p.id for p in papers[4:6] + papers[8:10]}  # A's first visit
    assert Store(data_dir).new_ids("B") == set()
    now[0] = 4.0
    store.record_visit("app")
    store.record_visit("A")
    assert Store(data_dir).new_ids() == set()
    assert Store(data_dir).new_ids("A") == {p.id for p in papers[8:10]}  # since A's visit at 2 s
    assert Store(data_dir).index().get(papers[9].id).arrived == 3000


def test_an_index_written_before_arrivals_reads_fine_and_a_bad_column_is_rebuilt(data_dir):
    store, ids = seeded(data_dir, 10)
    path = data_dir / "index.json"
    data = json.loads(path.read_text())
    del data["index"]["1"]["arrived"]
    path.write_text(json.dumps(data))
    reopened = Store(data_dir)
    assert len(reopened.index()) == 10 and not reopened.warnings and reopened.new_ids() == set()
    data["index"]["1"]["arrived"] = ["x"] * 10
    path.write_text(json.dumps(data))
    reopened = Store(data_dir)
    assert len(reopened.index()) == 10
    assert any("index.json is damaged (index: arrival times" in w for w in reopened.warnings)


@pytest.mark.parametrize(
    "bad",
    [
        {"key": "app", "current": "yesterday"},
        {"key": "app", "previous": 5, "current": 4},
        {"current": 4},
        {"key": "app", "previous": -1, "current": 4},
        {"key": "app", "current": 1.5},
    ],
)
def test_wrong_shaped_visits_are_repaired_from_the_copy(data_dir, capsys, bad):
    store, ids = seeded(data_dir, 10)
    store.record_visit("app")
    store.set_marks(ids[:1], starred=True)
    path = data_dir / "user.json"
    data = json.loads(path.read_text())
    data["visits"] = {"1": bad}
    path.write_text(json.dumps(data))
    code, out, err = run(capsys, "--data-dir", str(data_dir), "list", "--new", "--json")
    assert code == 0 and "user.json is damaged (visits: " in err, err
    after = Store(data_dir)
    assert not after.warnings and after.marks().starred == {ids[0]}
    assert [v["key"] for v in json.loads(path.read_text())["visits"].values()] == ["app"]


def test_list_new_after_a_second_sync(capsys, arxiv_env, data_dir):
    papers = recent_papers(30)
    older, newer_ones = papers[6:], papers[:6]
    first_sync(capsys, arxiv_env, older)
    assert listed(capsys, "--new") == []  # the first sync's papers are the topic's past
    Store(data_dir).record_visit("app")  # the app opened
    sync(capsys, arxiv_env, papers)
    assert [row["id"] for row in listed(capsys, "--new")] == [p.id for p in newer_ones]
    Store(data_dir).record_visit("app")  # opened again: new since the previous opening
    assert [row["id"] for row in listed(capsys, "--new", "--limit", "2")] == [p.id for p in newer_ones[:2]]
    code, out, _ = run(capsys, "list", "--new")
    assert newer_ones[0].id in out and older[0].id not in out
    assert run(capsys, "hide", newer_ones[0].id)[0] == 0
    assert [row["id"] for row in listed(capsys, "--new")] == [p.id for p in newer_ones[1:]]
    Store(data_dir).record_visit("app")
    assert listed(capsys, "--new") == []
