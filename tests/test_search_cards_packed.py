"""The cards' abstracts kept deflated with each partition's dictionary (search_index/abstracts.py):
every card reads back as its record makes it, in well under the text's size; a row that does not
unpack shows no abstract rather than failing the list."""

from __future__ import annotations

import sqlite3

from reader.search_index import SearchIndex
from reader.search_index.rows import card_of
from reader.store import Store
from tests.corpus import recent_papers


def _indexed(data_dir, count=300):
    papers = recent_papers(count, per_day=5)
    store = Store(data_dir)
    store.add_topic("T", "ti:x")
    store.save_papers(papers, "T")
    index = SearchIndex.open(data_dir)
    index.refresh(store)
    return papers, index


def test_every_card_reads_back_as_its_record_makes_it_and_the_abstracts_take_half_their_text(data_dir):
    papers, index = _indexed(data_dir)
    try:
        cards = index.cards([p.id for p in papers])
        assert cards == {p.id: card_of(p) for p in papers}
        stored = text = 0
        for path in index.paths:
            if path.exists():
                with sqlite3.connect(path) as db:
                    for (abstract,) in db.execute("SELECT abstract FROM cards"):
                        stored += len(abstract)
        text = sum(len(card.abstract.encode()) for card in cards.values())
        assert text > 50_000 and stored * 2 < text
    finally:
        index.close()


def test_an_abstract_that_does_not_unpack_is_shown_empty(data_dir):
    papers, index = _indexed(data_dir, 20)
    try:
        for path in index.paths:
            if path.exists():
                with sqlite3.connect(path) as db:
                    db.execute("UPDATE cards SET abstract = x'00ff00ff'")
        cards = index.cards([p.id for p in papers])
        assert cards and all(card.abstract == "" and card.title for card in cards.values())
    finally:
        index.close()
