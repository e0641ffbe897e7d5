"""Where every shard's features rows lie (core/rows_total.py, papers/total.rows): kept by the
first ranking and by a sync's FeatureKeeper, so that a first ranking opens each features file
at its rows without reading its header; an entry whose file was written again, a damaged file
or none at all: the headers are read, with the same answer, and the file written again."""

from __future__ import annotations

import importlib
import subprocess
import sys

import numpy as np
import pytest

from reader.core import features, rows_total
from reader.core.features_format import RowLayout, RowReader
from reader.core.ranking import Ranking
from reader.service.ranking_corpus import RankingCorpus
from reader.store import Store
from reader.store import shard_features as saved
from tests.helpers.first_rank import ranked as _ranked
from tests.helpers.first_rank import synced_after_a_rank, three_themes


@pytest.fixture
def cache(data_dir, monkeypatch):
    return three_themes(data_dir, monkeypatch)


@pytest.fixture
def headers_read(monkeypatch) -> list[str]:
    """The features files whose headers are read from now on (RowReader.open), by name."""
    read: list[str] = []
    plain = RowReader.open.__func__  # type: ignore[attr-defined]

    def counted(cls, path, stamp):
        read.append(path.name)
        return plain(cls, path, stamp)

    monkeypatch.setattr(RowReader, "open", classmethod(counted))
    return read


def assert_names_every_shard_as_it_is(store: Store) -> None:
    entries = saved.read_rows(store)
    assert sorted(entries) == sorted(store.shards())
    for shard, entry in entries.items():
        reader = RowReader.open(saved.features_path(store, shard), saved.shard_stamp(store, shard))
        assert reader is not None
        try:
            assert list(entry) == reader.ids and entry.layout.identity == reader.layout.identity
            assert np.array_equal(entry.layout.indptr, reader.layout.indptr)
        finally:
            reader.close()


def same(one, other) -> None:
    assert isinstance(one, Ranking) and isinstance(other, Ranking)
    assert one.ids == other.ids and one.scores == other.scores


MARKS = {"read": set(), "hidden": set()}


def test_the_first_rank_keeps_where_the_rows_lie_and_the_next_reads_no_header(cache, headers_read):
    store, agents, proteins = cache
    marks = {"starred": {p.id for p in agents[:5]}, "read": {agents[5].id, proteins[0].id}, "hidden": {proteins[1].id}}
    whole = RankingCorpus(store).rank(**marks)  # every shard's features saved, as a sync leaves them
    first = _ranked(store, **marks)
    assert sorted(headers_read) == sorted(f"{shard}.features" for shard in store.shards())
    assert_names_every_shard_as_it_is(store)
    headers_read.clear()
    again = _ranked(store, **marks)
    assert headers_read == []
    same(again, first)
    assert isinstance(whole, Ranking) and isinstance(first, Ranking) and first.ids[:20] == whole.ids[:20]
    saved.rows_path(store).unlink()  # the plain way: every header read
    same(_ranked(store, **marks), first)


def test_a_features_file_written_again_is_read_by_its_header_and_its_entry_kept_anew(cache, headers_read):
    store, agents, _ = cache
    marks = {"starred": {p.id for p in agents[:5]}, **MARKS}
    RankingCorpus(store).corpus()
    first = _ranked(store, **marks)
    shard = store.shards()[0]
    path = saved.features_path(store, shard)
    copy = path.with_name("copy")
    copy.write_bytes(path.read_bytes())
    copy.replace(path)  # the same bytes in another file: its entry no longer holds
    headers_read.clear()
    same(_ranked(store, **marks), first)
    assert headers_read == [path.name]
    assert_names_every_shard_as_it_is(store)


def test_a_damaged_file_is_read_as_none_and_written_again(cache, headers_read):
    store, agents, _ = cache
    marks = {"starred": {p.id for p in agents[:5]}, **MARKS}
    RankingCorpus(store).corpus()
    first = _ranked(store, **marks)
    path = saved.rows_path(store)
    raw = path.read_bytes()
    path.write_bytes(raw[:100] + bytes([raw[100] ^ 1]) + raw[101:])
    assert saved.read_rows(store) == {}
    headers_read.clear()
    same(_ranked(store, **marks), first)
    assert len(headers_read) == len(store.shards())
    assert_names_every_shard_as_it_is(store)


@pytest.mark.parametrize("apart", [False, True], ids=["in-thread", "in-a-process"])
def test_a_sync_keeps_where_the_rows_lie_and_the_first_rank_after_it_reads_no_header(cache, monkeypatch, headers_read, apart):
    """`apart`: a large sync's counting, done by a process of its own, keeps them alike."""
    store, agents, proteins = cache
    marks = synced_after_a_rank(store, agents, proteins, monkeypatch, apart=apart)
    assert_names_every_shard_as_it_is(store)
    headers_read.clear()
    fast = _ranked(store, **marks)
    assert headers_read == []
    whole = RankingCorpus(store).rank(**marks)
    assert isinstance(fast, Ranking) and isinstance(whole, Ranking)
    scores = dict(zip(whole.ids, whole.scores))
    assert fast.scores == pytest.approx([scores[pid] for pid in fast.ids], abs=1e-9)
    assert fast.ids[:20] == whole.ids[:20]


def test_an_entry_finds_each_id_whole_and_reads_back_as_written():
    ids = ["2401.00012", "2401.0001", "hep-th/9901001", "2401.00123"]
    layout = RowLayout((1, 2, 3, 4), (5, 6), np.array([0, 3, 3, 7, 9], dtype=np.int64), 100, 127, (3, 1))
    entry = rows_total.ShardRows(layout, b"".join(b"\n" + pid.encode() for pid in ids) + b"\n")
    asked = ["2401.00123", "2401.0001", "2401.000", "401.00012", "9901001", "2401.00012\n2401.0001", ""]
    assert entry.positions(asked) == [(1, "2401.0001"), (3, "2401.00123")]  # never a part of an id, or two
    assert list(entry) == ids and len(entry) == 4
    empty = RowLayout((1, 2, 3, 5), (5, 6), np.zeros(1, dtype=np.int64), 100, 100, (3, 1))
    raw = rows_total.encode({"2401.00": entry, "9901.0": rows_total.ShardRows(empty, b"\n")})
    assert raw is not None
    back = rows_total.decode(raw)
    assert back is not None and list(back) == ["2401.00", "9901.0"]
    assert list(back["2401.00"]) == ids and back["2401.00"].layout.identity == (1, 2, 3, 4)
    assert np.array_equal(back["2401.00"].layout.indptr, layout.indptr) and back["9901.0"].positions(ids) == []
    for cut in (raw[:-1], raw[:40], raw[:50] + bytes([raw[50] ^ 1]) + raw[51:], b""):
        assert rows_total.decode(cut) is None


def test_a_rank_imports_neither_the_library_service_nor_the_demo_set():
    probe = "import sys, reader.service.first_rank; print(sorted({'reader.service.library', 'reader.service.demo'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_entries_kept_under_another_featurizer_are_not_resumed(monkeypatch):
    """After a change of how words are keyed (FEATURIZER), a features file still of the old one
    must be opened by its header, whose check has it counted again: no entry kept before is read."""
    layout = RowLayout((1, 2, 3, 4), (5, 6), np.array([0, 2], dtype=np.int64), 100, 106, (3, 1))
    raw = rows_total.encode({"2401.00": rows_total.ShardRows(layout, b"\n2401.00001\n")})
    assert raw is not None and rows_total.decode(raw) is not None
    monkeypatch.setattr(features, "FEATURIZER", features.FEATURIZER + 1)
    try:
        importlib.reload(rows_total)
        assert rows_total.decode(raw) is None
    finally:
        monkeypatch.undo()
        importlib.reload(rows_total)


def test_a_file_system_s_inode_numbers_past_63_bits_are_kept_and_never_a_traceback(data_dir):
    """Device and inode numbers are unsigned (a network or FUSE file system's may use all 64 bits);
    a number no field can hold leaves no file written, as a long shard name does."""
    layout = RowLayout((2**64 - 1, 2**63 + 5, 3, -4), (5, 6), np.array([0, 3], dtype=np.int64), 100, 103, (3, 1))
    raw = rows_total.encode({"2401.00": rows_total.ShardRows(layout, b"\n2401.00012\n")})
    back = rows_total.decode(raw or b"")
    assert back is not None and back["2401.00"].layout.identity == (2**64 - 1, 2**63 + 5, 3, -4)
    store = Store(data_dir)
    beyond = RowLayout((1, 2, 2**63, 4), (5, 6), np.array([0, 3], dtype=np.int64), 100, 103, (3, 1))
    saved.save_rows(store, {"2401.00": rows_total.ShardRows(beyond, b"\n2401.00012\n")})
    assert not saved.rows_path(store).exists() and saved.read_rows(store) == {}
