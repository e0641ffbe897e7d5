"""The command line: `reader` opens the app; subcommands script everything else."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from reader.commands import digest as digest_command
from reader.commands import export as export_command
from reader.commands import triage
from reader.config import Settings, default_data_dir, load_settings, parse_day
from reader.errors import QueryError, ReaderError
from reader.models import Paper, split_version

EXIT_ERROR = 1


def _store(args: argparse.Namespace, settings: Settings, *, print_warnings: bool = True):
    from reader.firstrun import ensure_example_topics
    from reader.store import Store

    store = Store(settings.data_dir or default_data_dir())
    ensure_example_topics(store)
    if print_warnings:
        _print_warnings(store)
    return store


def _print_warnings(store) -> None:
    for warning in store.warnings:
        print(f"reader: warning: {warning}", file=sys.stderr)
    store.warnings.clear()


def _validated_query(query: str, *, for_arxiv: bool):
    """The parsed query, or a one-line error naming the problem and its column."""
    from reader.core.query import parse

    try:
        return parse(query, implicit_and=not for_arxiv)
    except QueryError as error:
        raise ReaderError(f"invalid query {query!r}: {error}{_where(error)}") from None


def _where(error: QueryError) -> str:
    if error.position is None or error.position >= len(error.query):
        return ""
    return f" (at column {error.position + 1}: {error.query[error.position:][:20]!r})"


def _topic_name(store, name: str | None) -> str | None:
    if name is None:
        return None
    topic = store.topic(name)
    if topic is None:
        known = ", ".join(repr(t.name) for t in store.topics()) or "none yet"
        raise ReaderError(f"no topic named {name!r} (topics: {known})")
    return topic.name


# --- commands ------------------------------------------------------------------------------------


def cmd_topics(args, settings) -> int:
    store = _store(args, settings)
    if args.topics_command == "add":
        _validated_query(args.query, for_arxiv=True)
        topic = store.add_topic(args.name, args.query)
        print(f"added topic {topic.name!r}: {topic.query}")
        print("run `reader sync` to fetch its papers", file=sys.stderr)
    elif args.topics_command == "remove":
        topic = store.remove_topic(args.name)
        print(f"removed topic {topic.name!r} (its papers stay in the cache; stars and read marks are kept)")
    else:
        from reader.core.library import Library

        library = Library(store.index(), store.marks().read)
        topics = store.topics()
        if not topics:
            print("no topics yet: add one with `reader topics add NAME QUERY`", file=sys.stderr)
        for topic in topics:
            total, unread = library.counts(topic.name)
            synced = store.last_sync(topic.name) or "never"
            print(f"{topic.name}\t{total} papers, {unread} unread\tlast sync: {synced}\t{topic.query}")
    return 0


def cmd_sync(args, settings) -> int:
    from reader.sync import Syncer, SyncEvent, client_for

    store = _store(args, settings)
    topics = [store.topic(_topic_name(store, n)) for n in args.topic] if args.topic else store.topics()
    if not topics:
        raise ReaderError("no topics to sync: add one with `reader topics add NAME QUERY`")
    tty = sys.stderr.isatty()

    def show(event: SyncEvent) -> None:
        print(("\r\033[K" if tty else "") + event.message, end="" if tty and event.fetched else "\n", file=sys.stderr, flush=True)

    def notice(message: str) -> None:
        print(("\r\033[K" if tty else "") + message, file=sys.stderr, flush=True)

    async def run():
        async with client_for(settings, on_notice=notice) as client:
            syncer = Syncer(store, client, today=settings.today(), horizon_weeks=settings.sync_weeks, on_event=show)
            return await syncer.run(topics)

    report = asyncio.run(run())
    if tty:
        print("\r\033[K", end="", file=sys.stderr)
    for result in report.topics:
        line = f"{result.topic}: {result.new} new, {result.updated} updated ({result.fetched} fetched)"
        if result.error:
            line += f" - FAILED: {result.error}"
        print(line)
        if result.note:
            print(f"  note: {result.note}")
    if report.versions is not None and (report.versions.updated or report.versions.error):
        print(report.versions.error or f"announcements: {report.versions.updated} newer versions of cached papers")
    if report.total_error:
        print(f"warning: {report.total_error}", file=sys.stderr)
    print(f"synced {len(report.topics) - len(report.failed)} of {len(report.topics)} topics: {report.new} new, {report.updated} updated")
    return EXIT_ERROR if report.failed else 0


def _library(store):
    from reader.core.library import Library

    marks = store.marks()
    return Library(store.index(), marks.read, marks.starred)


def _selected_papers(
    store, library, *, query=None, limit: int | None = None, only: set[str] | None = None, **filters
) -> list[Paper]:
    """Papers newest first (of the ids in `only`, when given). Only the records shown are read from
    disk; a text query reads the saved search texts (built and saved once per shard)."""
    from reader.store.store import shard_of

    if query is not None:
        from reader.loading import shard_texts

        for shard in store.shards():
            library.add_search_texts(shard_texts(store, shard))
    ids = library.select(query=query, **filters)
    if only is not None:
        ids = [pid for pid in ids if pid in only]
    ids = ids[:limit]
    library.add_papers(store.load_papers(sorted({shard_of(pid) for pid in ids})).values())
    _print_warnings(store)
    return [library.papers[pid] for pid in ids if pid in library.papers]


def cmd_list(args, settings) -> int:
    store = _store(args, settings)
    query = _validated_query(args.query, for_arxiv=False) if args.query else None
    library = _library(store)
    papers = _selected_papers(
        store, library, query=query, limit=args.limit,
        topic=_topic_name(store, args.topic), starred=args.starred, unread=args.unread,
    )
    if args.json:
        rows = [_paper_json(p, library) for p in papers]
        json.dump(rows, sys.stdout, ensure_ascii=False, indent=2)
        print()
        return 0
    if not papers:
        print("no papers match" if library.index else "the cache is empty: run `reader sync`", file=sys.stderr)
    for paper in papers:
        marks = ("*" if paper.id in library.starred else " ") + (" " if paper.id in library.read else "N")
        authors = ", ".join(a.name for a in paper.authors[:3]) + (f" +{len(paper.authors) - 3}" if len(paper.authors) > 3 else "")
        print(f"{paper.published[:10]}  {marks}  {paper.id}v{paper.version}  [{paper.primary_category}]  {paper.title}")
        print(f"{'':16}{authors}")
    return 0


def _paper_json(paper: Paper, library) -> dict:
    return {
        "id": paper.id,
        "version": paper.version,
        "title": paper.title,
        "abstract": paper.abstract,
        "authors": [{"name": a.name, "affiliations": list(a.affiliations)} for a in paper.authors],
        "categories": list(paper.categories),
        "primary_category": paper.primary_category,
        "published": paper.published,
        "updated": paper.updated,
        "comment": paper.comment,
        "journal_ref": paper.journal_ref,
        "doi": paper.doi,
        "topics": library.topics_of(paper.id),
        "read": paper.id in library.read,
        "starred": paper.id in library.starred,
    }


def cmd_mark(args, settings) -> int:
    store = _store(args, settings)
    ids = []
    for raw in args.ids:
        try:
            ids.append(split_version(raw)[0])
        except ValueError:
            raise ReaderError(f"{raw!r} is not an arXiv id (like 2609.12345 or hep-th/9901001)") from None
    unknown = [pid for pid in ids if not store.has_paper(pid)]
    if unknown:
        raise ReaderError(f"not in the cache: {', '.join(unknown)} (nothing was changed)")
    change = {
        "star": {"starred": True},
        "unstar": {"starred": False},
        "read": {"read": True},
        "unread": {"read": False},
    }[args.command]
    store.set_marks(ids, **change)
    print(f"{args.command}: {len(ids)} paper{'s' if len(ids) != 1 else ''}")
    return 0


def cmd_momentum(args, settings) -> int:
    from reader.core.momentum import headline, total_window

    store = _store(args, settings)
    topic = _topic_name(store, args.topic)
    as_of = parse_day(args.as_of, "--as-of") if args.as_of else settings.today()
    library = _library(store)
    result = library.momentum(as_of, topic=topic, total_new_last4=store.cached_total(total_window(as_of)))
    if args.json:
        print(json.dumps(result.to_json(topic), indent=2))
        return 0
    print(f"{topic or 'All papers'}, as of {as_of.isoformat()}: {headline(result)}")
    peak = max((w.count for w in result.weeks), default=0) or 1
    for week in result.weeks:
        print(f"  {week.start:%b %d}  {'#' * round(week.count / peak * 40):<40}  {week.count}")
    return 0


def cmd_app(args, settings) -> int:
    from reader.app import run_app

    store = _store(args, settings, print_warnings=False)  # the app shows what was repaired
    return run_app(store, settings)


# --- argument parsing ----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reader",
        description="Follow fast-moving arXiv topics. With no command, opens the app.",
    )
    parser.add_argument("--data-dir", help="where the cache lives (default: $READER_DATA_DIR, else the user data directory)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__import__('reader').__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    sync = commands.add_parser("sync", help="fetch new papers for the topics from arXiv")
    sync.add_argument("--topic", action="append", metavar="NAME", help="only this topic (repeatable)")
    sync.set_defaults(handler=cmd_sync)

    topics = commands.add_parser("topics", help="list, add or remove topics")
    topics_commands = topics.add_subparsers(dest="topics_command", metavar="ACTION")
    topics_commands.add_parser("list", help="the topics with their counts")
    add = topics_commands.add_parser("add", help="add a topic: a name and an arXiv search query")
    add.add_argument("name")
    add.add_argument("query", help="arXiv syntax, e.g. 'ti:agent AND cat:cs.LG'")
    remove = topics_commands.add_parser("remove", help="remove a topic (papers, stars and read marks stay)")
    remove.add_argument("name")
    topics.set_defaults(handler=cmd_topics)

    listing = commands.add_parser("list", help="list cached papers, newest first")
    listing.add_argument("--topic", metavar="NAME")
    listing.add_argument("--query", metavar="Q", help="filter with arXiv's query syntax or plain words")
    listing.add_argument("--unread", action="store_true", help="only unread papers")
    listing.add_argument("--starred", action="store_true", help="only starred papers")
    listing.add_argument("--limit", type=_positive_int, metavar="N")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    listing.set_defaults(handler=cmd_list)

    for name, text in [("star", "star papers"), ("unstar", "unstar papers"), ("read", "mark papers read"), ("unread", "mark papers unread")]:
        mark = commands.add_parser(name, help=text)
        mark.add_argument("ids", nargs="+", metavar="ID", help="arXiv id, e.g. 2609.12345")
        mark.set_defaults(handler=cmd_mark)

    mom = commands.add_parser("momentum", help="papers per week and the four-week trend")
    mom.add_argument("--topic", metavar="NAME")
    mom.add_argument("--as-of", metavar="YYYY-MM-DD")
    mom.add_argument("--json", action="store_true")
    mom.set_defaults(handler=cmd_momentum)

    export_command.register(commands)
    digest_command.register(commands)
    triage.register(commands)
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        settings = load_settings({"data_dir": args.data_dir})
        if args.command == "topics" and args.topics_command is None:
            args.topics_command = "list"
        handler = getattr(args, "handler", cmd_app)
        return handler(args, settings)
    except ReaderError as error:
        print(f"reader: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("reader: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
