"""The ranking's features saved beside each shard: a later run reads them back and ranks exactly
as counting again would; a missing, stale, damaged or hostile file is counted again."""

from __future__ import annotations

import json
import os
import struct
import zlib
from dataclasses import replace

import numpy as np
import pytest

from reader.core import features, features_format, ranking, shard_counts
from reader.core.features import Corpus
from reader.core.ranking import Ranking
from reader.service.ranking_corpus import RankingCorpus
from reader.store import Store
from reader.store import shard_features as saved_features
from tests.themes import theme_papers


@pytest.fixture
def store(data_dir):
    store = Store(data_dir)
    papers = theme_papers(30)
    # Spread over three shards (a thousand ids each), so that one damaged file is one of several.
    for name, group in papers.items():
        store.save_papers(
            [replace(p, id=f"2611.{10000 + 1000 * (i // 10) + 2 * (i % 10) + (name == 'proteins'):05d}") for i, p in enumerate(group)], name
        )
    return store


def marks(store) -> dict:
    ids = sorted(RankingCorpus(store).corpus().ids)
    agents = [pid for pid in ids if int(pid[-1]) % 2 == 0]
    proteins = [pid for pid in ids if int(pid[-1]) % 2 == 1]
    return {"starred": set(agents[:4]), "hidden": set(proteins[:2]), "read": set(agents[5:8] + proteins[5:7])}


def ranking_of(store) -> tuple:
    result = RankingCorpus(store).rank(**marks(store))
    assert isinstance(result, Ranking)
    return result.ids, result.scores, [scored.because for scored in result.top(10)]


def feature_files(store) -> list:
    return sorted((store.data_dir / "papers").glob("*.features"))


def counted_shards(monkeypatch) -> list:
    counted: list = []
    featurize = features.featurize
    monkeypatch.setattr(saved_features.ranking, "featurize", lambda rows: counted.append(rows) or featurize(rows))
    return counted


@pytest.mark.slow
def test_a_later_run_reads_the_saved_features_and_ranks_identically(store, monkeypatch):
    first = ranking_of(store)  # counts every shard and saves its features
    assert len(feature_files(store)) == len(store.shards()) == 3
    counted = counted_shards(monkeypatch)
    assert ranking_of(store) == first
    assert counted == []  # read back, not counted
    for path in feature_files(store):
        path.unlink()
    assert ranking_of(store) == first  # without the files: counted again, the same


def test_the_read_back_block_equals_the_counted_one_to_the_bit(store):
    shard = store.shards()[0]
    stamp = saved_features.shard_stamp(store, shard)
    block = saved_features.shard_features(store, shard, stamp)
    again = features_format.decode(features_format.encode(block, stamp) or b"", stamp)
    assert again is not None and again.ids == block.ids
    for name in ("data", "indices", "indptr"):
        assert getattr(again.matrix, name).dtype == getattr(block.matrix, name).dtype
        assert np.array_equal(getattr(again.matrix, name), getattr(block.matrix, name))
    assert np.array_equal(again.sample_keys, block.sample_keys)


def test_a_features_file_holds_no_words_and_the_reasons_come_from_the_records(store):
    """The file is the header, the rows' offsets, 4 bytes an entry and the checksum: the words
    of the papers (42% of a file when they were kept to name reasons) are read from the records
    of the papers a ranking names, and give the reasons counting in memory gives."""
    ids, scores, reasons = ranking_of(store)
    for path in feature_files(store):
        raw = path.read_bytes()
        header = header_of(raw)
        head = len(features_format.MAGIC) + 8 + len(json.dumps(header).encode())
        entry_bytes = features_format.COLUMN_BYTES + header["count_bytes"]
        assert raw.startswith(b"reader features 4\n") and "packed" not in header
        assert len(raw) == head + 8 * (len(header["ids"]) + 1) + entry_bytes * header["entries"] + 4
        assert b"agent" not in raw and b"protein" not in raw  # the themes' words
    in_memory = Corpus.of_rows([features.row_of_paper(p) for p in store.load_papers().values()])
    expected = ranking.rank(in_memory, **marks(store))
    assert isinstance(expected, Ranking)
    assert (ids, scores) == (expected.ids, expected.scores)
    assert reasons == [scored.because for scored in expected.top(10)] and all(reasons)


def header_of(raw: bytes) -> dict:
    start = len(features_format.MAGIC) + 8
    (length,) = struct.unpack_from("<Q", raw, len(features_format.MAGIC))
    return json.loads(raw[start : start + length])


def rewritten(raw: bytes, change) -> bytes:
    """`raw` with its header changed by `change` and a checksum that matches: a file crafted to
    pass the checksum, not one damaged at random."""
    start = len(features_format.MAGIC) + 8
    (length,) = struct.unpack_from("<Q", raw, len(features_format.MAGIC))
    header = header_of(raw)
    change(header)
    new = json.dumps(header).encode()
    body = raw[: len(features_format.MAGIC)] + struct.pack("<Q", len(new)) + new + raw[start + length : -4]
    return body + struct.pack("<I", zlib.crc32(body))


def with_array_changed(raw: bytes, offset_from_end: int, value: bytes) -> bytes:
    body = bytearray(raw[:-4])
    body[len(body) - offset_from_end : len(body) - offset_from_end + len(value)] = value
    return bytes(body) + struct.pack("<I", zlib.crc32(body))


DAMAGES = {
    "empty": lambda raw: b"",
    "truncated": lambda raw: raw[: len(raw) // 2],
    "a byte flipped": lambda raw: raw[: len(raw) // 2] + bytes([raw[len(raw) // 2] ^ 1]) + raw[len(raw) // 2 + 1 :],
    "not ours": lambda raw: b"\x00" * len(raw),
    "another featurizer": lambda raw: rewritten(raw, lambda h: h.update(featurizer=h["featurizer"] + 1)),
    "more papers than rows": lambda raw: rewritten(raw, lambda h: h["ids"].append("2611.99999")),
    "a paper twice": lambda raw: rewritten(raw, lambda h: h["ids"].__setitem__(1, h["ids"][0])),
    "ids not text": lambda raw: rewritten(raw, lambda h: h["ids"].__setitem__(0, 7)),
    "entries not a number": lambda raw: rewritten(raw, lambda h: h.update(entries="many")),
    "header not an object": lambda raw: rewritten(raw, lambda h: h.clear()),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_damaged_or_crafted_file_is_counted_again_and_ranks_identically(store, monkeypatch, damage):
    first = ranking_of(store)
    path = feature_files(store)[1]
    good = path.read_bytes()
    path.write_bytes(DAMAGES[damage](good))
    counted = counted_shards(monkeypatch)
    assert ranking_of(store) == first
    assert len(counted) == 1  # that shard alone
    assert path.read_bytes() == good  # and saved again


def test_columns_and_counts_out_of_range_are_refused(store):
    ranking_of(store)
    path = feature_files(store)[0]
    raw = path.read_bytes()
    stamp = saved_features.shard_stamp(store, path.name.removesuffix(".features"))
    assert features_format.decode(raw, stamp) is not None
    header = header_of(raw)
    width, count_bytes = features_format.COLUMN_BYTES, header["count_bytes"]
    tail = count_bytes * header["entries"]  # bytes after the columns: the counts
    last_column = tail + width
    assert features_format.decode(with_array_changed(raw, last_column, struct.pack("<I", features.COLUMNS)[:width]), stamp) is None
    assert features_format.decode(with_array_changed(raw, last_column, b"\xff" * width), stamp) is None
    assert features_format.decode(with_array_changed(raw, count_bytes, bytes(count_bytes)), stamp) is None
    second_column = tail + width * header["entries"] - width  # a row's columns rise: a repeated one is refused
    first_column = raw[len(raw) - 4 - second_column - width : len(raw) - 4 - second_column]
    assert features_format.decode(with_array_changed(raw, second_column, first_column), stamp) is None
    first_offset = tail + width * header["entries"] + 8 * len(header["ids"])  # the second row's start
    assert features_format.decode(with_array_changed(raw, first_offset, struct.pack("<q", -5)), stamp) is None


@pytest.mark.slow
def test_a_shard_rewritten_since_makes_its_file_stale(store, monkeypatch):
    ranking_of(store)
    shard = store.shards()[0]
    info = store.shard_file(shard).stat()
    os.utime(store.shard_file(shard), ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000))
    counted = counted_shards(monkeypatch)
    first = ranking_of(store)
    assert len(counted) == 1
    new_stamp = saved_features.shard_stamp(store, shard)
    assert features_format.decode(store.shard_file(shard).with_name(f"{shard}.features").read_bytes(), new_stamp) is not None
    assert ranking_of(store) == first and len(counted) == 1


def test_a_header_nested_too_deep_is_refused(store):
    ranking_of(store)
    shard = store.shards()[0]
    header = b"[" * 100_000 + b"]" * 100_000
    body = features_format.MAGIC + struct.pack("<Q", len(header)) + header
    assert features_format.decode(body + struct.pack("<I", zlib.crc32(body)), saved_features.shard_stamp(store, shard)) is None


def test_features_counted_from_the_records_rank_as_those_from_saved_search_texts(store):
    # With no search texts saved, the records are read and only the counted words folded.
    from reader.service.search_texts import shard_texts

    from_records = ranking_of(store)
    assert not list((store.data_dir / "papers").glob("*.search.json"))  # none built for it
    for path in feature_files(store):
        path.unlink()
    for shard in store.shards():
        shard_texts(store, shard)  # saved, as a search of the cache would leave them
    assert list((store.data_dir / "papers").glob("*.search.json"))
    from_texts = ranking_of(store)
    # The same ranking and reasons (read from the records either way: an author's name as written).
    assert from_texts == from_records
    assert any(reason != reason.lower() for reasons in from_records[2] for reason in reasons)


@pytest.mark.parametrize("apart", [False, True], ids=["in-thread", "in-a-process"])
def test_a_sync_leaves_every_shard_it_writes_with_its_features(data_dir, monkeypatch, apart):
    """Saved through a sync's FeatureKeeper (in batches, some papers twice in one, a paper
    replaced by a newer version, a shard that held papers from before features were kept), every shard's file reads back as
    what counting its records gives; the first ranking counts nothing. `apart`: a large sync's
    counting, done by a process of its own (and here only for the shard holding papers counted
    by no features file)."""
    import asyncio
    import random

    from reader.arxiv.client import ArxivClient
    from reader.arxiv.options import ClientOptions
    from reader.store import Topic
    from reader.sync.syncer import Syncer
    from tests.arxiv_server import FakeArxiv
    from tests.corpus import TODAY

    store = Store(data_dir)
    papers = [p for group in theme_papers(40).values() for p in group]
    random.Random(3).shuffle(papers)
    store.save_papers(papers[:10], None)  # before features were kept: no file beside its shard
    if apart:
        monkeypatch.setattr(saved_features, "PROCESS_AFTER", 1)
    keeper = saved_features.FeatureKeeper(store)
    for start in range(10, 80, 25):
        store.save_papers(papers[start : start + 25], None, on_shard=keeper.on_shard)
    store.save_papers(
        [replace(p, version=p.version + 1, title=p.title + " revisited") for p in papers[:15]], None, on_shard=keeper.on_shard
    )
    # A paper on two pages of one batch (where a sync's windows meet) is saved twice.
    store.save_papers(papers[75:80] + papers[75:77], None, on_shard=keeper.on_shard)
    keeper.wait()
    fake = FakeArxiv().start()
    try:
        fresh = [replace(p, id=f"2612.{20000 + i:05d}") for i, p in enumerate(papers[:20])]
        fake.queries["ti:fresh"] = fresh

        async def sync():
            async with ArxivClient(ClientOptions(api_url=fake.api_url, rss_url=fake.rss_url, delay=0.0, retries=0)) as client:
                return await Syncer(store, client, today=TODAY, horizon_weeks=60).sync_topic(Topic("Fresh", "ti:fresh"))

        assert asyncio.run(sync()).new == 20
    finally:
        fake.stop()
    assert len(feature_files(store)) == len(store.shards()) == 2
    for shard in store.shards():
        saved = features_format.decode(saved_features.features_path(store, shard).read_bytes(), saved_features.shard_stamp(store, shard))
        counted = features.featurize([features.row_of_paper(p) for p in store.load_papers([shard]).values()])
        assert saved is not None and sorted(saved.ids) == sorted(counted.ids)
        rows = dict(zip(saved.ids, range(len(saved.ids))))
        for i, pid in enumerate(counted.ids):
            assert (saved.matrix[rows[pid]] != counted.matrix[i]).nnz == 0
        # Its document counts beside it, as counting the shard gives them (a first ranking sums them).
        documents = shard_counts.read(saved_features.counts_path(store, shard), saved_features.shard_stamp(store, shard))
        expected = shard_counts.ShardCounts.of_block(counted)
        assert documents is not None and documents.papers == len(counted.ids)
        assert documents.columns.tolist() == expected.columns.tolist() and documents.counts.tolist() == expected.counts.tolist()
    counting = counted_shards(monkeypatch)
    starred = set(sorted(store.index().ids)[:4])
    result = RankingCorpus(store).rank(starred=starred, read=set(), hidden=set())
    assert isinstance(result, Ranking) and counting == []
    # The same ranking and reasons as counting every record in memory.
    expected = ranking.rank(Corpus.of_rows([features.row_of_paper(p) for p in store.load_papers().values()]), starred=starred)
    assert isinstance(expected, Ranking) and result.ids == expected.ids
    assert [s.because for s in result.top(10)] == [s.because for s in expected.top(10)] and any(s.because for s in result.top(10))


def test_a_large_syncs_features_are_counted_in_a_process_of_their_own(data_dir, monkeypatch):
    """Past PROCESS_AFTER papers (expected or counted), the keeper's jobs are counted out of this process (whose GIL
    the sync's parsing and saving need): counting here is made to fail, and every shard still
    has its features, equal to counting its records."""
    store = Store(data_dir)
    papers = [p for group in theme_papers(40).values() for p in group][:60]
    monkeypatch.setattr(saved_features, "PROCESS_AFTER", 50)
    keeper = saved_features.FeatureKeeper(store)
    keeper.expect(60)  # a sync's large save says so first: its first shard is counted apart too

    def not_here(*_args, **_kwargs):
        raise AssertionError("counted in the sync's own process")

    monkeypatch.setattr(saved_features, "extended", not_here)
    monkeypatch.setattr(saved_features.ranking, "featurize", not_here)
    for start in range(0, 60, 20):  # the later saves extend the features the first ones left
        store.save_papers(papers[start : start + 20], None, on_shard=keeper.on_shard)
    keeper.wait()
    monkeypatch.undo()
    for shard in store.shards():
        saved = features_format.decode(saved_features.features_path(store, shard).read_bytes(), saved_features.shard_stamp(store, shard))
        counted = features.featurize([features.row_of_paper(p) for p in store.load_papers([shard]).values()])
        assert saved is not None and sorted(saved.ids) == sorted(counted.ids)
        rows = dict(zip(saved.ids, range(len(saved.ids))))
        assert all((saved.matrix[rows[pid]] != counted.matrix[i]).nnz == 0 for i, pid in enumerate(counted.ids))


def test_a_counting_process_that_cannot_start_leaves_the_counting_to_the_thread(data_dir, monkeypatch):
    """The sync's features are kept whole when the counting process cannot start (no such
    executable, no process left): its jobs are counted in the keeper's thread."""
    from reader.store import features_child

    store = Store(data_dir)
    papers = [p for group in theme_papers(20).values() for p in group][:30]
    monkeypatch.setattr(saved_features, "PROCESS_AFTER", 1)
    monkeypatch.setattr(features_child.sys, "executable", str(data_dir / "no-python-here"))
    keeper = saved_features.FeatureKeeper(store)
    for start in range(0, 30, 10):
        store.save_papers(papers[start : start + 10], None, on_shard=keeper.on_shard)
    keeper.wait()
    for shard in store.shards():
        saved = features_format.decode(saved_features.features_path(store, shard).read_bytes(), saved_features.shard_stamp(store, shard))
        assert saved is not None and sorted(saved.ids) == sorted(p.id for p in store.load_papers([shard]).values())


def as_version_3(raw: bytes) -> bytes:
    """The file as the build before this one wrote it: made by the featurizer before (blake2b's
    keys), with packs of rows (16 papers' words each) after the counts."""
    header = header_of(raw)
    start = len(features_format.MAGIC) + 8 + len(json.dumps(header).encode())
    packs = [zlib.compress(b'[["words of an older build", [], []]]')] * -(-len(header["ids"]) // 16)
    header.update(packed=sum(map(len, packs)), featurizer=1)
    new = json.dumps(header).encode()
    lengths = np.array([len(pack) for pack in packs], dtype="<u4").tobytes()
    body = b"".join((b"reader features 3\n", struct.pack("<Q", len(new)), new, raw[start:-4], lengths, *packs))
    return body + struct.pack("<I", zlib.crc32(body))


def test_entries_take_four_bytes_and_rows_read_alone_equal_the_block(store, tmp_path):
    shard = store.shards()[0]
    stamp = saved_features.shard_stamp(store, shard)
    block = saved_features.shard_features(store, shard, stamp)
    raw = features_format.encode(block, stamp) or b""
    header = header_of(raw)
    assert header["entries"] > 100 and header["count_bytes"] == 1  # 3 bytes a column, 1 a count
    path = tmp_path / "shard.features"
    path.write_bytes(raw)
    reader = features_format.RowReader.open(path, stamp)
    assert reader is not None
    try:
        for positions in ([2, 0], list(range(len(block.ids)))):  # a few rows read alone, many read whole
            found = reader.entries(positions)
            assert found is not None
            lengths, columns, weights = found
            wanted = block.matrix[positions]
            assert lengths == np.diff(wanted.indptr).tolist()
            assert np.array_equal(columns, wanted.indices) and np.array_equal(weights, wanted.data)
    finally:
        reader.close()


def test_a_file_an_older_build_wrote_is_counted_again_in_this_version(store, monkeypatch, tmp_path):
    first = ranking_of(store)
    for path in feature_files(store):
        path.write_bytes(as_version_3(path.read_bytes()))
    older = feature_files(store)[0]
    assert features_format.RowReader.open(older, saved_features.shard_stamp(store, older.name.removesuffix(".features"))) is None
    counted = counted_shards(monkeypatch)
    assert ranking_of(store) == first
    assert len(counted) == len(feature_files(store)) == 3
    assert all(path.read_bytes().startswith(b"reader features 4\n") for path in feature_files(store))
