"""The search index answers exactly as the scan evaluator (core/scan.py, the reference), stays
current as shards change, and repairs itself: it is derived data, rebuilt when missing, stale,
from another format or damaged."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import sqlite3
import threading
from itertools import islice
from pathlib import Path

import pytest

from reader import search_index
from reader.cli import main
from reader.core.query import parse, search_text
from reader.core.scan import SearchBlock
from reader.core.text import word_string
from reader.models import Author
from reader.packed_ids import IdTable
from reader.search_index import PARTITIONS, SearchIndex, SearchIndexError, partition, processes
from reader.search_index.rows import prose
from reader.store import Store
from reader.store.data_dir import shard_of
from tests.helpers.timing import scaled
from tests.sample_papers import sample_papers
from tests.search_index_corpus import (
    fixture_papers,
    generated_queries,
    made_papers,
    suite_queries,
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A store of every fixture paper and the made ones, its index, and the scan over the same papers."""
    data_dir = tmp_path_factory.mktemp("corpus")
    store = Store(data_dir)
    papers = fixture_papers()
    store.save_papers(papers + made_papers(papers[0]))
    index = SearchIndex.open(data_dir)
    assert index.refresh(store) == len(store.index())
    stored = store.load_papers()
    yield store, index, stored
    index.close()


_blocks: dict[int, tuple[object, SearchBlock]] = {}  # the papers kept alive: their id stays theirs
_answers: dict[tuple[int, str], set[str]] = {}  # several tests ask every suite query of the corpus


def scan(papers, query, notes=None):
    """The reference answer: the scan evaluator over the same papers."""
    key = id(papers)
    if notes is not None:
        return SearchBlock({p.id: search_text(p) for p in papers.values()}, notes).matching(parse(query, implicit_and=True))
    if (key, query) not in _answers:
        if key not in _blocks:
            _blocks[key] = (papers, SearchBlock({p.id: search_text(p) for p in papers.values()}))
        _answers[key, query] = _blocks[key][1].matching(parse(query, implicit_and=True))
    return _answers[key, query]


def ordered(index, query, order, ranked=False):
    """The index's answer in a list's order (what the app's list shows; `ranked`: For you's)."""
    return list(index.ordered(parse(query, implicit_and=True), order, IdTable(order), ranked=ranked))


@pytest.mark.slow
def test_every_query_of_the_test_suite_matches_as_the_scan_does(corpus):
    store, index, papers = corpus
    queries = suite_queries()
    assert len(queries) > 100
    differ = [q for q in queries if index.matching(parse(q, implicit_and=True)) != scan(papers, q)]
    assert differ == []
    order = store.index().ids
    unordered = [q for q in queries if ordered(index, q, order) != [pid for pid in order if pid in scan(papers, q)]]
    assert unordered == []


@pytest.mark.slow
def test_generated_queries_over_every_field_and_operator_match_as_the_scan_does(corpus):
    store, index, papers = corpus
    queries = generated_queries(list(papers.values()), 600)
    answers = [(q, index.matching(parse(q, implicit_and=True)), scan(papers, q)) for q in queries]
    assert [q for q, got, expected in answers if got != expected] == []
    # in a list's order, also a list of some of the papers only (the others are left out), and
    # in a ranking's order, unrelated to the rows' (For you's: answered by numpy, not sorted)
    catalog = store.index().ids
    shuffled = random.Random(3).sample(catalog, len(catalog))
    for order, ranked in ((catalog, False), (catalog[::3], False), (shuffled, False), (shuffled, True), (shuffled[::3], True)):
        differ = [q for q, _, expected in answers if ordered(index, q, order, ranked) != [pid for pid in order if pid in expected]]
        assert differ == []
    # the comparison is not vacuous: many queries match something, few match everything
    assert sum(1 for _, got, _ in answers if 0 < len(got) < len(papers)) > len(queries) // 3


@pytest.mark.parametrize(
    "query, expected",
    [
        ("au:del_maestro", {"2609.90001"}),
        ("ti:schrodinger AND ti:ecole", {"2609.90001"}),
        ("abs:angstrom AND abs:naive", {"2609.90001"}),
        ('ti:"量子 计算" AND ti:α', {"2609.90002"}),
        ("abs:квантовые AND abs:ωmega", {"2609.90002"}),
        ("au:张伟 OR au:lukasz", {"2609.90002"}),
        ('au:"smith bob"', set()),  # a phrase never runs from one author into the next
        ("cat:cond-mat.str-el AND cat:68t05", {"2609.90001"}),
        ('cat:"bad cat"', {"2609.90002"}),
        ("id:hep-th/9901001v1", {"hep-th/9901001"}),
        ("id:math.gt/0309136 AND cat:math", {"math.GT/0309136"}),
        ("all:cs.ai", {"math.GT/0309136"}),  # the words `cs ai` (its abstract), not the category code
        ("all:cs.ai ANDNOT abs:cs", set()),
        ("co:cs AND co:ai", {"math.GT/0309136"}),
        ("au:alvaro AND au:gunther", {"math.GT/0309136"}),
        ("abs:x4e2dx", {"2609.90001"}),
    ],
)
def test_hard_cases_by_name(corpus, query, expected):
    _store, index, papers = corpus
    made = {p.id for p in made_papers(next(iter(papers.values())))}
    assert index.matching(parse(query, implicit_and=True)) & made == expected
    assert scan(papers, query) & made == expected


def test_cards_show_what_a_list_needs(corpus):
    _store, index, papers = corpus
    ids = list(papers)[:50] + ["2609.90001", "0000.00000"]
    cards = index.cards(ids)
    assert set(cards) == set(ids) - {"0000.00000"}
    card = cards["2609.90001"]
    paper = papers["2609.90001"]
    assert (card.id, card.version, card.primary_category, card.published, card.title) == (
        paper.id,
        paper.version,
        "cond-mat.str-el",
        paper.published[:10],
        paper.title,
    )
    assert card.authors == ("Adrian Del Maestro", "José Ñúñez") and card.author_count == 2
    assert card.affiliations == ("Vermont", "UNAM") and card.affiliation_count == 2
    many = max(papers.values(), key=lambda p: len(p.authors))
    assert len(many.authors) > 3
    big = index.cards([many.id])[many.id]
    assert big.authors == tuple(a.name for a in many.authors[:3]) and big.author_count == len(many.authors)
    assert big.abstract == many.abstract[:500]


def filled(data_dir, n=40):
    store = Store(data_dir)
    store.save_papers(sample_papers(n))
    index = SearchIndex.open(data_dir)
    index.refresh(store)
    return store, index


def ids(index, query):
    return index.matching(parse(query, implicit_and=True))


@pytest.mark.parametrize("together", [partition.INSERTED_TOGETHER, 1])
def test_changed_shards_are_reindexed_and_only_changed_papers_replaced(data_dir, monkeypatch, together):
    # together=1: rows inserted after each shard (a large build does so every few shards)
    monkeypatch.setattr(partition, "INSERTED_TOGETHER", together)
    store, index = filled(data_dir)
    assert index.refresh(store) == 0  # nothing changed: nothing read
    papers = sample_papers(40)
    before = ids(index, "ti:credit")
    order = store.index().ids
    assert ordered(index, "ti:assignment", order) == [pid for pid in order if pid in before]
    newer = dataclasses.replace(papers[1], version=papers[1].version + 1, title="Zebrafish credit")
    store.save_papers([newer, *papers[2:6]])  # four unchanged papers saved again beside it
    assert index.refresh(store) == 1
    assert ids(index, "ti:zebrafish") == {newer.id}
    assert ids(index, "ti:credit") == before
    assert ids(index, "ti:assignment") == before - {newer.id}
    # answers in a list's order follow the change too (its old row is stale: left out)
    for ranked in (False, True):
        assert ordered(index, "ti:zebrafish", order, ranked) == [newer.id]
        assert ordered(index, "ti:assignment", order, ranked) == [pid for pid in order if pid in before - {newer.id}]
    assert index.cards([newer.id])[newer.id].version == newer.version


def test_a_shard_that_is_gone_is_forgotten(data_dir):
    store, index = filled(data_dir)
    everything = ids(index, "ti:the OR abs:the")
    shard = store.shards()[0]
    store.shard_file(shard).unlink()
    index.refresh(store, shards=[s for s in store.shards()])  # told about some shards: forgets nothing
    assert ids(index, "ti:the OR abs:the") == everything
    index.refresh(store)
    left = {pid for pid in everything if not pid.startswith(shard.split(".")[0]) or pid in store.load_papers()}
    assert ids(index, "ti:the OR abs:the") == left < everything


@pytest.mark.parametrize("damage", ["garbage", "truncated", "old format", "not our tables", "missing"])
def test_a_damaged_or_missing_index_is_rebuilt(data_dir, damage):
    store, index = filled(data_dir)
    expected = ids(index, "ti:testing ANDNOT ti:wild")
    assert expected
    index.close()
    path = index.paths[0]
    if damage == "garbage":
        path.write_bytes(b"not a database at all" * 1000)
    elif damage == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2] + b"\0" * 4096)
    elif damage == "old format":
        with sqlite3.connect(path) as db:
            db.execute("PRAGMA user_version = 0")
    elif damage == "not our tables":
        with sqlite3.connect(path) as db:
            db.execute("DELETE FROM meta")
            db.execute("DROP TABLE cards")
    else:
        for part in index.paths:
            part.unlink()
    reopened = SearchIndex.open(data_dir)
    if damage == "truncated":  # seen by a reader first: an error, then the next refresh repairs it
        with pytest.raises(SearchIndexError):
            for _ in range(3):
                ids(reopened, "ti:testing ANDNOT ti:wild")
                ids(reopened, "au:smith OR abs:the")
    reopened.refresh(store)
    assert ids(reopened, "ti:testing ANDNOT ti:wild") == expected


def test_an_index_of_the_format_before_stems_is_rebuilt_with_them(data_dir, monkeypatch):
    """Partitions written before words were stemmed (FTS5's plain `ascii` tokenizer, format 2)
    are rebuilt by the next refresh: then `ti:agent` finds the titles saying "Agents"."""
    current = partition.FORMAT
    monkeypatch.setattr(partition, "FORMAT", 2)
    monkeypatch.setattr(
        partition,
        "_SCHEMA",
        partition._SCHEMA.replace("'porter ascii'", "'ascii'").replace(f"user_version = {current}", "user_version = 2"),
    )
    store, index = filled(data_dir)
    assert ids(index, "ti:agent") == set()  # the old words: no stems
    index.close()
    monkeypatch.undo()
    reopened = SearchIndex.open(data_dir)
    reopened.refresh(store)
    with sqlite3.connect(reopened.paths[0]) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == partition.FORMAT
    agents = {p.id for p in sample_papers(40) if "Agents" in p.title}
    assert agents and ids(reopened, "ti:agent") == ids(reopened, "ti:agents") == agents
    reopened.close()


def test_an_index_rebuilt_in_place_gives_its_old_pages_back(data_dir, monkeypatch, tmp_path):
    """A partition of another format is rebuilt in its file: the old rows' pages, left free,
    are given back (the file no larger than a first build's), not kept in the file."""
    current = partition.FORMAT
    monkeypatch.setattr(partition, "FORMAT", current - 1)
    monkeypatch.setattr(partition, "_SCHEMA", partition._SCHEMA.replace(f"user_version = {current}", f"user_version = {current - 1}"))
    store, index = filled(data_dir)
    index.close()
    for path in index.paths:  # an older format's rows, larger than the new ones
        with sqlite3.connect(path) as db:
            db.execute("UPDATE cards SET title = title || hex(randomblob(3000))")
    monkeypatch.undo()
    monkeypatch.setattr(partition, "FREE_PAGES", 0)  # (the test's partitions are small)
    reopened = SearchIndex.open(data_dir)
    reopened.refresh(store)
    first = SearchIndex(tmp_path / "first")
    first.refresh(store)
    for rebuilt, built in zip(reopened.paths, first.paths):
        with sqlite3.connect(rebuilt) as db:
            assert db.execute("PRAGMA user_version").fetchone()[0] == partition.FORMAT
            assert db.execute("PRAGMA freelist_count").fetchone()[0] == 0
        assert rebuilt.stat().st_size <= built.stat().st_size
    assert ids(reopened, "ti:testing ANDNOT ti:wild") == ids(first, "ti:testing ANDNOT ti:wild")
    reopened.close()
    first.close()


def test_notes_are_searched_like_the_scan_searches_them(data_dir):
    store, index = filled(data_dir)
    papers = store.load_papers()
    some = list(papers)
    notes = {some[0]: "Read for the Zürich seminar", some[7]: "seminar notes: credit assignment", "2501.00001": "not cached"}
    assert index.set_notes(store, notes) == 3
    for query in ["note:zurich", "seminar", 'all:"zurich seminar"', "note:credit AND ti:credit", "credit ANDNOT note:seminar"]:
        assert ids(index, query) == scan(papers, query, notes), query
    assert ids(index, "note:seminar") == {some[0], some[7]}
    assert index.set_notes(store, {some[0]: "Read for the Zürich seminar"}) == 2
    assert ids(index, "note:seminar") == {some[0]}
    assert index.set_notes(store, {some[0]: "Read for the Zürich seminar"}) == 0
    # a note survives a re-index of its paper's shard
    changed = dataclasses.replace(papers[some[0]], version=9, authors=(Author("New Author"),))
    store.save_papers([changed])
    index.refresh(store)
    assert ids(index, "note:zurich AND au:new") == {some[0]}


def test_readers_in_other_threads_see_the_old_or_the_new_answer(data_dir):
    store, index = filled(data_dir, 200)
    old = ids(index, "abs:agents")
    newer = [dataclasses.replace(p, version=p.version + 1, abstract="Nothing about those now.") for p in sample_papers(200)[::2]]
    seen, errors, done = [], [], threading.Event()

    def read():
        while not done.is_set():
            try:
                seen.append(frozenset(ids(index, "abs:agents")))
            except Exception as error:  # noqa: BLE001 - any error fails the test below
                errors.append(error)

    readers = [threading.Thread(target=read) for _ in range(2)]
    for thread in readers:
        thread.start()
    store.save_papers(newer)
    index.refresh(store)
    new = ids(index, "abs:agents")
    done.set()
    for thread in readers:
        thread.join()
    assert errors == [] and seen and new < old

    def part(found, n):
        return {pid for pid in found if search_index.partition_of(shard_of(pid)) == n}

    # A refresh shows partition by partition (as a sync writes shard by shard), each all at once.
    for found in set(seen):
        assert all(part(found, n) in (part(old, n), part(new, n)) for n in range(PARTITIONS))


def test_closing_while_other_threads_query_and_refresh_stops_them_cleanly(data_dir):
    # Closing a connection that another thread is using crashes the process (an app quit while
    # its start-up refresh ran did, one exit in three): close interrupts and waits instead.
    store, index = filled(data_dir, 400)
    outcomes, started = [], threading.Barrier(3)

    def keep(call):
        started.wait()
        try:
            while True:
                call()
        except SearchIndexError as error:
            outcomes.append(str(error))

    def refresh():
        store.save_papers([dataclasses.replace(p, version=p.version + 1) for p in sample_papers(400)[::3]])
        index.refresh(store)

    threads = [threading.Thread(target=keep, args=(call,)) for call in (lambda: ids(index, "abs:agents OR au:smith"), refresh)]
    for thread in threads:
        thread.start()
    started.wait()
    index.close()
    for thread in threads:
        thread.join(timeout=scaled(30))
    assert not any(thread.is_alive() for thread in threads)
    assert len(outcomes) == 2 and all("closed" in outcome or "interrupted" in outcome for outcome in outcomes)
    with pytest.raises(SearchIndexError, match="closed"):
        ids(index, "abs:agents")


def test_a_large_refresh_builds_partitions_in_processes(data_dir, monkeypatch):
    monkeypatch.setattr(processes, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(processes.os, "cpu_count", lambda: 2)
    store = Store(data_dir)
    store.save_papers(sample_papers(400, per_day=1))
    assert len({search_index.partition_of(s) for s in store.shards()}) > 1
    index = SearchIndex.open(data_dir)
    assert index.refresh(store) == 0  # every paper indexed by a child process
    papers = store.load_papers()
    for query in ["ti:testing", "abs:agents ANDNOT cat:cs.LG", "au:smith OR au:weber", "credit assignment"]:
        assert ids(index, query) == scan(papers, query)
    assert len(index.paths) == PARTITIONS and all(p.exists() for p in index.paths)


def test_cli_list_query_prints_from_cards_what_records_print(data_dir, capsys):
    store = Store(data_dir)
    papers = sample_papers(60)
    store.save_papers(papers)
    store.set_marks([papers[2].id], starred=True)
    store.set_marks([papers[3].id], read=True)
    assert main(["--data-dir", str(data_dir), "list"]) == 0
    everything = capsys.readouterr().out.splitlines()
    assert main(["--data-dir", str(data_dir), "list", "--query", "testing ANDNOT wild", "--limit", "7"]) == 0
    listed = capsys.readouterr().out.splitlines()
    wanted = [p.id for p in papers if "testing" in p.title.lower() and "wild" not in p.title.lower()][:7]
    assert len(wanted) == 7 and len(listed) == 14
    assert [line.split()[2][: -len("v1")] for line in listed[::2]] == wanted
    # each paper's two lines are the same as the plain listing's (made from the full records)
    pairs = {everything[i]: everything[i + 1] for i in range(0, len(everything), 2)}
    assert all(pairs[listed[i]] == listed[i + 1] for i in range(0, len(listed), 2))
    # a later sync's papers are found at once: each run brings the index up to date
    store.save_papers([dataclasses.replace(papers[0], id="2612.29999", title="Zebrafish testing")])
    assert main(["--data-dir", str(data_dir), "list", "--query", "zebrafish", "--json"]) == 0
    assert [row["id"] for row in json.loads(capsys.readouterr().out)] == ["2612.29999"]


def test_a_first_build_is_linked_into_place_whole_and_never_replaces_another(data_dir):
    store = Store(data_dir)
    store.save_papers(sample_papers(120, per_day=3))
    index = SearchIndex.open(data_dir)
    index.refresh(store)
    # Built without a journal, then switched to WAL so that readers and writers can share it.
    assert all(sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal" for path in index.paths)
    path = index.paths[0]
    shards = {s: store.shard_file(s) for s in store.shards() if search_index.partition_of(s) == 0}
    # A partition that appeared while this build ran (another process's) is kept as it is.
    before = (path.stat().st_ino, path.read_bytes())
    assert search_index.partition.build_new(path, shards) == 0
    assert (path.stat().st_ino, path.read_bytes()) == before
    # A build whose process died leaves a half-written file: the next build removes it; a build
    # under way in a live process (here: our parent's pid) is left alone.
    abandoned = path.with_name(path.name + ".new-999999999")
    abandoned.write_bytes(b"half a database")
    running = path.with_name(f"{path.name}.new-{os.getppid()}")
    running.write_bytes(b"a build under way")
    search_index.partition.remove(path)
    assert search_index.partition.build_new(path, shards) == sum(len(store.load_papers([s])) for s in shards)
    assert not abandoned.exists() and running.exists()
    assert sorted(p.name for p in index.directory.iterdir() if ".new-" in p.name) == [running.name]
    assert ids(index, "ti:testing") == scan(store.load_papers(), "ti:testing")
    index.close()


def test_a_build_gives_each_core_one_process_and_about_the_same_bytes(tmp_path):
    work = []
    for part, size in enumerate([500, 400, 300, 200, 100]):
        shard = tmp_path / f"shard{part}.json"
        work.append((size, tmp_path / f"part{part}.sqlite3", {f"shard{part}": shard}))
    shares = processes.shares(work, 2)
    assert [sorted(Path(path).name for path in share) for share in shares] == [
        ["part0.sqlite3", "part3.sqlite3", "part4.sqlite3"],
        ["part1.sqlite3", "part2.sqlite3"],
    ]
    assert shares[1][str(tmp_path / "part1.sqlite3")] == {"shard1": str(tmp_path / "shard1.json")}
    assert len(processes.shares(work[:1], 2)) == 1


@pytest.mark.parametrize(
    "text",
    [
        "Schrödinger’s “cat” – 中文字 αβ-γ",
        "a_b\u00a0c",
        "ǅemal İstanbul ﬁne",
        "x\u0903y Ⅻ ½ ²",
        'e\u0301t\u00e9 Schr\\"{o}dinger \\o{} \\alpha-stable',
        "Łódź—Kraków…",
        "plain ascii, only",
    ],
)
def test_a_word_column_holds_the_words_the_scan_sees(text):
    in_column = prose(text)
    assert in_column.isascii()  # SQLite's ascii tokenizer: letters and digits, split at the rest
    assert re.findall("[a-z0-9]+", in_column.lower()) == word_string(text).split()


def _catalog(store, hidden=(), starred=(), order_only=False):
    from reader.core.catalog import Catalog

    return Catalog(store.index_order() if order_only else store.index(), (), starred, hidden)


@pytest.mark.slow
def test_a_limited_query_is_the_first_n_of_the_scan_in_catalog_order(corpus, monkeypatch):
    """`reader list --query Q --limit N`: every query of the test suite, a few limits and
    filters, each answered whole in the partitions and walked down the date index."""
    from reader.commands.common import selected_ids
    from reader.search_index import newest

    store, index, papers = corpus
    order = store.index().ids
    hidden, starred = set(order[1::9]), set(order[::4])
    plain, marked, by_map = _catalog(store), _catalog(store, hidden, starred), _catalog(store, hidden, starred, order_only=True)
    shown_starred, only_hidden = marked.select(starred=True), marked.select(hidden=True)
    answers = [(parse(q, implicit_and=True), [pid for pid in order if pid in scan(papers, q)]) for q in suite_queries()]
    for walked in (False, True):
        if walked:  # small pages: the corpus is walked a few rows at a time
            monkeypatch.setattr(newest, "WALK_FROM", 1)
            monkeypatch.setattr(newest, "FIRST_PAGE", 2)
        differ = []
        for node, expected in answers:
            matched = set(expected)
            if selected_ids(plain, query=node, index=index, limit=1) != expected[:1]:
                differ.append((node, 1))
            if selected_ids(plain, query=node, index=index, limit=25) != expected[:25]:
                differ.append((node, 25))
            catalog = by_map if walked else marked
            if selected_ids(catalog, query=node, index=index, limit=7, starred=True) != [p for p in shown_starred if p in matched][:7]:
                differ.append((node, "starred"))
            if selected_ids(catalog, query=node, index=index, limit=5, hidden=True) != [p for p in only_hidden if p in matched][:5]:
                differ.append((node, "hidden"))
        assert differ == []
    assert sum(1 for _, expected in answers if len(expected) > 25) > 50  # limits that cut


def test_a_limited_query_reads_only_the_pages_it_needs(corpus, monkeypatch):
    from reader.search_index import newest

    monkeypatch.setattr(newest, "WALK_FROM", 1)
    monkeypatch.setattr(newest, "FIRST_PAGE", 2)
    store, index, papers = corpus
    node = parse("cat:cs OR cat:math OR cat:cond OR cat:quant OR cat:stat", implicit_and=True)
    matched = index.matching(node)
    assert len(matched) > 100
    pages: list[int] = []
    taken = list(islice(index.newest(node, pages), 3))
    assert [pid for pid, _ in taken] == [pid for pid in store.index().ids if pid in matched][:3]
    assert sum(pages) <= 16 < len(matched)  # a page or two from each partition, not the whole answer
    taken += list(index.newest(node))
    assert len(taken) == 3 + len(matched)


def test_cli_list_query_with_a_limit_never_makes_the_whole_answer(data_dir, capsys, monkeypatch):
    store = Store(data_dir)
    papers = sample_papers(60)
    store.save_papers(papers)
    wanted = [p.id for p in papers if "testing" in p.title.lower()][:4]

    def whole_answer(*args, **kwargs):
        raise AssertionError("the whole answer was made")

    monkeypatch.setattr(SearchIndex, "matching", whole_answer)
    monkeypatch.setattr(SearchIndex, "ordered", whole_answer)
    assert main(["--data-dir", str(data_dir), "list", "--query", "testing", "--limit", "4", "--json"]) == 0
    assert [row["id"] for row in json.loads(capsys.readouterr().out)] == wanted
    assert main(["--data-dir", str(data_dir), "list", "--query", "testing", "--limit", "4"]) == 0
    assert [line.split()[2][: -len("v1")] for line in capsys.readouterr().out.splitlines()[::2]] == wanted


def test_a_first_build_killed_midway_keeps_the_finished_partitions(data_dir, monkeypatch):
    # Issue 32: a start killed while it builds the search index loses only the partition being
    # built; the next start builds what is missing and reads nothing twice.
    store = Store(data_dir)
    papers = sample_papers(120)
    store.save_papers(papers)
    built: list[Path] = []
    real_build = partition.build_new

    def killed_at_the_third(path, shards):
        if len(built) == 2:
            (path.parent / f"{path.name}.new-999999999").write_bytes(b"half a partition")  # what a kill leaves
            raise SystemExit("killed")
        built.append(path)
        return real_build(path, shards)

    monkeypatch.setattr(partition, "build_new", killed_at_the_third)
    index = SearchIndex.open(data_dir)
    with pytest.raises(SystemExit):
        index.refresh(store)
    index.close()
    monkeypatch.undo()
    finished = {path: path.stat().st_mtime_ns for path in built}
    assert len(finished) == 2 and all(path.exists() for path in finished)
    again = SearchIndex.open(data_dir)
    indexed = again.refresh(store)
    finished_parts = {int(path.name.removeprefix("part").split(".")[0]) for path in finished}
    assert indexed == sum(1 for p in papers if search_index.partition_of(shard_of(p.id)) not in finished_parts) < len(papers)
    assert {path: path.stat().st_mtime_ns for path in built} == finished  # the finished ones untouched
    assert not list(data_dir.glob("search/*.new-*"))  # the dead process's half partition removed
    assert ids(again, "ti:the OR abs:the") == scan({p.id: p for p in papers}, "ti:the OR abs:the")


def test_a_sync_s_kept_build_processes_write_nothing_on_its_output(tmp_path, monkeypatch, capfd):
    """The served builds' stderr is not the sync's: in the app's sync child that is the pipe of
    its JSON messages, which a build process would write into (and hold open)."""
    monkeypatch.setenv("PYTHONVERBOSE", "1")  # (a child that says anything on its stderr: each import)
    builders = processes.Builders()
    try:
        builders.run([(1, tmp_path / "part0.sqlite3", {})])
    finally:
        builders.close()
    assert (tmp_path / "part0.sqlite3").exists()  # the job was done by a child
    assert capfd.readouterr().err == ""


def test_space_given_back_while_a_reader_reads_is_not_kept_in_the_write_ahead_log(data_dir, monkeypatch):
    """A VACUUM's log is as large as the partition; when a reader keeps its TRUNCATE checkpoint
    from emptying it, the log is cut back at the next checkpoint, not kept while the index is open."""
    monkeypatch.setattr(partition, "FREE_PAGES", 0)
    monkeypatch.setattr(partition, "WAL_KEPT_BYTES", 4096)
    store, index = filled(data_dir)
    index.close()
    path = index.paths[0]
    db = partition.connect(path)
    db.execute("CREATE TABLE filler(x)")
    db.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) INSERT INTO filler SELECT randomblob(4000) FROM n"
    )
    db.execute("DROP TABLE filler")  # ~4 MB of free pages
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM papers").fetchone()
    db.execute("PRAGMA busy_timeout = 50")  # (the reader is not waited for)
    partition.give_back_space(db)
    assert db.execute("PRAGMA freelist_count").fetchone()[0] == 0
    log = path.with_name(path.name + "-wal")
    assert log.stat().st_size > 16 * 4096  # the rewrite (the live pages), still in the log
    reader.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
    db.execute("CREATE TABLE scratch(x)")  # the next write starts the log again
    assert log.stat().st_size < 16 * 4096
    reader.close()
    db.close()
