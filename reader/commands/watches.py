"""`reader watches list|add|remove`: names and words to look out for, each a query in arXiv's
syntax matched against the cache (`reader list --watch NAME` lists a watch's papers)."""

from __future__ import annotations

import sys

from reader.commands.common import open_store, print_json, validated_query
from reader.commands.completion import completes_names
from reader.errors import ReaderError


def register(commands) -> None:
    watches = commands.add_parser(
        "watches", help="list, add or remove watches",
        description="List, add or remove watches: a name and a query in arXiv's syntax, matched against the cache.",
    )
    actions = watches.add_subparsers(dest="watches_command", metavar="ACTION")
    listing = actions.add_parser("list", help="every watch with its query")
    listing.add_argument("--json", action="store_true", help="print a JSON array of {name, query}")
    add = actions.add_parser("add", help="add a watch: a name and a query, e.g. 'au:levine' or 'abs:\"process reward\"'")
    add.add_argument("name", help="the watch's name, as cards and the sidebar show it")
    add.add_argument("query", help="arXiv syntax, e.g. 'au:levine OR abs:\"process reward\"'")
    remove = actions.add_parser("remove", help="remove a watch (its papers stay)")
    completes_names(remove.add_argument("name", help="the watch's name (any case)"), "watch")
    watches.set_defaults(handler=cmd_watches, json=False)


def cmd_watches(args, settings) -> int:
    store = open_store(args, settings)
    if args.watches_command == "add":
        validated_query(args.query, for_arxiv=True)
        watch = store.add_watch(args.name, args.query)
        print(f"added watch {watch.name!r}: {watch.query}")
    elif args.watches_command == "remove":
        watch = store.remove_watch(args.name)
        print(f"removed watch {watch.name!r}")
    elif args.json:
        print_json([{"name": w.name, "query": w.query} for w in store.watches()])
    else:
        watches = store.watches()
        if not watches:
            print("no watches yet: add one with `reader watches add NAME QUERY`", file=sys.stderr)
        for watch in watches:
            print(f"{watch.name}\t{watch.query}")
    return 0


def watch_query(store, name: str | None):
    """The parsed query of the watch named `name` (found ignoring case), None when no watch is
    asked for; a one-line error when there is no such watch."""
    if name is None:
        return None
    wanted = " ".join(name.split()).casefold()
    watches = store.watches()
    found = next((w for w in watches if w.name.casefold() == wanted), None)
    if found is None:
        known = ", ".join(repr(w.name) for w in watches) or "none yet"
        raise ReaderError(f"no watch named {name!r} (watches: {known})")
    return validated_query(found.query, for_arxiv=True)
