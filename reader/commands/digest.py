"""`reader digest`: per topic, the momentum headline and the papers new since a day, as Markdown
or one self-contained HTML file."""

from __future__ import annotations

import argparse
import sys
from datetime import date, timedelta
from pathlib import Path

from reader.commands.common import library, open_store, topic_name
from reader.core.text import plural
from reader.errors import ReaderError

LAST_DIGEST = "last_digest"  # setting: the day the last digest was made
FIRST_SPAN = timedelta(days=7)  # `--since last` before any digest: the last week


def register(commands) -> None:
    parser = commands.add_parser("digest", help="new papers per topic since a day, as Markdown or HTML")
    parser.add_argument("--since", default="last", metavar="last|YYYY-MM-DD",
                        help="papers first submitted on or after this day; 'last' (default): since the last "
                        "digest, or the last week before the first one")
    parser.add_argument("--topic", action="append", metavar="NAME", help="only this topic (repeatable; default: all)")
    parser.add_argument("--format", choices=("markdown", "html"), default="markdown", help="default: markdown")
    parser.add_argument("-o", "--output", metavar="FILE", help="write here (atomically) instead of to stdout")
    parser.set_defaults(handler=run)


def _since(text: str, store, today: date) -> date:
    from reader.config import parse_day

    if text != "last":
        return parse_day(text, "--since")
    saved = store.setting(LAST_DIGEST)
    try:
        return date.fromisoformat(saved) if isinstance(saved, str) else today - FIRST_SPAN
    except ValueError:
        return today - FIRST_SPAN


def run(args: argparse.Namespace, settings) -> int:
    from reader.core.citation import exportable
    from reader.core.coverage import view_coverage
    from reader.core.digest import TopicDigest, html_page, markdown
    from reader.core.momentum import headline, total_window
    from reader.userfiles import path_problem, write_user_file

    if args.output not in (None, "-"):
        problem = path_problem(args.output)
        if problem:
            raise ReaderError(f"-o {args.output!r}: {problem}")
    store = open_store(args, settings)
    today = settings.today()
    since = _since(args.since, store, today)
    names = [str(topic_name(store, n)) for n in args.topic] if args.topic else [t.name for t in store.topics()]
    if not names:
        raise ReaderError("no topics yet: add one with `reader topics add NAME QUERY`")
    lib = library(store)
    index = lib.index
    first_day = since.toordinal()
    chosen: dict[str, list[str]] = {}
    for name in names:
        bit = index.bit(name)
        chosen[name] = [pid for pid, day, mask in zip(index.ids, index.days, index.masks)
                        if mask & bit and day >= first_day and pid not in lib.hidden]
    wanted = {pid for ids in chosen.values() for pid in ids}
    papers = {p.id: p for p in exportable(store.papers_by_id(wanted).values())}
    total = store.cached_total(total_window(today))
    spans = store.coverage_spans()  # a window not synced has no figure, as in the topic's chart
    digests = [
        TopicDigest(name, headline(lib.momentum(today, topic=name, total_new_last4=total, coverage=view_coverage(spans, name))),
                    [papers[pid] for pid in ids if pid in papers])
        for name, ids in chosen.items()
    ]
    text = (html_page if args.format == "html" else markdown)(digests, since, today)
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        write_user_file(Path(args.output).expanduser(), text.encode("utf-8"))
        count = sum(len(d.papers) for d in digests)
        print(f"wrote {plural(count, 'paper', thousands=True)} in {len(digests)} topics to {args.output}", file=sys.stderr)
    store.set_setting(LAST_DIGEST, today.isoformat())
    return 0
