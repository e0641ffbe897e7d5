"""The index keeps its number columns as machine-integer arrays (CacheIndex): what it holds must
equal the columns worked out here from the papers saved, in order, topics, versions, counts and
the days a chart counts, after syncs, a topic's removal and a repair of a damaged index.json."""

from __future__ import annotations

import dataclasses
import itertools
import json
import pickle
import random
import subprocess
import sys
import tracemalloc
from array import array
from datetime import date
from itertools import accumulate

import pytest

from reader.cache_index import CacheIndex, IndexEntry
from reader.core.catalog import HIDDEN, STARRED, Catalog
from reader.packed_ids import IdRows, IdTable, PackedIds, gather
from reader.service.ranker import RankedList, ranked_list
from reader.store import Store
from reader.store.index_files import IndexFiles
from tests.conftest import run
from tests.corpus import recent_papers


def expected_columns(held: dict[str, tuple[int, str, set[str]]]):
    """(ids, versions, days, topics of each paper) newest first: by v1 day, then id, descending."""
    rows = sorted(
        ((date.fromisoformat(published[:10]).toordinal(), pid, version, topics) for pid, (version, published, topics) in held.items()),
        reverse=True,
    )
    return [r[1] for r in rows], [r[2] for r in rows], [r[0] for r in rows], [r[3] for r in rows]


def assert_index_is(store: Store, capsys, held) -> None:
    ids, versions, days, topics = expected_columns(held)
    for index in (store.index(), Store(store.data_dir).index()):  # as kept, and as read back from index.json
        assert isinstance(index.days, array) and isinstance(index.versions, array) and isinstance(index.arrived, array)
        assert (list(index.ids), list(index.versions), list(index.days)) == (ids, versions, days)
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
    real = IndexFiles._read_index_json
    monkeypatch.setattr(IndexFiles, "_read_index_json", lambda self: wholes.append(self) or real(self))
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


class _HashOf(str):
    """An id hashing as another one does."""

    def __new__(cls, text: str, like: str):
        made = super().__new__(cls, text)
        made.like = like  # type: ignore[attr-defined]
        return made

    def __hash__(self) -> int:
        return hash(self.like)  # type: ignore[attr-defined]


@pytest.mark.slow  # ~18 s: a million ids checked
def test_the_id_table_checks_packed_ids_as_bytes_without_decoding_them(monkeypatch):
    """The search index's row maps look up every id of a partition at a start: the answers are
    checked against a packed column's bytes (decoding a million ids took ~0.25 s), and an id
    hashing as a held one but unequal to it is still not found."""
    ids = [f"26{m:02d}.{n:05d}" for m in range(1, 13) for n in range(0, 9000, 3)] + ["hep-th/9901001", "é.1", "math.GT/0309136"]
    column = PackedIds.pack(ids)
    assert column is not None
    asked = [*ids[::-1][::2], "2612.99999", _HashOf("2601.99999", like=ids[4]), _HashOf("é.2", like="é.1")]
    expected = [ids.index(pid) if pid in ids else -1 for pid in asked]
    rows = [4, 0, len(ids) - 1, len(ids) - 2, 17, 17]
    assert column.joined(rows) == "\n".join(ids[row] for row in rows).encode() and column.joined([]) == b""
    table = IdTable(column)
    monkeypatch.setattr(PackedIds, "_run", lambda *_: pytest.fail("packed ids decoded by runs"))
    assert table.rows_of(asked, -1).tolist() == expected


def test_the_index_answers_membership_and_rows_from_its_id_table_without_a_map(data_dir):
    index = CacheIndex.build(
        {
            pid: IndexEntry(1, day, ["t"])
            for pid, day in (("2601.00001", "2026-01-02"), ("2601.00002", "2026-01-02"), ("2512.00009", "2025-12-30"))
        }
    )
    assert index.ids == ["2601.00002", "2601.00001", "2512.00009"]
    assert "2601.00001" in index and "2601.00003" not in index
    assert isinstance(index.positions(), IdTable)
    assert [index.position(pid) for pid in ("2512.00009", "2601.00002", "x")] == [2, 0, None]
    assert index.row("2601.00001", date(2026, 1, 2).toordinal()) == 1
    assert index.row("2601.00001", date(2026, 1, 5).toordinal()) == 1  # held under another day: the table finds it


def test_the_few_ids_a_command_counts_are_found_in_the_packed_bytes_without_an_id_table():
    ids = ["2601.00002", "2601.00001", "hep-th/9901001", "2512.00009"]
    built = CacheIndex.build({pid: IndexEntry(1, "2026-01-02", ["t"]) for pid in ids})
    index = CacheIndex.of_columns(built.topics, packed(list(built.ids)), built.versions, built.days, built.masks, built.arrived)
    asked = ["2601.00001", "2512.00009", "hep-th/9901001", "2601.0000", "601.00001", "2601.00001\n2512", "", "2601.00003"]
    assert index.holding(asked) == {"2601.00001", "2512.00009", "hep-th/9901001"}  # never a part of one, or two
    assert not index.has_positions
    assert index.holding(asked) == {pid for pid in asked if pid in index}  # as the id table answers


def packed(ids: list[str]) -> PackedIds:
    blob = "\n".join(ids).encode()
    return PackedIds(memoryview(blob), array("I", [end - 1 for end in accumulate(len(pid.encode()) + 1 for pid in ids)]))


def test_ids_packed_from_a_list_are_those_read_from_their_lines():
    for ids in (["2101.00001"], ["2101.00001", "math.GT/0309136", "hep-th/9901001"], ["é.1", "2101.00002", "ß/∂"]):
        expected = packed(ids)
        for column in (PackedIds.pack(ids), PackedIds.lines("\n".join(ids).encode())):
            assert column is not None and bytes(column.blob) == bytes(expected.blob) and column.ends == expected.ends
            assert list(column) == ids
    empty = PackedIds.pack([])
    assert empty is not None and len(empty) == 0 and list(empty) == []
    assert PackedIds.pack(["2101.00001", "a\nb"]) is None


def test_packed_ids_give_runs_rows_and_iteration_as_the_list_does():
    ids = [f"26{m:02d}.{n:05d}" for m in range(12, 0, -1) for n in range(2100, 0, -1)] + ["math.GT/0309136", "hep-th/9901001"]
    column = packed(ids)
    assert len(column) == len(ids) and list(column) == ids  # iterated a run at a time, across runs
    assert column[0] == ids[0] and column[-1] == ids[-1] and column[12345] == ids[12345]
    for cut in (slice(0, 0), slice(5, 10_007), slice(9_999, 10_001), slice(-3, None), slice(0, None, 2)):
        assert column[cut] == ids[cut]
    rng = random.Random(7)
    rows = [rng.randrange(len(ids)) for _ in range(3000)] + [0, len(ids) - 1, 3, 3]
    assert column.take(rows) == [ids[i] for i in rows] and gather(column, rows[:10]) == [ids[i] for i in rows[:10]]
    assert gather(column, range(20_000, 20_010)) == ids[20_000:20_010]
    with pytest.raises(IndexError):
        column[len(ids)]


def test_a_view_holds_rows_and_finds_its_ids_by_the_id_table():
    ids = [f"2601.{n:05d}" for n in range(400, 0, -1)]
    column = packed(ids)
    view = IdRows(column, array("i", range(1, 400, 3)), IdTable(column).get)
    shown = ids[1::3]
    assert list(view) == shown and len(view) == len(shown) and view[2] == shown[2] and view[-1] == shown[-1] and view[3:6] == shown[3:6]
    assert [view.index(pid) for pid in shown[::17]] == [shown.index(pid) for pid in shown[::17]]
    assert ids[0] not in view and "2601.99999" not in view and shown[5] in view
    with pytest.raises(ValueError):
        view.index(ids[2])


def reference_select(catalog: Catalog, *, topic=None, starred=False, unread=False, hidden=False, among=None, within=None) -> list[str]:
    """Catalog.select worked out id by id over lists."""
    index = catalog.index
    among = None if among is None else set(among)
    bit = index.bit(topic) if topic is not None else None
    chosen = []
    for pid, mask in zip(list(index.ids), list(index.masks)):
        if (bit is not None and not mask & bit) or (among is not None and pid not in among) or (within is not None and pid not in within):
            continue
        if (hidden is True and pid not in catalog.hidden) or (hidden is False and pid in catalog.hidden):
            continue
        if (starred and pid not in catalog.starred) or (unread and pid in catalog.read):
            continue
        chosen.append(pid)
    return chosen


@pytest.mark.slow
def test_views_of_the_packed_index_select_and_count_as_filtering_every_id_does(data_dir):
    store = Store(data_dir)
    for name in ("Agents", "Games", "Robots"):
        store.add_topic(name, f"ti:{name.lower()}")
    papers = recent_papers(3000, per_day=40)
    store.save_papers(papers[:1800], "Agents")
    store.save_papers(papers[1200:2600], "Games")
    store.save_papers(papers[2500:], "Robots")
    store.settle_index()  # as a sync ends: index.json and its columns written whole
    index = Store(data_dir).index()  # read back from index.columns: ids packed, masks an array
    assert isinstance(index.ids, PackedIds) and isinstance(index.masks, array) and list(index.ids) == [p.id for p in papers]
    rng = random.Random(3)
    ids = [p.id for p in papers]
    catalog = Catalog(index, read=rng.sample(ids, 900), starred=rng.sample(ids, 40), hidden=rng.sample(ids, 60))
    among = IdRows(index.ids, array("i", sorted(rng.sample(range(len(ids)), 1000))), index.position)
    few, many = set(rng.sample(ids, 25)) | {"2601.99999"}, set(rng.sample(ids, 2000))
    for table_made in (False, True):  # a pass over the ids (before the id table is made), then numpy over rows
        if table_made:
            index.positions()
        assert index.has_positions == table_made
        for topic in (None, "Agents", "Robots", "Nobody"):
            for starred, unread, hidden, chosen_among, within in itertools.product(
                (False, True), (False, True), (False, True, None), (None, among), (None, few, many)
            ):
                filters = {"topic": topic, "starred": starred, "unread": unread, "hidden": hidden, "among": chosen_among, "within": within}
                view = catalog.select(**filters)
                assert isinstance(view, IdRows) and list(view) == reference_select(catalog, **filters), (table_made, filters)
        assert index.has_positions == table_made
    assert isinstance(catalog.select(hidden=None).rows, range)  # every paper: no row stored at all
    assert list(catalog.select(among=list(among))) == reference_select(catalog, among=set(among))  # ids in a list: found by the id table
    counts = catalog._count_all()
    for topic in (None, "Agents", "Games", "Robots"):
        shown = reference_select(catalog, topic=topic)
        assert counts[topic] == [len(shown), sum(pid not in catalog.read for pid in shown)], topic
    starred = reference_select(catalog, starred=True)
    hidden = reference_select(catalog, hidden=True)
    assert counts[STARRED] == [len(starred), sum(pid not in catalog.read for pid in starred)]
    assert counts[HIDDEN] == [len(hidden), sum(pid not in catalog.read for pid in hidden)]
    assert index.count_in("Games") == len(index.in_topic("Games", index.ids)) == 1400


@pytest.mark.slow
def test_a_view_keeps_a_few_bytes_a_paper_not_a_string(data_dir):
    store = Store(data_dir)
    store.add_topic("Agents", "ti:agents")
    store.save_papers(recent_papers(20_000, per_day=100), "Agents")
    store.settle_index()
    catalog = Catalog(Store(data_dir).index(), read=["x"], hidden=[recent_papers(20_000, per_day=100)[5].id])
    catalog.index.positions()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    views = [catalog.select(topic="Agents", unread=True), catalog.select()]
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert [len(view) for view in views] == [19_999, 19_999]
    assert kept < 2 * 20_000 * 6, kept  # int32 rows (a list of ids: 8 bytes a pointer and ~60 a string)


def test_a_ranking_comes_from_its_process_packed_and_answers_scores_and_counts():
    ids = [f"2601.{n:05d}" for n in range(3000, 0, -1)]
    scores = [1 - n / 3000 for n in range(3000)]

    class Ranked:  # a Ranking's plain data, as ranked_list reads it
        def __init__(self):
            self.ids, self.scores = ids, scores

        def top(self, limit):
            return []

    ranked = pickle.loads(pickle.dumps(ranked_list(Ranked())))  # (what the ranking's process sends)
    assert isinstance(ranked, RankedList) and isinstance(ranked.ids, PackedIds)
    assert list(ranked.ids) == ids and list(ranked.scores) == scores
    assert ranked.score_of(ids[17]) == scores[17] and ranked.score_of("2601.99999") is None
    assert ranked.unmarked(set(ids[:10]), {ids[5], "2601.99999"}, set()) == 2990 and ranked.unmarked() == 3000


ARENAS_SCRIPT = """
import ctypes, gc, random, sys, threading
from reader.app.memory import share_arenas
from reader.packed_ids import IdTable, PackedIds
share_arenas()
def rss_mb():
    return int(next(line for line in open("/proc/self/status") if line.startswith("VmRSS")).split()[1]) / 1024
column = PackedIds.pack([f"{2000 + m // 100:04d}.{n:05d}" for m in range(400) for n in range(1000)])
table = IdTable(column)
parts = [[] for _ in range(4)]
for pid in column:
    parts[hash(pid) % 4].append(pid)
for part in parts:
    random.shuffle(part)
gc.collect()
before = rss_mb()
threads = [threading.Thread(target=table.rows_of, args=(part, len(column))) for part in parts]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
gc.collect()
ctypes.CDLL("libc.so.6").malloc_trim(0)
print(rss_mb() - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's arenas")
def test_the_search_threads_arrays_are_given_back_once_freed():
    """The app's search threads map their partitions' rows at once, numpy letting go of the GIL:
    each thread then allocated in an arena of its own, and ~50 MB of what they freed stayed with
    the app at 1,000,000 papers (malloc_trim cannot give it back). The app shares two arenas."""
    done = subprocess.run([sys.executable, "-c", ARENAS_SCRIPT], capture_output=True, text=True, check=True)
    assert float(done.stdout) < 8, done.stdout  # MB kept after four threads mapped 400,000 ids (~25 MB in arenas of their own)
