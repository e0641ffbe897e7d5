"""`reader watches list|add|remove`: names and words to look out for, each a query in arXiv's
syntax matched against the cache (`reader list --watch NAME` lists a watch's papers)."""

from __future__ import annotations

from reader.commands.common import add_list_command, open_store, print_list, validated_query
from reader.commands.completion import completes_names
from reader.errors import ReaderError


def register(commands) -> None:
    actions = add_list_command(
        commands,
        "watches",
        cmd_watches,
        help="list, add or remove watches",
        description="List, add or remove watches: a name and a query in arXiv's syntax, matched against the cache.",
        list_help="every watch with its query",
        json_help="print a JSON array of {name, query}",
    )
    add = actions.add_parser("add", help="add a watch: a name and a query, e.g. 'au:levine' or 'abs:\"process reward\"'")
    add.add_argument("name", help="the watch's name, as cards and the sidebar show it")
    add.add_argument("query", help="arXiv syntax, e.g. 'au:levine OR abs:\"process reward\"'")
    remove = actions.add_parser("remove", help="remove a watch (its papers stay)")
    completes_names(remove.add_argument("name", help="the watch's name (any case)"), "watch")


def cmd_watches(args, settings) -> int:
    store = open_store(args, settings)
    if args.action == "add":
        validated_query(args.query, for_arxiv=True)
        watch = store.add_watch(args.name, args.query)
        print(f"added watch {watch.name!r}: {watch.query}")
    elif args.action == "remove":
        watch = store.remove_watch(args.name)
        print(f"removed watch {watch.name!r}")
    else:
        rows = [{"name": w.name, "query": w.query} for w in store.watches()]
        print_list(
            rows,
            as_json=args.json,
            lines=lambda: (f"{row['name']}\t{row['query']}" for row in rows),
            empty="no watches yet: add one with `reader watches add NAME QUERY`",
        )
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
