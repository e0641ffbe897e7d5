"""The index keeps its number columns as machine-integer arrays (PaperIndex): what it holds must
equal the columns worked out here from the papers saved, in order, topics, versions, counts and
the days a chart counts, after syncs, a topic's removal and a repair of a damaged index.json."""

from __future__ import annotations

import dataclasses
import json
from array import array
from datetime import date

import pytest

from reader.models import IdTable, IndexEntry, PaperIndex
from reader.store import Store
from tests.conftest import run
from tests.corpus import recent_papers


def expected_columns(held: dict[str, tuple[int, str, set[str]]]):
    """(ids, versions, days, topics of each paper) newest first: by v1 day, then id, descending."""
    rows = sorted(((date.fromisoformat(published[:10]).toordinal(), pid, version, topics) for pid, (version, published, topics) in held.items()), reverse=True)
    return [r[1] for r in rows], [r[2] for r in rows], [r[0] for r in rows], [r[3] for r in rows]


def assert_index_is(store: Store, capsys, held) -> None:
    ids, versions, days, topics = expected_columns(held)
    for index in (store.index(), Store(store.data_dir).index()):  # as kept, and as read back from index.json
        assert isinstance(index.days, array) and isinstance(index.versions, array) and isinstance(index.arrived, array)
        assert (index.ids, list(index.versions), list(index.days)) == (ids, versions, days)
        assert [set(index.topics_of(pid)) for pid in index.ids] == topics
        for name in {t for ts in topics for t in ts}:
            in_topic = [(pid, day) for pid, day, ts in zip(ids, days, topics) if name in ts]
            assert list(zip(index.in_topic(name, index.ids), index.in_topic(name, index.days))) == in_topic  # what a chart counts
    code, out, err = run(capsys, "topics", "list", "--json")
    assert code == 0, err
    cached = {row["name"]: row["cached"] for row in json.loads(out)}
    assert cached == {name: sum(name in ts for ts in topics) for name in cached}
    code, out, err = run(capsys, "list", "--json", "--limit", "1000")
    assert code == 0, err
    assert [row["id"] for row in json.loads(out)] == ids


def test_the_compact_index_equals_the_papers_columns_after_syncs_a_removal_and_a_repair(capsys, data_dir):
    store = Store(data_dir)
    store.add_topic("Agents", "ti:agents")
    store.add_topic("Games", "ti:games")
    papers = recent_papers(60, per_day=4)
    held: dict[str, tuple[int, str, set[str]]] = {}

    def save(batch, topic):
        store.save_papers(batch, topic)
        for p in batch:
            version, _, topics = held.get(p.id, (0, "", set()))
            held[p.id] = (max(version, p.version), p.published, topics | {topic})

    save(papers[20:50], "Agents")  # a first sync
    save(papers[40:60], "Games")  # another topic, sharing ten papers
    save(papers[:20], "Agents")  # a later sync: newer papers merge in at the head
    newer = dataclasses.replace(papers[45], version=papers[45].version + 2)
    save([newer], "Games")  # a newer version of a shared paper
    assert_index_is(store, capsys, held)

    assert run(capsys, "topics", "remove", "Agents")[0] == 0
    held = {pid: (version, published, topics - {"Agents"}) for pid, (version, published, topics) in held.items()}
    assert_index_is(Store(data_dir), capsys, held)

    (data_dir / "index.json").write_text('{"meta":{"1":{"schema":1}},"index":{"1":{"ids":[', encoding="utf-8")
    repaired = Store(data_dir)
    repaired.index()  # rebuilt from the shards: topic memberships wait for the next sync
    held = {pid: (version, published, set()) for pid, (version, published, _) in held.items()}
    assert_index_is(repaired, capsys, held)


def test_list_query_json_reads_the_index_in_part_and_answers_as_the_whole_index_does(capsys, data_dir, monkeypatch):
    store = Store(data_dir)
    store.add_topic("Agents", "ti:agents")
    papers = recent_papers(40)
    store.save_papers(papers[4:], "Agents")
    store.save_papers(papers[:8], None)  # the newest four in no topic
    query = "abs:the OR abs:software"
    code, whole, err = run(capsys, "list", "--json")  # the whole index read: every field, topics too
    assert code == 0, err
    wholes = []
    real = Store._read_index_json
    monkeypatch.setattr(Store, "_read_index_json", lambda self: wholes.append(self) or real(self))
    code, out, err = run(capsys, "list", "--query", query, "--limit", "10", "--json")
    assert code == 0, err
    listed = json.loads(out)
    assert wholes == []  # the ids, days and masks alone: no column read whole into Python lists
    by_id = {row["id"]: row for row in json.loads(whole)}
    assert 0 < len(listed) <= 10 and listed == [by_id[row["id"]] for row in listed]
    assert {"Agents"} in [set(row["topics"]) for row in listed] and [] in [row["topics"] for row in listed]


class _Colliding(str):
    """An id whose hash every other one shares: IdTable must tell them apart by the id itself."""

    def __hash__(self) -> int:
        return 7


def test_the_id_table_finds_each_id_as_a_dict_does_and_tells_equal_hashes_apart():
    ids = [f"26{m:02d}.{n:05d}" for m in range(1, 13) for n in range(0, 3000, 7)] + ["hep-th/9901001", "math.GT/0309136"]
    table, expected = IdTable(ids), {pid: i for i, pid in enumerate(ids)}
    asked = [*ids[::-1], "2612.99999", "", "cs/0101001", ids[0] + "v2"]
    assert [table.get(pid) for pid in asked] == [expected.get(pid) for pid in asked]
    assert table.rows_of(asked, -1).tolist() == [expected.get(pid, -1) for pid in asked]
    assert [pid in table for pid in asked] == [pid in expected for pid in asked]
    assert len(table) == len(ids) and table[ids[5]] == 5
    with pytest.raises(KeyError):
        table["2612.99999"]
    assert IdTable([]).get("x") is None and IdTable([]).rows_of(["x"], 3).tolist() == [3]
    # Ids that all hash alike: each is still found at its own row, and one not held is not.
    alike = [_Colliding(pid) for pid in ("b", "a", "c")]
    table = IdTable(alike)
    assert [table.get(_Colliding(pid)) for pid in ("a", "b", "c", "d")] == [1, 0, 2, None]
    assert table.rows_of([_Colliding(pid) for pid in ("c", "d", "a", "b")], -1).tolist() == [2, -1, 1, 0]


def test_the_index_answers_membership_and_rows_from_its_id_table_without_a_map(data_dir):
    index = PaperIndex.build({
        pid: IndexEntry(1, day, ["t"]) for pid, day in (("2601.00001", "2026-01-02"), ("2601.00002", "2026-01-02"), ("2512.00009", "2025-12-30"))
    })
    assert index.ids == ["2601.00002", "2601.00001", "2512.00009"]
    assert "2601.00001" in index and "2601.00003" not in index
    assert isinstance(index.positions(), IdTable)
    assert [index.position(pid) for pid in ("2512.00009", "2601.00002", "x")] == [2, 0, None]
    assert index.row("2601.00001", date(2026, 1, 2).toordinal()) == 1
    assert index.row("2601.00001", date(2026, 1, 5).toordinal()) == 1  # held under another day: the table finds it
