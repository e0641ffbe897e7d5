"""A compressed shard's own name (`YYMM.NN.json.zlib`): a build from before compression lists
`YYMM.NN.json` alone and took zlib's bytes for damage, moving the shard aside. It must see no
compressed file; a plain twin such a build writes beside a compressed shard is merged, never
counted twice, and the next write leaves one file."""

from __future__ import annotations

import dataclasses
import json
import re
import zlib

from reader.core.query import parse
from reader.search_index import SearchIndex
from reader.store import Store
from reader.store.data_dir import shard_of
from reader.store.files import ZLIB_MAGIC
from reader.store.shard_files import is_cold
from tests.corpus import recent_papers

# How builds before compression list papers/ (store/shard_files.py's pattern then): every file
# it matches, it reads as JSON, and moves aside when it is not.
OLDER_BUILDS_SHARD = re.compile(r"(?P<shard>\d{4}\.\d+)\.json")


def _cold_cache(data_dir):
    papers = recent_papers(60, per_day=1)  # two months back from the fixtures' day
    store = Store(data_dir)
    store.add_topic("T", "ti:x")
    store.save_papers(papers, "T")
    cold = sorted({shard_of(p.id) for p in papers if is_cold(shard_of(p.id))})
    assert cold, "the fixtures' papers are of past months"
    return papers, cold


def _plain_shard(papers) -> bytes:
    """A shard as a build from before compression writes it."""
    docs = {str(i + 1): p.to_json() for i, p in enumerate(papers)}
    return json.dumps({"meta": {"1": {"schema": 1}}, "papers": docs}).encode()


def test_an_older_build_lists_no_compressed_shard(data_dir):
    _, cold = _cold_cache(data_dir)
    listed = [f for f in (data_dir / "papers").iterdir() if OLDER_BUILDS_SHARD.fullmatch(f.name)]
    assert listed, "this month's shards stay plain and are listed"
    for file in listed:
        assert not file.read_bytes().startswith(ZLIB_MAGIC), f"{file.name} would be moved aside as damaged"
        json.loads(file.read_bytes())
    for shard in cold:
        assert (data_dir / "papers" / f"{shard}.json.zlib").read_bytes().startswith(ZLIB_MAGIC)
        assert not (data_dir / "papers" / f"{shard}.json").exists()


def test_a_plain_twin_written_by_an_older_build_is_merged_and_counted_once(data_dir):
    papers, cold = _cold_cache(data_dir)
    shard = cold[0]
    in_shard = [p for p in papers if shard_of(p.id) == shard]
    newer = dataclasses.replace(in_shard[0], version=in_shard[0].version + 1, title="A newer version")
    (data_dir / "papers" / f"{shard}.json").write_bytes(_plain_shard([newer]))  # it saw no records there
    store = Store(data_dir)
    assert store.shards().count(shard) == 1
    loaded = store.load_papers([shard])
    assert set(loaded) == {p.id for p in in_shard}
    assert loaded[newer.id].title == "A newer version"
    assert store.load_paper(in_shard[-1].id) is not None  # a record only the compressed file holds
    index = SearchIndex.open(data_dir)
    try:
        index.refresh(store)
        assert index.matching(parse(f"id:{in_shard[-1].id}")) == {in_shard[-1].id}
        assert index.matching(parse('ti:"A newer version"')) == {newer.id}
    finally:
        index.close()
    store.save_papers([in_shard[1]], "T")  # the next write of that shard: one file again
    assert not (data_dir / "papers" / f"{shard}.json").exists()
    assert set(Store(data_dir).load_papers([shard])) == {p.id for p in in_shard}
    assert Store(data_dir).load_papers([shard])[newer.id].version == newer.version


def test_a_shard_compressed_under_the_plain_name_takes_the_compressed_name_at_the_next_write(data_dir):
    papers, cold = _cold_cache(data_dir)
    folder = data_dir / "papers"
    for shard in cold:  # as the builds that compressed under the plain name left them
        (folder / f"{shard}.json.zlib").rename(folder / f"{shard}.json")
    store = Store(data_dir)
    assert {pid for pid in store.load_papers()} == {p.id for p in papers}  # read as they are
    this_month = [p for p in papers if not is_cold(shard_of(p.id))]
    store.save_papers(this_month[:1], "T")  # a sync's first write renames them
    for shard in cold:
        assert not (folder / f"{shard}.json").exists()
        assert zlib.decompress((folder / f"{shard}.json.zlib").read_bytes())
    assert {pid for pid in Store(data_dir).load_papers()} == {p.id for p in papers}


def test_a_twin_written_after_the_listing_is_still_merged(data_dir):
    papers, cold = _cold_cache(data_dir)
    shard = cold[0]
    in_shard = [p for p in papers if shard_of(p.id) == shard]
    store = Store(data_dir)
    assert shard in store.shards()  # listed while it had one file
    newer = dataclasses.replace(in_shard[0], version=in_shard[0].version + 1, title="A newer version")
    (data_dir / "papers" / f"{shard}.json").write_bytes(_plain_shard([newer]))
    loaded = store.load_papers([shard])
    assert set(loaded) == {p.id for p in in_shard} and loaded[newer.id].title == "A newer version"
