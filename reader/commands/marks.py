"""`reader star|unstar|read|unread|hide|unhide ID...`: marks on cached papers, by id in any pasted
form; `reader read --topic/--query/--tag/--watch/--new/--all`: every unread paper of a selection."""

from __future__ import annotations

from contextlib import nullcontext

from reader.commands.common import cached_ids, open_store, read_catalog, search_index, selected_ids, tagged_ids, topic_name, validated_query
from reader.commands.completion import completes_names
from reader.commands.watches import watch_query
from reader.core.text import plural
from reader.errors import ReaderError

# command -> (help, the change to the marks)
MARK_COMMANDS = {
    "star": ("star papers", {"starred": True}),
    "unstar": ("unstar papers", {"starred": False}),
    "read": ("mark papers read", {"read": True}),
    "unread": ("mark papers unread", {"read": False}),
    "hide": ("hide papers: not interested (left out of every list but `list --hidden`)", {"hidden": True}),
    "unhide": ("show hidden papers again", {"hidden": False}),
}

ID_HELP = "an arXiv id in any form: 2609.12345, 2609.12345v2, arXiv:2609.12345, https://arxiv.org/abs/2609.12345v2"
# command -> (the mark, its value once done, how a paper already so is described). `read` is left
# out: marking a read paper read again keeps the newer version the cache holds.
ALREADY = {
    "star": ("starred", True, "already starred"),
    "unstar": ("starred", False, "not starred"),
    "unread": ("read", False, "not read"),
    "hide": ("hidden", True, "already hidden"),
    "unhide": ("hidden", False, "not hidden"),
}


def register(commands) -> None:
    for name, (text, _) in MARK_COMMANDS.items():
        if name == "read":
            continue
        mark = commands.add_parser(name, help=text, description=text.capitalize() + ".")
        mark.add_argument("ids", nargs="+", metavar="ID", help=ID_HELP)
        mark.set_defaults(handler=cmd_mark)
    read = commands.add_parser(
        "read",
        help="mark papers read: by id, or every unread paper of a selection",
        description="Mark papers read: those named, or every unread paper of a selection (the options combine, as in "
        "`reader list`: --topic T --query Q marks the topic's papers that match). Hidden papers are left as they are.",
    )
    read.add_argument("ids", nargs="*", metavar="ID", help=ID_HELP)
    read.add_argument("--topic", metavar="NAME", help="this topic's papers (its name, any case)")
    read.add_argument("--query", metavar="Q", help="papers matching arXiv's query syntax or plain words")
    completes_names(read.add_argument("--tag", metavar="TAG", help="papers with this tag (any case)"), "tag")
    completes_names(read.add_argument("--watch", metavar="NAME", help="papers that match this watch's query"), "watch")
    read.add_argument("--new", action="store_true", help="papers that arrived since the previous time the app was opened")
    read.add_argument("--all", action="store_true", help="every cached paper (that is not hidden)")
    read.set_defaults(handler=cmd_read)


def cmd_read(args, settings) -> int:
    """`read ID...` as the other marks; `read --topic/--query/... ` every unread paper selected."""
    chosen = [args.topic, args.query, args.tag, args.watch] + [True] * args.new + [True] * args.all
    selecting = any(option is not None for option in chosen)
    if args.ids and selecting:
        raise ReaderError("give paper ids or a selection (--topic, --query, --tag, --watch, --new, --all), not both")
    if not args.ids and not selecting:
        raise ReaderError("name the papers: ids, or a selection (--topic, --query, --tag, --watch, --new, or --all for every paper)")
    if args.ids:
        return cmd_mark(args, settings)
    store = open_store(args, settings)
    query = validated_query(args.query, for_arxiv=False) if args.query else None
    only = tagged_ids(store, args.tag)
    if args.new:
        new = store.new_ids()
        only = new if only is None else only & new
    watched = watch_query(store, args.watch)
    with search_index(store) if query is not None or watched is not None else nullcontext() as index:
        if index is not None and watched is not None:  # (the index is open whenever a watch is asked for)
            matched = index.matching(watched)
            only = matched if only is None else only & matched
        catalog = read_catalog(store, order_only=True)
        ids = selected_ids(catalog, query=query, index=index, only=only, topic=topic_name(store, args.topic), unread=True)
    if ids:
        store.set_marks(ids, read=True)  # one write of user state
    print(f"read: {plural(len(ids), 'paper', thousands=True)} marked read" if ids else "read: no unread papers there: nothing changed")
    return 0


def cmd_mark(args, settings) -> int:
    store = open_store(args, settings)
    ids = list(cached_ids(store, args.ids))
    unchanged: list[str] = []
    if args.command in ALREADY:
        mark, value, described = ALREADY[args.command]
        marked = getattr(store.marks(), mark)
        unchanged = [pid for pid in ids if (pid in marked) == value]
    changed = [pid for pid in ids if pid not in unchanged]
    if changed:
        store.set_marks(changed, **MARK_COMMANDS[args.command][1])
    if not unchanged:
        print(f"{args.command}: {plural(len(changed), 'paper', thousands=True)}")
        return 0
    verb = "is" if len(unchanged) == 1 else "are"
    said = f"{_listed(unchanged)} {verb} {described}"
    print(
        f"{args.command}: {plural(len(changed), 'paper', thousands=True)} ({said})"
        if changed
        else f"{args.command}: {said}: nothing changed"
    )
    return 0


def _listed(ids: list[str], shown: int = 5) -> str:
    """Ids for a sentence, the first few of a long list."""
    return ", ".join(ids[:shown]) + (f" and {len(ids) - shown:,} more" if len(ids) > shown else "")
