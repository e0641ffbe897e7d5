"""What every subcommand shares: opening the store, checking arguments, choosing papers and
printing them. One-line errors are ReaderErrors: `reader.cli.main` prints them and exits 1."""

from __future__ import annotations

import argparse
import sys

from reader.config import Settings, default_data_dir
from reader.errors import QueryError, ReaderError
from reader.ids import parse_paper_id
from reader.models import Paper

# The stores this run opened: `reader.cli.main` reports their repairs made after opening too.
opened: list = []


def open_store(args: argparse.Namespace, settings: Settings, *, report: bool = True):
    """The data directory's store (with the example topics on first use). Its repairs are
    printed unless `report` is False (the app shows them itself)."""
    from reader.firstrun import ensure_example_topics
    from reader.store import Store

    store = Store(settings.data_dir or default_data_dir())
    ensure_example_topics(store)
    if report:
        opened.append(store)
        print_warnings(store)
    return store


def print_warnings(store) -> None:
    for warning in store.warnings:
        print(f"reader: warning: {warning}", file=sys.stderr)
    store.warnings.clear()


def validated_query(query: str, *, for_arxiv: bool):
    """The parsed query, or a one-line error naming the problem and its column."""
    from reader.core.query import parse

    try:
        return parse(query, implicit_and=not for_arxiv)
    except QueryError as error:
        raise ReaderError(f"invalid query {query!r}: {error.describe()}") from None


def topic_name(store, name: str | None) -> str | None:
    """The stored spelling of a topic's name (found ignoring case), or a one-line error."""
    if name is None:
        return None
    topic = store.topic(name)
    if topic is None:
        known = ", ".join(repr(t.name) for t in store.topics()) or "none yet"
        raise ReaderError(f"no topic named {name!r} (topics: {known})")
    return topic.name


def cached_ids(store, refs: list[str]) -> dict[str, int]:
    """Papers named on the command line in any form people paste (see reader/ids.py), each with
    its cached version. Every one must be in the cache, at a version it has: else a one-line
    error and nothing is changed."""
    wanted = [parse_paper_id(ref) for ref in refs]
    cached = store.cached_versions(pid for pid, _ in wanted)
    unknown = list(dict.fromkeys(pid for pid, _ in wanted if pid not in cached))
    if unknown:
        raise ReaderError(f"not in the cache: {', '.join(unknown)} (nothing was changed)")
    for pid, version in wanted:
        if version is not None and version > cached[pid]:
            raise ReaderError(f"{pid}v{version} does not exist in the cache: it has v{cached[pid]} (nothing was changed)")
    return {pid: cached[pid] for pid, _ in wanted}


def library(store):
    from reader.core.library import Library

    marks = store.marks()
    return Library(store.index(), marks.read, marks.starred)


def selected_papers(
    store, lib, *, query=None, limit: int | None = None, only: set[str] | None = None, **filters
) -> list[Paper]:
    """Papers newest first (of the ids in `only`, when given). Only the records shown are read from
    disk; a text query reads the saved search texts (built and saved once per shard)."""
    from reader.store.store import shard_of

    if query is not None:
        from reader.loading import shard_texts

        for shard in store.shards():
            lib.add_search_texts(shard_texts(store, shard))
    ids = lib.select(query=query, **filters)
    if only is not None:
        ids = [pid for pid in ids if pid in only]
    ids = ids[:limit]
    lib.add_papers(store.load_papers(sorted({shard_of(pid) for pid in ids})).values())
    print_warnings(store)
    return [lib.papers[pid] for pid in ids if pid in lib.papers]


def plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else many or word + 's'}"
