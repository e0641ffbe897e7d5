"""Saves append their changes to index.log instead of rewriting index.json (issue 32): what a save
writes grows with the batch, not with the cache; a line cut short by a kill, damaged, or left
from before index.json was last written whole is ignored; a long log goes into index.json."""

from __future__ import annotations

import dataclasses
import json
import os
import struct
import zlib

import pytest

from reader.cache_index import CacheIndex
from reader.store import Store, index_columns, index_log
from reader.store.data_dir import shard_of
from reader.store.index_files import IndexFiles
from tests.corpus import recent_papers


def files_of(data_dir) -> dict[str, tuple[int, int]]:
    found = {}
    for root, _, names in os.walk(data_dir):
        for name in names:
            path = os.path.join(root, name)
            stat = os.stat(path)
            found[os.path.relpath(path, data_dir)] = (stat.st_mtime_ns, stat.st_size)
    return found


def written_by(data_dir, save) -> tuple[set[str], int]:
    """(files a save touched, bytes it wrote: an appended file's growth, a rewritten one's size)."""
    before = files_of(data_dir)
    save()
    after = files_of(data_dir)
    touched = {name for name, stamp in after.items() if before.get(name) != stamp}
    grown = sum(after[name][1] - before.get(name, (0, 0))[1] if name == "index.log" else after[name][1] for name in touched)
    return touched, grown


def cache_of(data_dir, count: int) -> Store:
    store = Store(data_dir)
    store.add_topic("Agents", "ti:agents")
    papers = recent_papers(count, per_day=40)
    for start in range(0, count, 5000):
        store.save_papers(papers[start : start + 5000], "Agents")
    return store


def batch() -> list:
    """Fifty papers new to either cache, in a shard of their own (same bytes in both)."""
    return [dataclasses.replace(p, id=f"2612.{95000 + n:05d}") for n, p in enumerate(recent_papers(50))]


@pytest.mark.slow
def test_a_save_into_a_cache_twenty_times_larger_writes_about_as_much(tmp_path, monkeypatch):
    with monkeypatch.context() as whole_writes:  # the caches made with index.json written whole
        whole_writes.setattr(index_log, "MIN_ROWS", 0)
        whole_writes.setattr(index_log, "SHARE", 1 << 40)
        small, large = cache_of(tmp_path / "small", 1_000), cache_of(tmp_path / "large", 20_000)
    assert not (tmp_path / "large" / "index.log").exists()
    assert (tmp_path / "large" / "index.json").stat().st_size > 15 * (tmp_path / "small" / "index.json").stat().st_size
    # (index.json written whole by each save, as before the log: the large one's save wrote 20 times the bytes)
    small_files, small_bytes = written_by(small.data_dir, lambda: small.save_papers(batch(), "Agents"))
    large_files, large_bytes = written_by(large.data_dir, lambda: large.save_papers(batch(), "Agents"))
    assert small_files == large_files == {"index.log", f"papers/{shard_of('2612.95000')}.json"}
    assert large_bytes < 1.2 * small_bytes
    index = Store(large.data_dir).index()
    assert len(index) == 20_050 and all(pid in index for pid in (p.id for p in batch()))


def whole(store: Store) -> CacheIndex:
    """The index read back by another process, from the files alone."""
    return Store(store.data_dir).index()


def columns(index: CacheIndex):
    return index.topics, list(index.ids), list(index.versions), list(index.days), list(index.masks), list(index.arrived)


def test_a_line_cut_short_by_a_kill_is_ignored_and_the_next_save_is_kept(data_dir):
    store = cache_of(data_dir, 100)
    first, second = batch()[:10], batch()[10:20]
    store.save_papers(first, "Agents")
    kept = columns(whole(store))
    line = (data_dir / "index.log").read_bytes().splitlines(keepends=True)[-1]
    with open(data_dir / "index.log", "ab") as log:
        log.write(line[: len(line) // 2])  # a save killed mid-write (its shard was written first)
    assert columns(whole(store)) == kept
    Store(data_dir).save_papers(second, "Agents")
    index = whole(store)
    assert len(index) == 120 and all(p.id in index for p in first + second)


def test_a_damaged_line_is_ignored_and_the_others_kept(data_dir):
    store = cache_of(data_dir, 100)
    store.save_papers(batch()[:10], "Agents")
    store.save_papers(batch()[10:20], "Agents")
    raw = (data_dir / "index.log").read_bytes()
    first_end = raw.index(b"\n")
    damaged = raw[:first_end].replace(b'"Agents"', b'"Agentz"', 1) + raw[first_end:]
    (data_dir / "index.log").write_bytes(damaged)
    index = whole(store)
    assert len(index) == 110 and all(p.id in index for p in batch()[10:20]) and not any(p.id in index for p in batch()[:10])
    assert index.topics == ["Agents"]


def test_lines_from_before_index_json_was_last_written_whole_are_ignored(data_dir):
    store = cache_of(data_dir, 100)
    store.add_topic("Games", "ti:games")
    store.save_papers(batch()[:10], "Games")
    old_log = (data_dir / "index.log").read_bytes()
    store.remove_topic("Games")  # index.json written whole (a new log), the old log removed
    assert not (data_dir / "index.log").exists()
    (data_dir / "index.log").write_bytes(old_log)  # as a kill before the removal would leave it
    index = whole(store)
    assert "Games" not in index.topics and all(p.id in index and index.topics_of(p.id) == [] for p in batch()[:10])


def test_a_long_log_goes_into_index_json(data_dir, monkeypatch):
    monkeypatch.setattr(index_log, "MIN_ROWS", 25)
    store = cache_of(data_dir, 100)  # 100 papers: the log holds at most max(25, 100 // SHARE) rows
    store.save_papers(batch()[:20], "Agents")
    assert (data_dir / "index.log").exists()
    index_json = (data_dir / "index.json").read_bytes()
    store.save_papers(batch()[20:30], "Agents")  # 30 rows: written whole
    assert not (data_dir / "index.log").exists() and (data_dir / "index.json").read_bytes() != index_json
    index = whole(store)
    assert columns(index) == columns(store.index()) and len(index) == 130


def test_an_index_json_from_before_the_log_is_written_whole_at_the_first_save(data_dir):
    store = cache_of(data_dir, 100)
    text = (data_dir / "index.json").read_text()
    token = index_log.new_token()
    assert '"log":"' in text
    old = text.replace(text[text.index(',"log":"') : text.index('"}},"index"') + 1], "")  # as written before the log
    assert old != text and token not in old
    (data_dir / "index.json").write_text(old)
    Store(data_dir).save_papers(batch()[:5], "Agents")
    assert not (data_dir / "index.log").exists() and '"log":"' in (data_dir / "index.json").read_text()
    assert len(whole(store)) == 105


@pytest.mark.parametrize("share", [1, index_log.SHARE])
def test_folded_log_entries_equal_taking_them_one_by_one(data_dir, share, monkeypatch):
    # share=1 with no minimum: every save writes index.json whole (as before the log)
    if share == 1:
        monkeypatch.setattr(index_log, "MIN_ROWS", 0)
    monkeypatch.setattr(index_log, "SHARE", share)
    store = cache_of(data_dir, 100)
    store.add_topic("Games", "ti:games")
    papers = recent_papers(100, per_day=40)
    store.save_papers(batch()[:10], "Games")
    store.save_papers([dataclasses.replace(papers[3], version=papers[3].version + 1), *batch()[5:15]], "Games")
    store.save_papers([dataclasses.replace(p, version=p.version + 2) for p in batch()[:3]], None)
    expected = {}
    for p in papers:
        expected[p.id] = (p.version, p.published[:10], {"Agents"})
    for p in batch()[:15]:
        version, published, topics = expected.get(p.id, (0, p.published[:10], set()))
        expected[p.id] = (max(version, p.version), published, topics | {"Games"})
    expected[papers[3].id] = (papers[3].version + 1, papers[3].published[:10], {"Agents", "Games"})
    for p in batch()[:3]:
        expected[p.id] = (p.version + 2, expected[p.id][1], expected[p.id][2])
    index = whole(store)
    assert columns(index)[:4] == columns(store.index())[:4]
    assert {pid: (index.get(pid).version, index.get(pid).published, set(index.get(pid).topics)) for pid in index.ids} == expected


# --- index.columns: index.json's columns as machine arrays, read instead of its JSON -------------


def from_json(data_dir) -> CacheIndex:
    """The index as index.json (and the log) hold it, index.columns set aside."""
    columns = data_dir / "index.columns"
    kept = columns.read_bytes() if columns.exists() else None
    columns.unlink(missing_ok=True)
    index = Store(data_dir).index()
    if kept is not None:
        columns.write_bytes(kept)
    return index


def test_index_columns_hold_what_index_json_holds(data_dir, monkeypatch):
    monkeypatch.setattr(index_log, "MIN_ROWS", 0)  # every save writes index.json whole (and the columns)
    store = cache_of(data_dir, 100)
    store.add_topic("Games", "ti:games")
    store.save_papers(batch()[:10], "Games")
    store.remove_topic("Agents")
    assert (data_dir / "index.columns").exists()
    read = []
    monkeypatch.setattr(IndexFiles, "_read_index_json", lambda self: read.append(1) or None)
    index = Store(data_dir).index()  # from the columns alone
    monkeypatch.undo()
    assert read == [] and columns(index) == columns(from_json(data_dir)) and len(index) == 110 and index.topics == ["Games"]


def damaged_columns(raw: bytes) -> bytes:
    return raw[:-40] + bytes([raw[-40] ^ 1]) + raw[-39:]


def header_of(raw: bytes) -> tuple[dict, int]:
    """(index.columns' header, where its columns start)."""
    magic = index_columns.MAGIC
    (length,) = struct.unpack_from("<Q", raw, len(magic))
    return json.loads(raw[len(magic) + 8 : len(magic) + 8 + length]), len(magic) + 8 + length + 4


def with_header(raw: bytes, header: dict) -> bytes:
    """`raw` with another header, its length and CRC made right."""
    magic, (_, start) = index_columns.MAGIC, header_of(raw)
    text = json.dumps(header).encode()
    return magic + struct.pack("<Q", len(text)) + text + struct.pack("<I", zlib.crc32(text)) + raw[start:]


def crafted_day(raw: bytes) -> bytes:
    """A day out of range, with its column's CRC made right (a file written by someone else)."""
    header, start = header_of(raw)
    days_at = start + header["ids"] + 8 * header["papers"]  # after the ids' ends and the versions
    raw = raw[:days_at] + struct.pack("<i", 0) + raw[days_at + 4 :]
    header["crcs"]["days"] = zlib.crc32(raw[days_at : days_at + 4 * header["papers"]])
    return with_header(raw, header)


def spoiled_version(raw: bytes) -> bytes:
    """A byte of the versions' column changed, its CRC left as it was."""
    header, start = header_of(raw)
    at = start + header["ids"] + 4 * header["papers"] + 5
    return raw[:at] + bytes([raw[at] ^ 1]) + raw[at + 1 :]


def format_2(raw: bytes) -> bytes:
    """The same columns in the format before: no CRCs in the header, one CRC of all after them."""
    header, start = header_of(raw)
    del header["crcs"]
    text = json.dumps(header).encode()
    body = index_columns.MAGIC_2 + struct.pack("<Q", len(text)) + text + raw[start:]
    return body + struct.pack("<I", zlib.crc32(body))


@pytest.mark.parametrize("spoil", [damaged_columns, crafted_day, spoiled_version], ids=["damaged", "crafted", "version"])
def test_damaged_or_crafted_index_columns_are_ignored_and_made_again(data_dir, spoil):
    cache_of(data_dir, 100)
    expected = columns(from_json(data_dir))
    path = data_dir / "index.columns"
    path.write_bytes(spoil(path.read_bytes()))
    assert columns(Store(data_dir).index()) == expected
    assert columns(Store(data_dir).index()) == expected and list(Store(data_dir).index_order().ids) == expected[1]
    made_from = index_columns.made_from(path)  # written again by the reader, whole
    assert made_from is not None and columns(index_columns.read(path, *made_from)) == expected


def test_index_columns_of_another_index_json_are_ignored(data_dir):
    store = cache_of(data_dir, 100)
    old = (data_dir / "index.columns").read_bytes()
    store.add_topic("Games", "ti:games")
    store.add_to_topic("Games", [p.id for p in recent_papers(100, per_day=40)[:7]])  # index.json written whole
    (data_dir / "index.columns").write_bytes(old)
    index = Store(data_dir).index()
    assert index.topics == ["Agents", "Games"] and sum(1 for mask in index.masks if mask & 2) == 7
    # index.json changed by hand (its time and size differ from the columns'): it is read, and
    # repaired when damaged, even with columns naming its token beside it
    text = (data_dir / "index.json").read_text()
    (data_dir / "index.json").write_text(text[: len(text) // 2])
    damaged = Store(data_dir)
    assert len(damaged.index()) == 100 and any("damaged" in w for w in damaged.warnings)


@pytest.mark.slow
def test_an_index_with_more_topics_than_a_mask_holds_is_read_from_json(data_dir):
    store = cache_of(data_dir, 100)
    papers = recent_papers(100, per_day=40)
    for n in range(64):
        store.add_topic(f"T{n}", f"ti:t{n}")
        store.save_papers(papers[n : n + 1], f"T{n}")
    store.add_to_topic("T0", [papers[99].id])  # index.json written whole: no columns for 65 topics
    assert not (data_dir / "index.columns").exists() or b'"T63"' not in (data_dir / "index.columns").read_bytes()
    index = Store(data_dir).index()
    assert len(index.topics) == 65 and index.topics_of(papers[63].id) == ["Agents", "T63"]


def test_a_listing_reads_the_index_columns_in_part_and_answers_as_from_json(data_dir, capsys):
    from reader.packed_ids import PackedIds
    from tests.conftest import run

    store = cache_of(data_dir, 300)
    store.add_topic("Games", "ti:games")
    store.add_to_topic("Games", [p.id for p in recent_papers(300, per_day=40)[::7]])  # written whole: no log
    whole = Store(data_dir).index()
    order = Store(data_dir).index_order()
    assert isinstance(order.ids, PackedIds) and not order.versions  # no string made per paper
    assert (list(order.ids), list(order.days), list(order.masks), order.topics) == (
        list(whole.ids),
        list(whole.days),
        list(whole.masks),
        whole.topics,
    )
    assert [order.locate(pid, day) for pid, day in zip(whole.ids[::13], whole.days[::13])] == list(range(0, 300, 13))
    assert order.ids[-1] == whole.ids[-1] and order.ids[5:8] == whole.ids[5:8]
    answers = []
    for _ in range(2):  # from the columns, then from index.json alone
        code, out, err = run(capsys, "list", "--query", "ti:the OR abs:learning", "--topic", "Games", "--limit", "20", "--json")
        assert code == 0, err
        answers.append(json.loads(out))
        (data_dir / "index.columns").unlink(missing_ok=True)
    assert answers[0] == answers[1] and len(answers[0]) > 5


def test_a_listing_reads_only_the_columns_it_needs_each_checked_alone(data_dir, monkeypatch):
    """Each column has its CRC: a listing's read leaves the versions and arrivals unread (a
    damaged version does not stop it), the whole read still refuses them; a damaged column a
    listing reads is refused by it too."""
    cache_of(data_dir, 100)
    path = data_dir / "index.columns"
    made_from = index_columns.made_from(path)
    assert made_from is not None
    whole = index_columns.read(path, *made_from)
    raw = path.read_bytes()
    path.write_bytes(spoiled_version(raw))
    order = index_columns.read_order(path, *made_from)
    assert order is not None and (list(order.ids), list(order.days), list(order.masks)) == (
        list(whole.ids),
        list(whole.days),
        list(whole.masks),
    )
    assert index_columns.read(path, *made_from) is None
    header, start = header_of(raw)
    masks_at = start + header["ids"] + 12 * header["papers"] + 3
    path.write_bytes(raw[:masks_at] + bytes([raw[masks_at] ^ 1]) + raw[masks_at + 1 :])
    assert index_columns.read_order(path, *made_from) is None


def test_index_columns_of_the_format_before_are_still_read(data_dir, capsys):
    from tests.conftest import run

    cache_of(data_dir, 120)
    path = data_dir / "index.columns"
    made_from = index_columns.made_from(path)
    expected = columns(index_columns.read(path, *made_from))
    code, out, _ = run(capsys, "list", "--query", "abs:learning", "--limit", "7", "--json")
    path.write_bytes(format_2(path.read_bytes()))
    assert index_columns.made_from(path) == made_from and columns(index_columns.read(path, *made_from)) == expected
    order = index_columns.read_order(path, *made_from)
    assert order is not None and list(order.ids) == expected[1]
    assert run(capsys, "list", "--query", "abs:learning", "--limit", "7", "--json")[:2] == (code, out) and code == 0
    assert index_columns.of_format_before(path)
    assert columns(Store(data_dir).index()) == expected  # the whole read writes it again in the new format
    assert not index_columns.of_format_before(path) and index_columns.made_from(path) == made_from
    assert columns(index_columns.read(path, *made_from)) == expected


@pytest.mark.parametrize(
    "words",
    [
        ("--query", "abs:learning AND cat:cs.SE"),
        ("--query", "abs:learning AND cat:cs.SE", "--limit", "5"),
        ("--query", "learning"),
        ("--query", "learning", "--limit", "3", "--topic", "Games"),
        ("--query", "zebra xylophone", "--limit", "10"),
        ("--limit", "4"),
    ],
    ids=["field", "field-limit", "words", "words-topic-limit", "nothing", "no-query"],
)
def test_a_listing_answers_alike_from_either_format_of_the_columns_and_from_json(data_dir, capsys, words):
    from tests.conftest import run

    store = cache_of(data_dir, 150)
    store.add_topic("Games", "ti:games")
    store.add_to_topic("Games", [p.id for p in recent_papers(150, per_day=40)[::5]])  # written whole: no log
    path = data_dir / "index.columns"
    format_3 = path.read_bytes()
    answers = []
    for columns_file in (format_3, format_2(format_3), None):  # format 3 read in part, format 2 whole, index.json alone
        if columns_file is None:
            path.unlink()
        else:
            path.write_bytes(columns_file)
        code, out, err = run(capsys, "list", *words, "--json")
        assert code == 0, err
        answers.append(json.loads(out))
    assert answers[0] == answers[1] == answers[2] and bool(answers[0]) == ("zebra xylophone" not in words)
