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


def register(commands) -> None:
    for name, (text, _) in MARK_COMMANDS.items():
        mark = commands.add_parser(name, help=text, description=text.capitalize() + ".")
        mark.add_argument("ids", nargs="+", metavar="ID", help=ID_HELP)
        mark.set_defaults(handler=cmd_mark)


def cmd_mark(args, settings) -> int:
    store = open_store(args, settings)
    ids = list(cached_ids(store, args.ids))
    store.set_marks(ids, **MARK_COMMANDS[args.command][1])
    print(f"{args.command}: {plural(len(ids), 'paper', thousands=True)}")
    return 0
