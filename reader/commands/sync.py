"""`reader sync`: fetch the topics' new papers from arXiv, with progress on stderr."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from reader.commands.common import EXIT_ERROR, open_store, print_warning, topic_name
from reader.core.text import plural
from reader.errors import ReaderError

if TYPE_CHECKING:
    from reader.sync.types import SyncReport


def register(commands) -> None:
    sync = commands.add_parser("sync", help="fetch new papers for the topics from arXiv")
    sync.add_argument("--topic", action="append", metavar="NAME", help="only this topic (its name, any case; repeatable)")
    sync.set_defaults(handler=cmd_sync)


def cmd_sync(args, settings) -> int:
    import asyncio  # here, not at the top: every other command starts faster without it

    from reader import logs
    from reader.commands.progress import PlainLines, SyncProgress, TerminalBars, interrupted_lines
    from reader.sync.syncer import Syncer, SyncEvent, client_for

    store = open_store(args, settings)
    topics = [store.topic(topic_name(store, n)) for n in args.topic] if args.topic else store.topics()
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

    syncers: list[Syncer] = []

    async def run():
        async with client_for(settings, on_notice=notice) as client:
            syncers.append(Syncer(store, client, today=settings.today(), horizon_weeks=settings.sync_weeks, on_event=show))
            return await syncers[0].run(topics)

    try:
        with display:
            report = asyncio.run(run())
    except KeyboardInterrupt:  # Ctrl+C: say what was kept (main says "interrupted" and exits 130)
        if syncers:
            for line in interrupted_lines(syncers[0].report.topics, syncers[0].interrupted, len(topics)):
                print(line)
        raise
    except ReaderError as error:
        logs.log.error("sync stopped: %s", error)
        raise ReaderError(f"{error}{log_note}") from None
    _print_report(report, log_note)
    if report.new or report.updated:  # (a sync that brought nothing, offline say, reads no more)
        from reader.meaning import later
        from reader.meaning.model import MIN_PAPERS

        if len(store.index_order().ids) >= MIN_PAPERS and later.start(store.data_dir) is not None:
            print("search by meaning: its vectors are brought up to date in the background", file=sys.stderr)
    return EXIT_ERROR if report.failed else 0


def _print_report(report: SyncReport, log_note: str) -> None:
    """What each topic's sync did, the newer versions found, and the total, printed and logged."""
    from reader import logs

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
        print_warning(f"{report.total_error}{log_note}")
    print(
        f"synced {len(report.topics) - len(report.failed)} of {len(report.topics)} topics: {report.new:,} new, {report.updated:,} updated"
    )
