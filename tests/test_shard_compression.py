"""Shards of past months kept compressed (zlib): read back as written, by every reader of shards
(the store, one record found alone, the search index), and damage in the stream is damage."""

from __future__ import annotations

import json
import zlib
from datetime import UTC, datetime

from reader.core.query import parse
from reader.search_index import SearchIndex
from reader.store import Store
from reader.store.data_dir import shard_of
from reader.store.files import ZLIB_MAGIC, uncompressed
from reader.store.shard_files import is_cold
from tests.corpus import recent_papers


def test_a_shard_of_a_past_month_is_compressed_and_reads_back_whole(data_dir):
    papers = recent_papers(60, per_day=1)  # two months back from the fixtures' day
    store = Store(data_dir)
    store.add_topic("T", "ti:x")
    store.save_papers(papers, "T")
    shards = {shard_of(p.id) for p in papers}
    cold = sorted(s for s in shards if is_cold(s))
    assert cold, "the fixtures' papers are of past months"
    for shard in cold:
        raw = store.shard_file(shard).read_bytes()
        assert raw.startswith(ZLIB_MAGIC)
        plain = uncompressed(raw, store.shard_file(shard))
        assert len(raw) * 2 < len(plain)
        assert set(json.loads(plain)["papers"]["1"]) >= {"id", "title", "abstract"}
    again = Store(data_dir)
    assert {pid: p.to_json() for pid, p in again.load_papers().items()} == {p.id: p.to_json() for p in papers}
    assert again.load_paper(papers[5].id).to_json() == papers[5].to_json()  # one record found alone
    index = SearchIndex.open(data_dir)
    try:
        index.refresh(again)
        assert index.matching(parse(f"id:{papers[7].id}")) == {papers[7].id}
    finally:
        index.close()


def test_this_months_shard_stays_plain_json():
    now = datetime(2026, 12, 7, tzinfo=UTC)
    assert not is_cold("2612.10", now) and not is_cold("2701.00", now)
    assert is_cold("2611.99", now) and is_cold("9912.1", now) and is_cold("0704.0", now)


def _damaged(data_dir, payload: bytes) -> tuple[dict, list[str]]:
    store = Store(data_dir)
    store.add_topic("T", "ti:x")
    papers = recent_papers(3, per_day=1)
    store.save_papers(papers, "T")
    shard = shard_of(papers[0].id)
    store.shard_file(shard).write_bytes(payload)
    again = Store(data_dir)
    return again.load_papers([shard]), again.warnings


def test_a_compressed_shard_cut_short_is_damage_moved_aside(data_dir):
    whole = zlib.compress(json.dumps({"papers": {}}).encode() * 50, 1)
    papers, warnings = _damaged(data_dir, whole[: len(whole) // 2])
    assert papers == {}
    assert any("damaged" in w and "moved to" in w for w in warnings)


def test_a_compressed_shard_that_unpacks_past_the_bound_is_damage(data_dir, monkeypatch):
    from reader.store import files

    monkeypatch.setattr(files, "STATE_BYTES", 1024 * 1024)
    bomb = zlib.compress(b" " * (2 * 1024 * 1024), 9)  # 2 kB
    assert len(bomb) < 4096
    papers, warnings = _damaged(data_dir, bomb)
    assert papers == {}
    assert any("damaged" in w for w in warnings)
