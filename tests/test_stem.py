"""Words match their inflections: the scan's stems (core/stem.py) are the ones FTS5's porter
tokenizer gives the search indexes, and indexes written before stems are rebuilt."""

from __future__ import annotations

import json
import sqlite3
import threading

from reader.core.query import parse
from reader.core.stem import stem, stem_string
from reader.core.text import word_string
from reader.fulltext import text_index
from reader.fulltext.document import PARAGRAPH, Block, Document
from reader.fulltext.store import TextStore
from reader.fulltext.text_index import TextIndex
from tests.search_index_corpus import fixture_papers


def fts5_stems(words: list[str]) -> list[str]:
    """What an index's FTS5 table holds for each word: one row per word, read back by row."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(w, tokenize='porter ascii')")
    db.executemany("INSERT INTO t(rowid, w) VALUES (?, ?)", enumerate(words))
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
    stems = dict(db.execute("SELECT doc, term FROM v"))
    return [stems[i] for i in range(len(words))]


def test_inflections_share_a_stem():
    assert {stem(w) for w in ("agent", "agents")} == {"agent"}
    assert {stem(w) for w in ("learn", "learns", "learned", "learning")} == {"learn"}
    assert stem("learnability") != "learn"  # a different word, not an inflection
    assert [stem(w) for w in ("ab", "x3b1x", "a" * 65)] == ["ab", "x3b1x", "a" * 65]  # as FTS5: too short, spelled, too long


def test_every_word_of_the_fixtures_stems_as_fts5_stems_it():
    words = sorted({w for p in fixture_papers() for w in word_string(f"{p.title} {p.abstract} {p.comment or ''}").split()})
    assert len(words) > 3000
    assert [stem(w) for w in words] == fts5_stems(words)
    text = " " + " ".join(words) + " \n | " + " ".join(reversed(words)) + " "
    assert stem_string(text) == " " + " ".join(fts5_stems(words)) + " \n | " + " ".join(reversed(fts5_stems(words))) + " "


def test_threads_stemming_at_once_get_the_same_stems():
    words = [f"{w}{n}ings" for n in range(300) for w in ("walk", "talk", "model")]
    expected = fts5_stems(words)  # walk12ings -> walk12 (and walk11ings -> walk1: FTS5 undoubles digits too)
    results: list[list[str]] = []
    threads = [threading.Thread(target=lambda: results.append(stem_string(" ".join(words)).split())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 4


def test_a_full_text_index_of_the_format_before_stems_is_rebuilt(data_dir, monkeypatch):
    TextStore(data_dir).save(Document("2609.00001", 1, "html", (Block(PARAGRAPH, "Sparse rewards for learning agents."),)))
    monkeypatch.setattr(
        text_index,
        "_SCHEMA",
        text_index._SCHEMA.replace("'porter ascii'", "'ascii'").replace(f"user_version = {text_index.FORMAT}", "user_version = 1"),
    )
    monkeypatch.setattr(text_index, "FORMAT", 1)
    rewarding = parse("text:rewarding", implicit_and=True)
    assert TextIndex(data_dir).matching([rewarding]) == {rewarding: set()}  # the old words: no stems
    monkeypatch.undo()
    phrase = parse('text:"learned agent"', implicit_and=True)
    assert TextIndex(data_dir).matching([rewarding, phrase]) == {rewarding: {"2609.00001"}, phrase: {"2609.00001"}}


def test_the_scan_reads_each_shards_stems_saved_beside_it(data_dir, monkeypatch):
    """Stemming every word on each query made the scan ~4x slower: a shard's stemmed texts are
    made once, saved beside it (YYMM.NN.stems.json) and read back while the shard is unchanged;
    a changed shard's, or a damaged file's, are made again."""
    import dataclasses

    from reader.core import scan as scan_module
    from reader.core.query import search_text
    from reader.core.scan import SearchBlock
    from reader.service.search import CacheSearch
    from reader.store import Store

    store = Store(data_dir)
    papers = fixture_papers()
    store.save_papers(papers, "T")
    query = parse("ti:liquids", implicit_and=True)
    reference = SearchBlock({p.id: search_text(p) for p in papers}).matching(query)
    assert {"liquid", "liquids"} <= {w for p in papers if p.id in reference for w in word_string(p.title).split()}
    assert CacheSearch(store).matching(query) == reference  # not refreshed: the scan answers
    stems = [data_dir / "papers" / f"{shard}.stems.json" for shard in store.shards()]
    assert all(path.exists() for path in stems)

    stemmed: list[str] = []
    monkeypatch.setattr(scan_module, "stem_string", lambda text: stemmed.append(text) or stem_string(text))
    assert CacheSearch(store).matching(query) == reference and stemmed == []  # read back, no word stemmed

    renamed = dataclasses.replace(papers[0], version=papers[0].version + 1, title="Zebrafishes navigating")
    store.save_papers([renamed], "T")
    assert CacheSearch(store).matching(parse("ti:zebrafish navigated", implicit_and=True)) == {renamed.id}
    stems[0].write_text("{not json")
    assert CacheSearch(store).matching(query) == reference
    assert json.loads(stems[0].read_text())["texts"]  # made again
