"""`reader digest`: per topic, the momentum headline and the papers new since a day, as Markdown
or one self-contained HTML file. Only a full digest (every topic, since the last one) written to a
file moves the saved day the next one starts from: printing one, `--topic` and `--since` are
previews that change nothing."""

from __future__ import annotations

import argparse
import sys
from datetime import date, timedelta
from pathlib import Path

from reader.commands.common import open_store, read_catalog, topic_name
from reader.core.text import plural
from reader.errors import ReaderError

LAST_DIGEST = "last_digest"  # setting: the day the last digest was made
FIRST_SPAN = timedelta(days=7)  # `--since last` before any digest: the last week
FORMATS = {"markdown": "Markdown", "html": "HTML"}
SUFFIXES = {".md": "markdown", ".html": "html", ".htm": "html"}


def register(commands) -> None:
    parser = commands.add_parser(
        "digest",
        help="new papers per topic since a day, as Markdown or HTML",
        description="New papers per topic since a day, with each topic's momentum. Only a full digest "
        "(every topic, no --since) written with -o moves the day the next one starts from; printing one, "
        "--topic and --since are previews that change nothing.",
    )
    parser.add_argument(
        "--since",
        default="last",
        metavar="last|YYYY-MM-DD",
        help="papers first submitted on or after this day (a preview); 'last' (default): since "
        "the last full digest written with -o, or the last week before the first one",
    )
    parser.add_argument("--topic", action="append", metavar="NAME", help="only this topic (repeatable; default: all; a preview)")
    parser.add_argument("--format", choices=FORMATS, help="default: by -o's extension (.html or .htm HTML, .md Markdown), else markdown")
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write here (atomically) instead of to stdout; a file that is not a digest is refused (see --force)",
    )
    parser.add_argument("--force", action="store_true", help="with -o: replace the file even when it is not a digest")
    parser.set_defaults(handler=run)


def _chosen_format(args: argparse.Namespace) -> str:
    """--format when given (a file named for the other format gets one line saying so), else the
    format -o's extension names (any case), else Markdown."""
    from reader.commands.common import print_warning

    suffix = Path(args.output).suffix if args.output not in (None, "-") else ""
    named = SUFFIXES.get(suffix.lower())
    if args.format is None:
        return named or "markdown"
    if named is not None and named != args.format:
        print_warning(f"{args.output} ends in {suffix}, but --format {args.format} was given: writing {FORMATS[args.format]}")
    return args.format


def _since(text: str, store, today: date) -> date:
    from reader.config import parse_day

    if text != "last":
        return parse_day(text, "--since", or_word="last")
    saved = store.setting(LAST_DIGEST)
    try:
        return date.fromisoformat(saved) if isinstance(saved, str) else today - FIRST_SPAN
    except ValueError:
        return today - FIRST_SPAN


def _refuse_other_files(path: Path, name: str) -> None:
    """A file with text that is not a digest (notes, a page of the user's) is never replaced unasked."""
    from reader.core.digest import is_digest
    from reader.service.exports import read_existing

    text = read_existing(path).decode("utf-8", "replace")
    if text.strip() and not is_digest(text):
        raise ReaderError(f"{name} is not a digest reader wrote: nothing written; --force replaces it, dropping its text")


def run(args: argparse.Namespace, settings) -> int:
    from reader.core.citation import exportable
    from reader.core.digest import TopicDigest, html_page, markdown
    from reader.core.momentum import headline
    from reader.safe_files import path_problem, write_user_file

    if args.output not in (None, "-"):
        problem = path_problem(args.output, example="digest.md")
        if problem:
            raise ReaderError(f"-o {args.output!r}: {problem}")
        if not args.force:
            _refuse_other_files(Path(args.output).expanduser(), args.output)
    elif args.force:
        raise ReaderError("--force is for -o FILE: it replaces a file that is not a digest")
    format = _chosen_format(args)
    store = open_store(args, settings)
    today = settings.today()
    since = _since(args.since, store, today)
    names = [str(topic_name(store, n)) for n in args.topic] if args.topic else [t.name for t in store.topics()]
    if not names:
        raise ReaderError("no topics yet: add one with `reader topics add NAME QUERY`")
    catalog = read_catalog(store)
    index = catalog.index
    first_day = since.toordinal()
    chosen: dict[str, list[str]] = {}
    for name in names:
        days = zip(index.in_topic(name, index.ids), index.in_topic(name, index.days))
        chosen[name] = [pid for pid, day in days if day >= first_day and pid not in catalog.hidden]
    wanted = {pid for ids in chosen.values() for pid in ids}
    papers = {p.id: p for p in exportable(store.papers_by_id(wanted).values())}
    total, spans = store.sync_file.total_new_last4(today), store.sync_file.coverage_spans()
    digests = [
        TopicDigest(
            name,
            headline(catalog.momentum(today, topic=name, total_new_last4=total, spans=spans)),
            [papers[pid] for pid in ids if pid in papers],
        )
        for name, ids in chosen.items()
    ]
    text = (html_page if format == "html" else markdown)(digests, since, today)
    if args.output in (None, "-"):
        sys.stdout.write(text)
        return 0
    write_user_file(Path(args.output).expanduser(), text.encode("utf-8"))
    count = sum(len(d.papers) for d in digests)
    wrote = f"wrote {plural(count, 'paper', thousands=True)} in {plural(len(digests), 'topic')} to {args.output} as {FORMATS[format]}"
    preview = "--topic" if args.topic else "--since" if args.since != "last" else None
    if preview is None:
        store.set_setting(LAST_DIGEST, today.isoformat())
        print(f"{wrote}; the next digest starts {today.isoformat()}", file=sys.stderr)
    else:
        print(f"{wrote}; a preview ({preview}): the next digest still starts {_since('last', store, today).isoformat()}", file=sys.stderr)
    return 0
