"""Hidden ("not interested") papers: kept in user.json like stars, left out of every list and
count but their own, negatives for the ranking."""

from __future__ import annotations

import json

import pytest

from reader.config import Settings
from reader.core.catalog import Catalog
from reader.errors import StoreError
from reader.service import ALL, LibraryService
from reader.store import Store
from tests.conftest import run
from tests.helpers.kill import kill_after, seeded

HIDE_LOOP = """
import sys
from pathlib import Path
from reader.store import Store
store = Store(Path(sys.argv[1]))
ids = sys.argv[2].split(",")
i = 0
while True:
    paper_id = ids[i % len(ids)]
    store.set_marks([paper_id], hidden=True, starred=i % 3 == 0)
    print(paper_id, flush=True)
    i += 1
"""


def listed(capsys, data_dir, *args) -> list[dict]:
    code, out, err = run(capsys, "--data-dir", str(data_dir), "list", "--json", *args)
    assert code == 0, err
    return json.loads(out)


def test_hidden_marks_round_trip_beside_read_and_starred(data_dir):
    store, ids = seeded(data_dir, 10)
    store.set_marks(ids[:3], hidden=True)
    store.set_marks(ids[1:2], starred=True, read=True)
    marks = Store(data_dir).marks()
    assert marks.hidden == set(ids[:3]) and marks.starred == {ids[1]} and marks.read == {ids[1]}
    store.set_marks(ids[:1], hidden=False)
    assert Store(data_dir).marks().hidden == set(ids[1:3])
    data = json.loads((data_dir / "user.json").read_text())
    assert list(data["hidden"].values()) == [{"ids": ids[1:3]}]


def test_a_file_written_before_hidden_marks_reads_and_keeps_everything(data_dir):
    store, ids = seeded(data_dir, 10)
    store.set_marks(ids[:2], starred=True)
    for name in ("user.json", "user.json.bak"):
        path = data_dir / name
        data = json.loads(path.read_text())
        del data["hidden"]
        path.write_text(json.dumps(data))
    store = Store(data_dir)
    assert not store.warnings
    assert store.marks().hidden == frozenset() and store.marks().starred == set(ids[:2])
    store.set_marks(ids[2:3], hidden=True)
    assert Store(data_dir).marks() == store.marks()


@pytest.mark.parametrize("bad", [{"ids": "2612.20001"}, {"ids": [{"id": "x"}]}, {}])
def test_a_wrong_shaped_hidden_table_is_repaired_from_the_copy(data_dir, capsys, bad):
    store, ids = seeded(data_dir, 10)
    store.set_marks(ids[:2], hidden=True)
    store.set_marks(ids[2:3], starred=True)
    path = data_dir / "user.json"
    data = json.loads(path.read_text())
    data["hidden"] = {"1": bad}
    path.write_text(json.dumps(data))

    rows = listed(capsys, data_dir, "--hidden")
    assert {row["id"] for row in rows} == set(ids[:2])
    assert list(data_dir.glob("user.json.damaged-*"))
    after = Store(data_dir)
    assert not after.warnings and after.marks().hidden == set(ids[:2]) and after.marks().starred == {ids[2]}


def test_two_hidden_documents_are_damage(data_dir):
    store, ids = seeded(data_dir, 10)
    store.set_marks(ids[:1], hidden=True)
    path = data_dir / "user.json"
    data = json.loads(path.read_text())
    data["hidden"]["2"] = {"ids": ids[5:6]}
    path.write_text(json.dumps(data))
    after = Store(data_dir)
    assert any("user.json is damaged (hidden: 2 documents" in w for w in after.warnings)
    assert after.marks().hidden == {ids[0]}


@pytest.mark.slow
def test_sigkill_while_hiding_loses_nothing_acknowledged(data_dir):
    _store, ids = seeded(data_dir)
    seen = 0
    for attempt, seconds in enumerate((0.6, 0.7, 0.5, 0.9)):
        acknowledged = kill_after(HIDE_LOOP, [str(data_dir), ",".join(ids[:20])], seconds)
        seen += len(acknowledged)
        if attempt % 2:
            (data_dir / "user.json").write_bytes(b"\x00 damaged")
        after = Store(data_dir)
        assert set(acknowledged) <= after.marks().hidden
        assert len(after.load_papers()) == len(ids)
    assert seen  # the loop did get to write


def test_catalog_leaves_hidden_papers_out_of_selections_and_counts(data_dir):
    store, ids = seeded(data_dir, 10)
    catalog = Catalog(store.index(), read=ids[:2], starred=ids[:4], hidden=ids[1:3])
    assert list(catalog.select()) == [pid for pid in store.index().ids if pid not in ids[1:3]]
    assert set(catalog.select(starred=True)) == {ids[0], ids[3]}
    assert set(catalog.select(hidden=True)) == set(ids[1:3])
    assert len(catalog.select(hidden=None)) == 10
    assert catalog.counts() == (8, 7) and catalog.counts("Kept") == (8, 7)
    assert catalog.counts(starred=True) == (2, 1) and catalog.counts(hidden=True) == (2, 1)
    # Marks changed in memory keep every count as a recount would give it.
    for change in ({"hidden": True}, {"read": True}, {"starred": False}, {"hidden": False}, {"read": False}):
        for pid in (ids[0], ids[2], ids[6]):
            catalog.set_marks(pid, **change)
            recount = Catalog(store.index(), catalog.read, catalog.starred, catalog.hidden)
            for key in ({}, {"topic": "Kept"}, {"starred": True}, {"hidden": True}):
                assert catalog.counts(**key) == recount.counts(**key), (change, pid, key)


def test_service_hides_at_once_and_keeps_a_mark_whose_write_fails(data_dir, monkeypatch):
    store, ids = seeded(data_dir, 10)
    monkeypatch.setattr("reader.service.marks_writer.RETRY_SECONDS", 3600)  # retried by the next mark here
    service = LibraryService(store, Settings.from_env())
    service.open()
    told: list[tuple[str, str]] = []
    service.marks.tell = lambda message, severity: told.append((message, severity))
    service.set_marks(ids[0], hidden=True).result()
    assert ids[0] not in service.select(ALL) and Store(data_dir).marks().hidden == {ids[0]}

    def full(*args, **kwargs):
        raise StoreError("cannot write user.json: No space left on device")

    saving = store.apply_marks
    monkeypatch.setattr(store, "apply_marks", full)
    service.set_marks(ids[1], hidden=True).result()
    service.set_marks(ids[2], starred=True).result()
    assert ids[1] not in service.select(ALL) and ids[1] in service.catalog.hidden and ids[2] in service.catalog.starred
    assert told == [
        (
            "Not saved yet: cannot write user.json: No space left on device. The mark is kept, "
            "and saved as soon as the data directory can be written.",
            "error",
        )
    ]  # once, for both
    monkeypatch.setattr(store, "apply_marks", saving)
    service.set_marks(ids[3], read=True).result()
    marks = Store(data_dir).marks()
    assert marks.hidden == set(ids[:2]) and marks.starred == {ids[2]} and marks.read == {ids[3]}
    assert told[1:] == [("Marks saved: those kept since the data directory could not be written are in it now.", "information")]
    service.close()


def test_hide_and_unhide_from_the_command_line(capsys, data_dir):
    _store, ids = seeded(data_dir, 10)
    home = ["--data-dir", str(data_dir)]
    code, out, err = run(capsys, *home, "hide", ids[0], f"arXiv:{ids[1]}v1", f"https://arxiv.org/abs/{ids[2]}")
    assert code == 0 and out == "hide: 3 papers\n", err
    rows = listed(capsys, data_dir)
    assert len(rows) == 7 and not {row["id"] for row in rows} & set(ids[:3])
    assert all(row["hidden"] is False for row in rows)
    hidden = listed(capsys, data_dir, "--hidden")
    assert {row["id"] for row in hidden} == set(ids[:3]) and all(row["hidden"] is True for row in hidden)
    assert run(capsys, *home, "unhide", ids[1])[0] == 0
    assert {row["id"] for row in listed(capsys, data_dir, "--hidden")} == {ids[0], ids[2]}
    code, out, _ = run(capsys, *home, "list")
    assert ids[0] not in out and ids[1] in out
    code, out, _ = run(capsys, *home, "topics", "list")
    assert "Kept\t8 papers, 8 unread" in out
    code, _, err = run(capsys, *home, "hide", "2609.99999")
    assert code == 1 and "not in the cache: 2609.99999 (`reader add 2609.99999` fetches it from arXiv; nothing was changed)" in err


def test_unhide_and_the_other_marks_say_when_a_paper_is_already_so(capsys, data_dir):
    store, ids = seeded(data_dir, 10)
    home = ["--data-dir", str(data_dir)]
    code, out, _ = run(capsys, *home, "unhide", ids[0])
    assert code == 0 and out == f"unhide: {ids[0]} is not hidden: nothing changed\n"
    run(capsys, *home, "hide", ids[1])
    code, out, _ = run(capsys, *home, "unhide", ids[0], ids[1], ids[2])
    assert out == f"unhide: 1 paper ({ids[0]}, {ids[2]} are not hidden)\n"
    assert store.marks().hidden == frozenset()
    run(capsys, *home, "star", ids[3])
    assert run(capsys, *home, "star", ids[3])[1] == f"star: {ids[3]} is already starred: nothing changed\n"
    assert run(capsys, *home, "unstar", *ids[4:])[1].endswith(" more are not starred: nothing changed\n")
    assert run(capsys, *home, "unread", ids[4])[1] == f"unread: {ids[4]} is not read: nothing changed\n"
    assert run(capsys, *home, "read", ids[4])[1] == "read: 1 paper\n"


def test_hidden_papers_are_exported_only_when_named(capsys, data_dir):
    store, ids = seeded(data_dir, 10)
    store.set_marks(ids[:2], starred=True, hidden=True)
    store.set_marks(ids[2:3], starred=True)
    home = ["--data-dir", str(data_dir), "export"]
    code, out, err = run(capsys, *home, "--starred")
    assert code == 0, err
    assert ids[2] in out and ids[0] not in out and ids[1] not in out
    code, out, err = run(capsys, *home, ids[0])
    assert code == 0 and ids[0] in out, err
