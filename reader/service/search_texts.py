"""Records and their search texts, read from the store for the app and the command line.

Search texts take longer to build than the records take to read, so they are saved beside each
shard the first time they are built and read back while the shard is unchanged. So is their
stemmed form, what the scan searches: stemming every word made each scan ~4x slower."""

from __future__ import annotations

from reader.core.query import SearchText, has_every_field, search_text
from reader.core.scan import stemmed_texts
from reader.models import Paper
from reader.store import Store


def saved_shard_texts(store: Store, shard: str) -> dict[str, SearchText] | None:
    """The shard's search texts as saved, None when they are not (or out of date)."""
    return store.search_texts(shard, valid_text=has_every_field)


def shard_texts(store: Store, shard: str, papers: dict[str, Paper] | None = None) -> dict[str, SearchText]:
    """The search texts of a shard's papers (`papers` when already read, saving a read)."""
    saved = saved_shard_texts(store, shard)
    if saved is not None and (papers is None or saved.keys() >= papers.keys()):
        return saved if papers is None else {pid: saved[pid] for pid in papers}
    if papers is None:
        papers = store.load_papers([shard])
    texts = {pid: search_text(paper) for pid, paper in papers.items()}
    store.save_search_texts(shard, texts)
    return texts


def shard_stems(store: Store, shard: str) -> dict[str, SearchText]:
    """The shard's search texts with their words stemmed (core/scan.stemmed_texts): what the
    scan searches, as SearchBlock(..., stemmed=True)."""
    saved = store.search_texts(shard, valid_text=has_every_field, stemmed=True)
    if saved is not None:
        return saved
    stems = stemmed_texts(shard_texts(store, shard))
    store.save_search_texts(shard, stems, stemmed=True)
    return stems
