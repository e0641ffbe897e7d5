"""What every subcommand shares: opening the store, checking arguments, choosing papers and
printing them. One-line errors are ReaderErrors: `reader.cli.main` prints them and exits 1."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from itertools import islice

from reader.config import Settings, default_data_dir
from reader.errors import QueryError, ReaderError, StoreError
from reader.ids import parse_paper_id
from reader.models import Paper

EXIT_ERROR = 1  # the exit status of every failure
# The stores this run opened: `reader.cli.main` reports their repairs made after opening too.
opened: list = []


def open_store(args: argparse.Namespace, settings: Settings, *, report: bool = True):
    """The data directory's store (with the example topics on first use). Its repairs are
    printed unless `report` is False (the app shows them itself)."""
    from reader.store import Store
    from reader.store.firstrun import ensure_example_topics

    store = Store(settings.data_dir or default_data_dir())
    ensure_example_topics(store)
    if report:
        opened.append(store)
        print_warnings(store)
    return store


def print_warnings(store) -> None:
    for warning in store.warnings:
        print_warning(warning)
    store.warnings.clear()


def print_warning(message: object) -> None:
    print(f"reader: warning: {message}", file=sys.stderr)


def print_error(message: object) -> None:
    """The one line every error of the command ends with (the caller exits with status 1)."""
    print(f"reader: error: {message}", file=sys.stderr)


def validated_query(query: str, *, for_arxiv: bool):
    """The parsed query, or a one-line error naming the problem and its column. Lower-case
    operators, searched as words, are said once on stderr (the query stays as typed)."""
    from reader.core.query import operator_note, parse

    try:
        parsed = parse(query, implicit_and=not for_arxiv)
    except QueryError as error:
        shown = query if len(query) <= 80 else query[:60] + "..."  # a long query would drown the message
        raise ReaderError(f"invalid query {shown!r}: {error.describe()}") from None
    note = operator_note(query)
    if note:
        print(f"reader: note: {note}", file=sys.stderr)
    return parsed


def output_file(value: str | None, example: str):
    """`-o FILE` checked before any work: its Path, None when not given, or a one-line ReaderError
    (a folder, a device, a folder that does not exist); `example` names the file suggested."""
    if value is None:
        return None
    from pathlib import Path

    from reader.safe_files import path_problem

    problem = path_problem(value, example=example)
    if problem:
        raise ReaderError(problem)
    return Path(value).expanduser()


def write_output(path, data: bytes) -> None:
    """Bytes written to the user's `-o FILE` atomically (a kill mid-write leaves the old file)."""
    from reader.safe_files import FileWriteError, write_user_file

    try:
        write_user_file(path, data)
    except FileWriteError as error:
        raise ReaderError(str(error)) from None


def positive_int(text: str) -> int:
    """An argument's type: a whole number, at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def topic_name(store, name: str | None) -> str | None:
    """The stored spelling of a topic's name (found ignoring case), or a one-line error."""
    if name is None:
        return None
    topic = store.topic(name)
    if topic is None:
        known = ", ".join(repr(t.name) for t in store.topics()) or "none yet"
        raise ReaderError(f"no topic named {name!r} (topics: {known})")
    return topic.name


def tagged_ids(store, name: str | None) -> set[str] | None:
    """The papers carrying a tag (found ignoring case), None when no tag is asked for; a one-line
    error when there is no such tag."""
    if name is None:
        return None
    try:
        return set(store.papers_tagged(name))
    except StoreError:
        known = ", ".join(repr(tag) for tag in store.tags()) or "none yet"
        raise ReaderError(f"no tag named {name!r} (tags: {known})") from None


def cached_ids(store, refs: list[str]) -> dict[str, int]:
    """Papers named on the command line in any form people paste (see reader/ids.py), each with
    its cached version: the one place a command resolves ids. Every one must be in the cache, at
    a version it has: else one line saying how to bring it in (`reader add`), nothing changed."""
    wanted = [parse_paper_id(ref) for ref in refs]
    cached = store.cached_versions(pid for pid, _ in wanted)
    unknown = list(dict.fromkeys(pid for pid, _ in wanted if pid not in cached))
    if unknown:
        them = "it" if len(unknown) == 1 else "them"
        raise ReaderError(
            f"not in the cache: {', '.join(unknown)} (`reader add {' '.join(unknown)}` fetches {them} from arXiv; nothing was changed)"
        )
    for pid, version in wanted:
        if version is not None and version > cached[pid]:
            raise ReaderError(
                f"{pid}v{version} does not exist in the cache: it has v{cached[pid]} "
                f"(`reader add {pid}v{version}` fetches arXiv's newest; nothing was changed)"
            )
    return {pid: cached[pid] for pid, _ in wanted}


def cached_paper(store, ref: str) -> tuple[str, int]:
    """(id, cached version) of the one paper a command takes (see cached_ids)."""
    ((pid, version),) = cached_ids(store, [ref]).items()
    return pid, version


def read_catalog(store, *, order_only: bool = False):
    """The papers with the user's marks; `order_only`: over Store.index_order (enough to select
    ids, not for versions, days or arrivals)."""
    from reader.core.catalog import Catalog

    marks = store.marks()
    return Catalog(store.index_order() if order_only else store.index(), marks.read, marks.starred, marks.hidden)


def selected_papers(store, catalog, *, query=None, limit: int | None = None, only: set[str] | None = None, **filters) -> list[Paper]:
    """Papers newest first (of the ids in `only`, when given). Only the records shown are read from
    disk; a text query is answered by the search index."""
    with search_index(store) if query is not None else nullcontext() as index:
        ids = selected_ids(catalog, query=query, index=index, limit=limit, only=only, **filters)
    return records(store, catalog, ids)


def selected_ids(
    catalog, *, query=None, index=None, limit: int | None = None, only: set[str] | None = None, newest=None, **filters
) -> list[str]:
    """Ids newest first (of the ids in `only`, when given); a text query is answered by `index`
    (see search_index). A query with a limit reads its matches newest first and stops there:
    the whole answer is never made (a common phrase matches a third of a large cache);
    `newest`: index.newest(query), when the caller started it already."""
    if query is not None and limit is not None:
        found = newest if newest is not None else index.newest(query)
        admitted = (pid for pid, day in found if (only is None or pid in only) and catalog.admits(pid, day, **filters))
        return list(islice(admitted, limit))
    ids = catalog.select(**filters)
    if only is not None:
        ids = [pid for pid in ids if pid in only]
    if query is not None:
        matched = index.matching(query)
        return list(islice(filter(matched.__contains__, ids), limit))  # stops at the limit
    return ids[:limit]


def records(store, catalog, ids: list[str]) -> list[Paper]:
    """The full records of `ids`, in that order (only their shards are read)."""
    catalog.add_papers(store.papers_by_id(ids).values())
    print_warnings(store)
    return [catalog.papers[pid] for pid in ids if pid in catalog.papers]


@contextmanager
def search_index(store) -> Iterator:
    """The search index, brought up to date with the shards and the user's notes (which costs
    little when nothing changed)."""
    from reader.search_index import SearchIndex

    index = SearchIndex.open(store.data_dir)
    try:
        index.refresh(store)
        index.set_notes(store, store.notes())
        yield index
    finally:
        index.close()


def add_list_command(commands, name: str, handler: Callable, *, list_help: str, json_help: str, **options):
    """A command over a list of named things (`reader topics|watches|tags`): its ACTION `list`,
    with --json, is also what it does with none; the caller adds the others (add, rename,
    remove ...) to the subparsers returned. The handler finds them in `args.action`."""
    parser = commands.add_parser(name, **options)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    listing = actions.add_parser("list", help=list_help)
    listing.add_argument("--json", action="store_true", help=json_help)
    parser.set_defaults(handler=handler, json=False)
    return actions


def print_list(rows: list[dict], *, as_json: bool, lines: Callable[[], Iterable[str]], empty: str) -> None:
    """What such a list prints: `rows` as a JSON array, or a line each (`empty`, on stderr, when
    there are none)."""
    if as_json:
        print_json(rows)
        return
    if not rows:
        print(empty, file=sys.stderr)
    for line in lines():
        print(line)


def print_json(value) -> None:
    """What --json prints: indented, with text as it is (no \\u escapes), as the other output."""
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2)
    print()


def sort_choices() -> tuple[str, ...]:
    from reader.core.sorting import SORTS

    return SORTS


def in_order(store, catalog, ids: list[str], sort: str, index=None) -> list[str]:
    """`ids` (newest first) in the list's order `sort`, as the app sorts them (core/sorting.py):
    text orders from the search index's cards (`index`: open, for them), For you's from a
    ranking made now (as `reader rank` makes it)."""
    from reader.core import sorting

    if sort == sorting.NEWEST:
        return ids
    if sort == sorting.SCORE:
        from reader.core.ranking import NeedsStars
        from reader.service.ranking_corpus import RankingCorpus

        result = RankingCorpus(store).rank(starred=catalog.starred, read=catalog.read, hidden=catalog.hidden)
        if isinstance(result, NeedsStars):
            raise ReaderError(f"cannot sort by For you's score: {result.message}")
        order = sorting.ranked_order(catalog.index, result.ids)
    else:
        order = sorting.keyed_order(catalog.index, sort, index.sort_values(sort))
    return list(sorting.sorted_view(order, catalog.index, ids))
