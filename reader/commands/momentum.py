"""`reader momentum`: papers per week over twelve weeks and the four-week trend, of a topic or all."""

from __future__ import annotations

from reader.commands.common import open_store, print_json, read_catalog, topic_name
from reader.config import parse_day


def register(commands) -> None:
    mom = commands.add_parser("momentum", help="papers per week and the four-week trend")
    mom.add_argument("--topic", metavar="NAME", help="only this topic's papers (its name, any case)")
    mom.add_argument("--as-of", metavar="YYYY-MM-DD", help="the day the twelve weeks end (default: today)")
    mom.add_argument("--json", action="store_true", help="print the weeks and figures as a JSON object")
    mom.set_defaults(handler=cmd_momentum)


def cmd_momentum(args, settings) -> int:
    from reader.core.momentum import headline

    store = open_store(args, settings)
    topic = topic_name(store, args.topic)
    as_of = parse_day(args.as_of, "--as-of") if args.as_of else settings.today()
    result = read_catalog(store).momentum(
        as_of, topic=topic, total_new_last4=store.sync_file.total_new_last4(as_of), spans=store.sync_file.coverage_spans()
    )
    if args.json:
        print_json(result.to_json(topic))
        return 0
    print(f"{topic or 'All papers'}, as of {as_of.isoformat()}: {headline(result)}")
    peak = max((w.count for w in result.weeks if w.count is not None), default=0) or 1
    for week in result.weeks:
        if week.count is None:
            print(f"  {week.start:%b %d}  {'/' * 40}  not synced yet")
        else:
            print(f"  {week.start:%b %d}  {'#' * round(week.count / peak * 40):<40}  {week.count:,}")
    return 0
