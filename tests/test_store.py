"""The cache: atomic files, separate user state, repair of damaged files, several processes."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os

import pytest

from reader.errors import StoreError, StoreLockedError
from reader.store import Marks, Store, index_files
from reader.store.data_dir import shard_of
from reader.store.files import file_lock, uncompressed
from reader.store.index_files import IndexFiles
from reader.store.shard_files import ShardFiles
from tests.corpus import recent_papers


def filled(data_dir, n=40):
    store = Store(data_dir)
    store.add_topic("T", "ti:x")
    store.save_papers(recent_papers(n), "T")
    return store


def test_marks_never_rewrite_the_paper_cache(data_dir):
    store = filled(data_dir)
    files = [data_dir / "index.json", *sorted((data_dir / "papers").glob("*.json"))]
    before = {f: f.stat().st_mtime_ns for f in files}
    paper_id = next(iter(store.index()))
    store.set_marks([paper_id], starred=True)
    store.set_marks([paper_id], read=True)
    assert {f: f.stat().st_mtime_ns for f in files} == before
    assert Store(data_dir).marks().starred == {paper_id}
    assert Store(data_dir).marks().read == {paper_id}


def test_newer_version_replaces_older_and_older_never_replaces_newer(data_dir):
    store = filled(data_dir, 5)
    paper = store.load_papers()[recent_papers(5)[0].id]
    newer = dataclasses.replace(paper, version=paper.version + 1, title="v-next")
    result = store.save_papers([newer])
    assert (result.new, result.updated) == (0, 1)
    older = dataclasses.replace(paper, title="stale")
    store.save_papers([older])
    assert store.load_papers()[paper.id].title == "v-next"
    assert store.index().topics_of(paper.id) == ["T"]


def test_a_failed_write_leaves_the_previous_file(data_dir, monkeypatch):
    store = filled(data_dir)
    paper_id = next(iter(store.index()))
    store.set_marks([paper_id], starred=True)
    before = (data_dir / "user.json").read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(StoreError, match="No space left on device"):
        store.set_marks([paper_id], starred=False)
    monkeypatch.undo()
    assert (data_dir / "user.json").read_bytes() == before
    assert not [p for p in data_dir.iterdir() if p.name.endswith(".tmp")]
    assert Store(data_dir).marks().starred == {paper_id}


def test_a_write_of_the_file_failing_leaves_its_copy_as_it_was(data_dir, monkeypatch):
    # The file and its copy are written at once: when the file's write fails (the change is not
    # saved), the copy that was written does not keep the change either.
    store = filled(data_dir)
    paper_id = next(iter(store.index()))
    store.set_marks([paper_id], starred=True)
    before = (data_dir / "user.json.bak").read_bytes()
    real_replace = os.replace

    def replace(src, dst):
        if str(dst).endswith("user.json"):
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(StoreError, match="No space left on device"):
        store.set_marks([paper_id], starred=False)
    monkeypatch.undo()
    assert (data_dir / "user.json.bak").read_bytes() == before
    (data_dir / "user.json").write_bytes(b"damaged")
    assert Store(data_dir).marks().starred == {paper_id}


def test_damaged_user_file_is_restored_from_the_last_good_copy(data_dir):
    store = filled(data_dir)
    paper_id = next(iter(store.index()))
    store.set_marks([paper_id], starred=True)
    Store(data_dir)  # a start refreshes the good copy
    (data_dir / "user.json").write_bytes(b'{"topics": {"1": {"na')
    store = Store(data_dir)
    assert any("user.json is damaged" in w and "restored" in w for w in store.warnings)
    assert store.marks().starred == {paper_id}
    assert [t.name for t in store.topics()] == ["T"]
    assert [p.name for p in data_dir.iterdir() if ".damaged-" in p.name]


DEEP_JSON = b'{"topics": {"1": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}"


def test_user_files_nested_thousands_deep_are_damaged_and_repaired(data_dir):
    store = filled(data_dir)
    paper_id = next(iter(store.index()))
    store.set_marks([paper_id], starred=True)
    store.set_tags([paper_id], add=["keep"])
    Store(data_dir)  # a start refreshes the good copies
    for name in ("user.json", "library.json", "sync.json", "index.json"):
        (data_dir / name).write_bytes(DEEP_JSON)
    store = Store(data_dir)
    assert store.marks().starred == {paper_id} and store.tags_of([paper_id])[paper_id] == ("keep",)
    assert len(store.index()) == 40 and [t.name for t in store.topics()] == ["T"]
    said = " ".join(store.warnings)
    assert "user.json is damaged (nested too deep)" in said and "library.json is damaged (nested too deep)" in said
    assert "sync.json is damaged (nested too deep)" in said and "index.json is damaged (nested too deep)" in said
    (data_dir / "user.json").write_bytes(DEEP_JSON)
    (data_dir / "user.json.bak").write_bytes(DEEP_JSON)
    store = Store(data_dir)
    assert any("its copy is damaged too" in w for w in store.warnings) and store.marks().starred == set()


def test_damaged_index_is_rebuilt_from_the_papers(data_dir):
    filled(data_dir, 30)
    (data_dir / "index.json").write_bytes(b"\x00garbage")
    store = Store(data_dir)
    assert len(store.index()) == 30
    assert any("index.json is damaged" in w for w in store.warnings)


def test_damaged_shard_loses_only_those_papers(data_dir):
    store = filled(data_dir, 30)
    shard = min((data_dir / "papers").glob("*.json"))
    shard.write_text("not json")
    store = Store(data_dir)
    papers = store.load_papers()
    assert any("damaged" in w for w in store.warnings)
    assert set(store.index()) == set(papers)  # the lost ones are forgotten, to be fetched again
    assert [t.name for t in store.topics()] == ["T"]


def test_newer_schema_is_refused(data_dir):
    filled(data_dir)
    data = json.loads((data_dir / "user.json").read_text())
    data["meta"] = {"1": {"schema": 99}}
    (data_dir / "user.json").write_text(json.dumps(data))
    with pytest.raises(StoreError, match="newer reader"):
        Store(data_dir)


def _star_many(data_dir, ids):
    store = Store(data_dir)
    for paper_id in ids:
        store.set_marks([paper_id], starred=True)


def test_two_processes_starring_at_once_lose_nothing(data_dir):
    store = filled(data_dir, 40)
    ids = list(store.index())
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_star_many, args=(data_dir, ids[i::2])) for i in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert all(w.exitcode == 0 for w in workers)
    assert Store(data_dir).marks().starred == set(ids)


def test_topics_unique_and_removal_keeps_papers_and_marks(data_dir):
    store = filled(data_dir, 10)
    with pytest.raises(StoreError, match="already a topic"):
        store.add_topic("t", "ti:y")
    paper_id = next(iter(store.index()))
    store.set_marks([paper_id], starred=True)
    store.remove_topic("T")
    assert store.topics() == []
    assert len(store.index()) == 10 and store.index().topics_of(paper_id) == []
    assert store.marks().starred == {paper_id}
    with pytest.raises(StoreError, match="no topic named"):
        store.remove_topic("T")


def test_unwritable_user_file_is_a_clear_error_and_loses_nothing(data_dir):
    store = filled(data_dir, 5)
    paper_id = next(iter(store.index()))
    before = (data_dir / "user.json").read_bytes()
    # The atomic write's temporary file cannot be created (works as root too, unlike chmod).
    (data_dir / f".user.json.{os.getpid()}.tmp").mkdir()
    with pytest.raises(StoreError, match="cannot write"):
        store.set_marks([paper_id], starred=True)
    assert (data_dir / "user.json").read_bytes() == before
    assert Store(data_dir).marks().starred == frozenset()


def test_search_texts_are_saved_per_shard_and_rebuilt_when_the_shard_changes(data_dir):
    import dataclasses

    from reader.core.query import parse
    from reader.core.scan import SearchBlock
    from reader.service.search_texts import shard_texts
    from tests.sample_papers import sample_papers

    store = Store(data_dir)
    papers = sample_papers(12)
    store.save_papers(papers, "T")
    shard = store.shards()[0]
    texts = shard_texts(store, shard)
    saved = store.shard_files.search_path(shard)
    assert saved.exists() and store.search_texts(shard) == texts
    stamp = saved.stat().st_mtime_ns
    assert shard_texts(store, shard) == texts and saved.stat().st_mtime_ns == stamp  # read back, not rebuilt
    renamed = dataclasses.replace(papers[0], version=papers[0].version + 1, title="Zebrafish navigation")
    store.save_papers([renamed], "T")
    assert store.search_texts(shard) is None  # the shard is newer: stale
    matched = SearchBlock(shard_texts(store, shard)).matching(parse("ti:zebrafish"))
    assert matched == {renamed.id}
    saved.write_text("{not json")
    assert store.search_texts(shard) is None and shard_texts(store, shard).keys() == texts.keys()


def test_changes_made_after_opening_survive_damage_to_user_file(data_dir):
    """The copy is current after every change, not only at start: damage loses nothing."""
    store = filled(data_dir, 10)
    ids = list(store.index())
    store.set_marks(ids[:2], starred=True)
    store.add_topic("Later", "ti:later")
    store.set_setting("theme", "nord")
    (data_dir / "user.json").write_bytes(b'{"marks": {"1": {"kind": "read", "ids": [')
    store.set_marks([ids[2]], starred=True)  # the same process writes on: repaired first, from the copy
    assert any("restored" in w for w in store.warnings)
    again = Store(data_dir)
    assert again.marks().starred == set(ids[:3])
    assert [t.name for t in again.topics()] == ["T", "Later"] and again.setting("theme") == "nord"


@pytest.mark.parametrize("victim", ["user.json", "user.json.bak"])
@pytest.mark.parametrize("how", ["garbage", "deleted"])
def test_either_copy_of_user_state_alone_is_enough(data_dir, victim, how):
    store = filled(data_dir, 10)
    ids = list(store.index())
    store.set_marks(ids[:4], read=True)
    store.set_marks(ids[1:2], starred=True)
    path = data_dir / victim
    if how == "deleted":
        path.unlink()
    else:
        path.write_bytes(b"\x00\xff garbage")
    store = Store(data_dir)
    assert store.marks() == Marks(frozenset(ids[:4]), frozenset(ids[1:2]))
    assert [t.name for t in store.topics()] == ["T"]
    assert (data_dir / "user.json").read_bytes() == (data_dir / "user.json.bak").read_bytes()
    silent = victim == "user.json.bak" and how == "deleted"  # simply written again
    assert bool(store.warnings) is not silent


def test_a_change_reads_what_another_process_wrote(data_dir):
    """A store keeps user.json in memory between changes; another process's write must count."""
    first = filled(data_dir, 10)
    ids = list(first.index())
    first.set_marks([ids[0]], starred=True)
    Store(data_dir).set_marks([ids[1]], starred=True)
    first.set_marks([ids[2]], starred=True)
    assert Store(data_dir).marks().starred == set(ids[:3])
    assert first.marks().starred == set(ids[:3])


def test_names_with_control_characters_are_refused(data_dir):
    store = Store(data_dir)
    with pytest.raises(StoreError, match="control characters"):
        store.add_topic("Red\x1b[31m", "ti:x")
    with pytest.raises(StoreError, match="not valid Unicode"):
        store.add_topic("bad \udcff", "ti:x")
    assert store.add_topic("  Two   words ", "ti:x").name == "Two words"


def test_a_directory_holding_other_files_is_not_taken_for_a_data_directory(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="not a reader data directory"):
        Store(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_load_paper_reads_one_record_and_is_not_fooled_by_text(data_dir):
    papers = recent_papers(3)
    decoy = dataclasses.replace(papers[0], title=f'{{"id":"{papers[1].id}","version":9}} and more')
    store = Store(data_dir)
    store.save_papers([decoy, *papers[1:]])
    assert store.load_paper(papers[1].id) == store.load_papers()[papers[1].id]
    assert store.load_paper(decoy.id).title == decoy.title
    assert store.load_paper("2609.99999") is None


def test_a_few_papers_of_a_shard_are_decoded_alone_and_many_or_odd_ones_with_their_shard(data_dir, monkeypatch):
    store = filled(data_dir, 40)
    every = store.load_papers()
    ids = list(every)
    wanted = [ids[3], ids[0], ids[17], "2609.99999"]  # one the cache does not hold
    assert store.papers_by_id(wanted) == {pid: every[pid] for pid in wanted[:3]}

    read_whole = []
    real = ShardFiles.read_docs
    monkeypatch.setattr(ShardFiles, "read_docs", lambda self, shard: read_whole.append(shard) or real(self, shard))
    few = [pid for pid in ids if shard_of(pid) == shard_of(ids[0])][:5]
    assert store.papers_by_id(few) == {pid: every[pid] for pid in few} and read_whole == []
    many = [pid for pid in ids if shard_of(pid) == shard_of(ids[0])]
    monkeypatch.setattr("reader.store.store.FEW_RECORDS", 2)
    assert store.papers_by_id(many) == {pid: every[pid] for pid in many} and read_whole == [shard_of(ids[0])]


def test_a_record_the_index_in_memory_lists_is_read_without_reading_the_index_again(data_dir, monkeypatch):
    # The detail view reads records while a sync (another process) rewrites index.json.
    app = filled(data_dir, 10)
    known = recent_papers(10)[3]
    fresh = recent_papers(5, id_base=20000)
    Store(data_dir).save_papers(fresh, "T")
    expected = Store(data_dir).load_papers()
    reads = []
    read_index = IndexFiles._read_index_json
    monkeypatch.setattr(IndexFiles, "_read_index_json", lambda self: reads.append("whole") or read_index(self))
    read_order = index_files.check_index_order
    monkeypatch.setattr(index_files, "check_index_order", lambda text: reads.append("order") or read_order(text))
    assert app.load_paper(known.id) == expected[known.id] and reads == []
    # Not known yet: the other process's save is read from the index's log, not index.json.
    assert app.load_paper(fresh[0].id) == expected[fresh[0].id] and reads == []
    # A command, with no index loaded, finds it from index.columns (no JSON decoded)...
    assert Store(data_dir).papers_by_id([fresh[0].id]) == {fresh[0].id: expected[fresh[0].id]} and reads == []
    # ... or, without them, in the index's order and days alone.
    (data_dir / "index.columns").unlink()
    assert Store(data_dir).papers_by_id([fresh[0].id]) == {fresh[0].id: expected[fresh[0].id]} and reads == ["order"]


@pytest.mark.parametrize("cut", [40, 41, 42, 43, 200, 1_000_000])
def test_load_paper_reads_a_record_longer_than_its_first_bytes(data_dir, monkeypatch, cut):
    # load_paper decodes a record's first bytes only (a cut may fall inside a character, or
    # inside the record: then it reads on): every record comes back whole, as the shard holds it.
    from reader.models import Paper
    from reader.store import files
    from reader.store.data_dir import shard_of

    monkeypatch.setattr(files, "_RECORD_BYTES", cut)
    papers = [dataclasses.replace(p, title="Über ✓ " * (i + 1), abstract="é€😀 " * 50) for i, p in enumerate(recent_papers(3))]
    store = Store(data_dir)
    store.save_papers(papers)
    every = store.load_papers()
    for paper in papers:
        found = files.find_document(store.shard_file(shard_of(paper.id)), "id", paper.id)
        assert found is not None and Paper.from_json(found) == every[paper.id] == store.load_paper(paper.id)


def test_index_json_decoded_a_column_at_a_time_equals_it_decoded_whole(data_dir):
    from reader.store.schema import index_document

    store = Store(data_dir)
    assert store.index().ids == []
    store.add_topic("T", "ti:x")
    store.save_papers(recent_papers(30), "T")
    text = (data_dir / "index.json").read_text()
    assert index_document(text) == json.loads(text)
    without_arrivals = text.replace(',"arrived":[' + text.split(',"arrived":[')[1].split("]")[0] + "]", "")
    assert "arrived" not in without_arrivals and index_document(without_arrivals) == json.loads(without_arrivals)
    assert index_document(json.dumps(json.loads(text), indent=1)) is None  # not the store's form: decoded whole
    assert index_document(text.replace('"days":[', '"days":[1,,')) is None


def test_files_encoded_a_slice_at_a_time_are_the_bytes_of_one_encoding(data_dir, monkeypatch):
    import reader.cache_index
    import reader.store.shard_files

    monkeypatch.setattr(reader.store.shard_files, "SHARD_SLICE", 4)  # 30 papers: many slices per shard
    monkeypatch.setattr(reader.cache_index, "JSON_SLICE", 7)  # and per index column
    store = filled(data_dir, 30)
    files = [data_dir / "index.json", *sorted((data_dir / "papers").glob("*.json"))]
    assert len(files) > 1
    for path in files:
        raw = uncompressed(path.read_bytes(), path)  # (a shard of a past month is kept compressed)
        assert json.dumps(json.loads(raw), ensure_ascii=False, separators=(",", ":")).encode() == raw
    assert [p.id for p in Store(data_dir).load_papers().values()] == [p.id for p in recent_papers(30)]
    assert list(store.index().ids) == list(Store(data_dir).index().ids)


def test_index_order_holds_the_whole_index_ids_and_topics(data_dir):
    store = filled(data_dir, 30)
    store.add_topic("U", "ti:y")
    store.save_papers(recent_papers(45)[10:], "U")  # papers of both topics, of one, and new ones
    whole = Store(data_dir).index()
    order = Store(data_dir).index_order()
    assert (order.topics, list(order.ids), order.days, list(order.masks)) == (whole.topics, list(whole.ids), whole.days, list(whole.masks))
    assert set(whole.masks) == {1, 2, 3}
    assert list(order.versions) == list(whole.versions)  # from index.columns: the whole index, as fast
    (data_dir / "index.columns").unlink()
    order = Store(data_dir).index_order()
    assert (order.topics, list(order.ids), order.days, list(order.masks)) == (whole.topics, list(whole.ids), whole.days, list(whole.masks))
    assert not order.versions and not any(order.arrived)  # from index.json: without decoding the other columns
    store.index()
    assert store.index_order().versions == store.index().versions  # already loaded: the whole one


def test_user_json_is_the_same_bytes_whether_its_read_marks_were_encoded_again_or_kept(data_dir):
    # The read marks' JSON is kept between writes that leave them as they were (a star, a hide,
    # a setting); the file must be what encoding the whole document would give, after every change.
    papers = recent_papers(30)
    store = Store(data_dir)
    store.add_topic("Agents", "ti:agent")
    store.save_papers(papers, "Agents")
    ids = [p.id for p in papers]
    first_ten, without_two = set(ids[:10]), set(ids[:10]) - set(ids[5:7])
    changes = [  # each change, and the read marks after it
        (lambda: store.set_marks(ids[:10], read=True), first_ten),
        (lambda: store.set_marks(ids[:3], starred=True), first_ten),  # read marks kept
        (lambda: store.set_marks(ids[5:7], read=False), without_two),
        (lambda: store.set_marks(ids[20:22], hidden=True), without_two),  # kept
        (lambda: store.set_setting("sort", '"weird" "encoded-00-0" \\u0000 text'), without_two),  # looks like a stand-in
        (lambda: store.set_marks(ids[5:7], read=True), first_ten),  # back as they were two changes ago
        (lambda: store.record_visit("app"), first_ten),
    ]
    for change, read in changes:
        change()
        raw = (data_dir / "user.json").read_bytes()
        assert json.dumps(json.loads(raw), ensure_ascii=False, separators=(",", ":")).encode() == raw
        assert Store(data_dir).marks().read == read  # a fresh reader parses it whole
    assert Store(data_dir).marks().read == set(ids[:10])
    assert Store(data_dir).setting("sort") == '"weird" "encoded-00-0" \\u0000 text'
    assert (data_dir / "user.json.bak").read_bytes() == (data_dir / "user.json").read_bytes()


def test_a_helper_process_store_leaves_the_user_files_and_their_locks_alone(data_dir, monkeypatch):
    # The sync and ranking processes open the store for papers only: were they to check user
    # state at open, they would take its lock and delay the app's next star (by 20 ms, measured).
    filled(data_dir)
    monkeypatch.setattr("reader.store.store.LOCK_WAIT_SECONDS", 0.05)
    with file_lock(data_dir / ".user.lock", wait=0, what="held"), file_lock(data_dir / ".library.lock", wait=0, what="held"):
        store = Store(data_dir, check_user_files=False)
        assert len(store.index()) == 40
        with pytest.raises(StoreLockedError):
            Store(data_dir)  # the app's open checks them, so it waits for their locks
