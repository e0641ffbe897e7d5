"""`reader star|unstar|read|unread|hide|unhide ID...`: marks on cached papers, by id in any pasted form."""

from __future__ import annotations

from reader.commands.common import cached_ids, open_store
from reader.core.text import plural

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
        mark = commands.add_parser(name, help=text, description=text.capitalize() + ".")
        mark.add_argument("ids", nargs="+", metavar="ID", help=ID_HELP)
        mark.set_defaults(handler=cmd_mark)


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
    print(f"{args.command}: {plural(len(changed), 'paper', thousands=True)} ({said})" if changed else f"{args.command}: {said}: nothing changed")
    return 0


def _listed(ids: list[str], shown: int = 5) -> str:
    """Ids for a sentence, the first few of a long list."""
    return ", ".join(ids[:shown]) + (f" and {len(ids) - shown:,} more" if len(ids) > shown else "")
