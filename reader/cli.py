"""The command line: `reader` opens the app; subcommands script everything else."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from reader.commands import common, listing, marks, tags_notes, triage, watches
from reader.commands import completion as completion_command
from reader.commands import config as config_command
from reader.commands import digest as digest_command
from reader.commands import export as export_command
from reader.commands import text as text_commands
from reader.commands.common import library as _library
from reader.commands.common import open_store as _store
from reader.commands.common import print_warnings as _print_warnings
from reader.commands.common import selected_papers as _selected_papers  # noqa: F401 (commands/export.py imports it from here)
from reader.commands.common import topic_name as _topic_name
from reader.commands.common import validated_query as _validated_query
from reader.commands.listing import positive_int as _positive_int  # noqa: F401 (commands/triage.py imports it from here)
from reader.config import default_data_dir, load_settings, parse_day
from reader.core.text import plural
from reader.errors import ReaderError

EXIT_ERROR = 1
# Arguments that are paths: any bytes the system allows (the others must be valid text).
PATH_ARGUMENTS = ("data_dir", "output")

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
        _list_topics(store, as_json=getattr(args, "json", False))  # plain `reader topics` lists too
    return 0


def _list_topics(store, *, as_json: bool) -> None:
    """Each topic with its cached papers, arXiv's total (over the sync horizon, as of the last
    sync) and the first day of the stretch its cache holds whole."""
    from reader.core.coverage import Coverage

    index = store.index()
    topics = store.topics()
    states, spans = store.sync_states(), store.coverage_spans()
    if not topics and not as_json:
        print("no topics yet: add one with `reader topics add NAME QUERY`", file=sys.stderr)
    rows = []
    for topic in topics:
        state = states.get(topic.name)
        bit = index.bit(topic.name)
        since = Coverage.of_spans(spans.get(topic.name, ())).since
        rows.append({
            "name": topic.name,
            "query": topic.query,
            "cached": sum(1 for mask in index.masks if mask & bit),
            "arxiv_total": state.arxiv_total if state is not None and state.query == topic.query else None,
            "last_sync": state.last_sync if state is not None else None,
            "covered_since": since.isoformat() if since else None,
        })
    if as_json:
        common.print_json(rows)
        return
    library = _library(store)
    for topic, row in zip(topics, rows):
        total, unread = library.counts(topic.name)
        on_arxiv = f" ({row['arxiv_total']:,} on arXiv)" if row["arxiv_total"] is not None else ""
        covered = f", complete since {row['covered_since']}" if row["covered_since"] else ""
        print(f"{topic.name}\t{total:,} papers{on_arxiv}, {unread:,} unread\tlast sync: {row['last_sync'] or 'never'}{covered}\t{topic.query}")


def cmd_sync(args, settings) -> int:
    import asyncio  # here, not at the top: every other command starts faster without it

    from reader import logs
    from reader.commands.progress import PlainLines, SyncProgress, TerminalBars
    from reader.sync.syncer import Syncer, SyncEvent, client_for

    store = _store(args, settings)
    topics = [store.topic(_topic_name(store, n)) for n in args.topic] if args.topic else store.topics()
    if not topics:
        raise ReaderError("no topics to sync: add one with `reader topics add NAME QUERY`")
    log_note = logs.where(logs.log_file())
    tracker = SyncProgress(delay=settings.delay)
    display = (TerminalBars if sys.stderr.isatty() else PlainLines)(tracker, sys.stderr)

    def show(event: SyncEvent) -> None:
        (logs.log.debug if event.fetched else logs.log.info)("%s", event.message)
        display.event(event)

    def notice(message: str) -> None:
        logs.log.warning("%s", message)
        display.notice(message)

    async def run():
        async with client_for(settings, on_notice=notice) as client:
            syncer = Syncer(store, client, today=settings.today(), horizon_weeks=settings.sync_weeks, on_event=show)
            return await syncer.run(topics)

    try:
        with display:
            report = asyncio.run(run())
    except ReaderError as error:
        logs.log.error("sync stopped: %s", error)
        raise ReaderError(f"{error}{log_note}") from None
    for result in report.topics:
        line = f"{result.topic}: {result.new:,} new, {result.updated:,} updated ({result.fetched:,} fetched)"
        if result.error:
            line += f" - FAILED: {result.error}{log_note}"
        else:
            line += f" in {plural(result.requests, 'request', thousands=True)}"
            line += f"; {result.arxiv_total:,} on arXiv" if result.arxiv_total is not None else ""
        (logs.log.error if result.error else logs.log.info)("%s", line)
        print(line)
        if result.note:
            print(f"  note: {result.note}")
    if report.versions is not None and (report.versions.updated or report.versions.error):
        if report.versions.error:
            logs.log.error("%s", report.versions.error)
            print(f"{report.versions.error}{log_note}")
        else:
            print(f"announcements: {report.versions.updated:,} newer versions of cached papers")
    if report.total_error:
        logs.log.error("%s", report.total_error)
        common.print_warning(f"{report.total_error}{log_note}")
    print(f"synced {len(report.topics) - len(report.failed)} of {len(report.topics)} topics: {report.new:,} new, {report.updated:,} updated")
    return EXIT_ERROR if report.failed else 0


def cmd_momentum(args, settings) -> int:
    from reader.core.coverage import view_coverage
    from reader.core.momentum import headline, total_window

    store = _store(args, settings)
    topic = _topic_name(store, args.topic)
    as_of = parse_day(args.as_of, "--as-of") if args.as_of else settings.today()
    library = _library(store)
    coverage = view_coverage(store.coverage_spans(), topic)
    result = library.momentum(as_of, topic=topic, total_new_last4=store.cached_total(total_window(as_of)), coverage=coverage)
    if args.json:
        common.print_json(result.to_json(topic))
        return 0
    print(f"{topic or 'All papers'}, as of {as_of.isoformat()}: {headline(result)}")
    peak = max((w.count for w in result.weeks if w.count is not None), default=0) or 1
    for week in result.weeks:
        if week.count is None:
            print(f"  {week.start:%b %d}  {'/' * 40}  not synced yet")
        else:
            print(f"  {week.start:%b %d}  {'#' * round(week.count / peak * 40):<40}  {week.count:,}")
    return 0


def cmd_app(args, settings) -> int:
    from reader.app import run_app

    store = _store(args, settings, report=False)  # the app shows what was repaired
    return run_app(store, settings)


# --- argument parsing ----------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """Usage mistakes are one line and exit status 1, like every other error."""

    def error(self, message: str) -> NoReturn:
        common.print_error(f"{message} (see `{self.prog} --help`)")
        self.exit(EXIT_ERROR)

    def parse_known_args(self, args=None, namespace=None):
        """Every parser, a subcommand's included, refuses what it does not know itself, so the
        error points to that subcommand's help (argparse leaves it to the top: `reader --help`)."""
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def _default_data_dir() -> str:
    """The data directory used when --data-dir is not given, and where that comes from."""
    try:
        settings = load_settings()
    except ReaderError:
        settings = None
    if settings is not None and settings.data_dir is not None:
        from_env = settings.sources["data_dir"].kind == "env"
        return f"{settings.data_dir}, from $READER_DATA_DIR" if from_env else str(settings.data_dir)
    return str(default_data_dir())


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="reader",
        description="Follow fast-moving arXiv topics. With no command, opens the app.",
    )
    parser.add_argument("--data-dir", metavar="DIR", help=f"where the cache lives (default: {_default_data_dir()})")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="also print the log to stderr (-vv: with debug detail)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__import__('reader').__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    sync = commands.add_parser("sync", help="fetch new papers for the topics from arXiv")
    sync.add_argument("--topic", action="append", metavar="NAME", help="only this topic (its name, any case; repeatable)")
    sync.set_defaults(handler=cmd_sync)

    topics = commands.add_parser("topics", help="list, add or remove topics")
    topics_commands = topics.add_subparsers(dest="topics_command", metavar="ACTION")
    topics_list = topics_commands.add_parser("list", help="the topics with their counts")
    topics_list.add_argument(
        "--json", action="store_true",
        help="print an array of {name, query, cached, arxiv_total, last_sync, covered_since}",
    )
    add = topics_commands.add_parser("add", help="add a topic: a name and an arXiv search query")
    add.add_argument("name", help="the topic's name, as the sidebar shows it")
    add.add_argument("query", help="arXiv syntax, e.g. 'ti:agent AND cat:cs.LG'")
    remove = topics_commands.add_parser("remove", help="remove a topic (papers, stars and read marks stay)")
    completion_command.completes_names(remove.add_argument("name", help="the topic's name (any case)"), "topic")
    topics.set_defaults(handler=cmd_topics)

    listing.register(commands)
    marks.register(commands)
    tags_notes.register(commands)
    watches.register(commands)

    mom = commands.add_parser("momentum", help="papers per week and the four-week trend")
    mom.add_argument("--topic", metavar="NAME", help="only this topic's papers (its name, any case)")
    mom.add_argument("--as-of", metavar="YYYY-MM-DD", help="the day the twelve weeks end (default: today)")
    mom.add_argument("--json", action="store_true", help="print the weeks and figures as a JSON object")
    mom.set_defaults(handler=cmd_momentum)

    export_command.register(commands)
    text_commands.register(commands)
    digest_command.register(commands)
    triage.register(commands)
    config_command.register(commands)
    completion_command.register(commands)
    return parser


def _check_text_arguments(args: argparse.Namespace) -> None:
    """Names, queries and ids must be text: bytes that are not UTF-8 reach Python as surrogates,
    which no file can store. (Paths may be any bytes the system allows.)"""
    for name, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        for text in values:
            if name not in PATH_ARGUMENTS and isinstance(text, str) and not text.isascii():
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError:
                    shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                    raise ReaderError(f"{shown!r} is not valid UTF-8 text: retype it") from None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, --version, or a usage error already printed
        return done.code if isinstance(done.code, int) else 0
    common.opened.clear()
    try:
        _check_text_arguments(args)
        settings = load_settings({"data_dir": args.data_dir})
        if args.command == "topics" and args.topics_command is None:
            args.topics_command = "list"
        if args.command == "tags" and args.tags_command is None:
            args.tags_command = "list"
        handler = getattr(args, "handler", cmd_app)
        from reader import logs

        # The app owns the terminal: its records go to the log file only.
        with logs.logging_to(logs.log_file(), verbose=args.verbose if handler is not cmd_app else 0):
            return handler(args, settings)
    except ReaderError as error:
        common.print_error(error)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("reader: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    finally:
        for store in common.opened:
            _print_warnings(store)  # what was repaired while the command ran
