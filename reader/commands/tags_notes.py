"""`reader tag`, `reader tags` and `reader note`: the user's tags and notes on cached papers."""

from __future__ import annotations

import sys

from reader.commands.common import add_list_command, cached_ids, open_store, print_list
from reader.commands.completion import completes_names
from reader.commands.marks import ID_HELP
from reader.core.names import tag_name
from reader.core.sanitize import clean_multiline
from reader.core.text import plural
from reader.errors import ReaderError

TAG_HELP = "a tag: a word or short phrase (any case; an existing tag is found ignoring case)"


def register(commands) -> None:
    tag = commands.add_parser("tag", help="add or remove tags on papers", description="Add or remove tags on papers.")
    tag.add_argument("ids", nargs="+", metavar="ID", help=ID_HELP)
    completes_names(tag.add_argument("--add", action="append", default=[], metavar="TAG", help=TAG_HELP + " (repeatable)"), "tag")
    completes_names(tag.add_argument("--remove", action="append", default=[], metavar="TAG", help="a tag to take off (repeatable)"), "tag")
    tag.set_defaults(handler=cmd_tag)

    actions = add_list_command(
        commands,
        "tags",
        cmd_tags,
        help="list, rename or delete tags",
        description="List, rename or delete tags.",
        list_help="every tag with its number of papers",
        json_help="print a JSON array of {name, count}",
    )
    rename = actions.add_parser("rename", help="rename a tag (into an existing tag's name: the two become one)")
    completes_names(rename.add_argument("old", help="the tag's name (any case)"), "tag")
    rename.add_argument("new", help="its new name")
    delete = actions.add_parser("delete", help="take a tag off every paper (the papers stay)")
    completes_names(delete.add_argument("name", help="the tag's name (any case)"), "tag")

    note = commands.add_parser(
        "note",
        help="print or set a paper's note",
        description="Print a paper's note (Markdown), or set it with --set: TEXT, or - to read standard input. "
        "An empty text removes the note.",
    )
    note.add_argument("id", metavar="ID", help=ID_HELP)
    note.add_argument("--set", metavar="TEXT", dest="text", help="the new note; - reads it from standard input")
    note.set_defaults(handler=cmd_note)


def cmd_tag(args, settings) -> int:
    if not (args.add or args.remove):
        raise ReaderError("say what to change: --add TAG and/or --remove TAG")
    store = open_store(args, settings)
    ids = list(cached_ids(store, args.ids))
    known = {name.casefold() for name in store.tags()}
    unknown = [name for name in args.remove if tag_name(name).casefold() not in known]
    if unknown:
        raise ReaderError(f"no tag named {unknown[0]!r} (nothing was changed)")
    after = store.set_tags(ids, add=args.add, remove=args.remove)
    for pid in ids:
        print(f"{pid}\t{', '.join(after[pid]) or '(no tags)'}")
    return 0


def cmd_tags(args, settings) -> int:
    store = open_store(args, settings)
    if args.action == "rename":
        name = store.rename_tag(args.old, args.new)
        print(f"renamed tag {args.old!r} to {name!r} ({plural(store.tags()[name], 'paper', thousands=True)})")
    elif args.action == "delete":
        count = store.delete_tag(args.name)
        print(f"deleted tag {args.name!r} from {plural(count, 'paper', thousands=True)} (the papers stay)")
    else:
        rows = [{"name": name, "count": count} for name, count in store.tags().items()]
        print_list(
            rows,
            as_json=args.json,
            lines=lambda: (f"{row['name']}\t{plural(row['count'], 'paper')}" for row in rows),
            empty="no tags yet: add one with `reader tag ID --add TAG`",
        )
    return 0


def cmd_note(args, settings) -> int:
    store = open_store(args, settings)
    (pid,) = cached_ids(store, [args.id])
    if args.text is None:
        note = clean_multiline(store.note(pid))  # as saved, unless library.json was edited by hand
        if note:
            print(note.rstrip("\n"))
        else:
            print(f"{pid} has no note", file=sys.stderr)
        return 0
    text = _standard_input() if args.text == "-" else args.text
    note = store.set_note(pid, text)
    print(f"{pid}: note saved ({plural(len(note), 'character', thousands=True)})" if note else f"{pid}: note removed", file=sys.stderr)
    return 0


def _standard_input() -> str:
    try:
        return sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError as error:
        raise ReaderError(f"the note on standard input is not UTF-8 text (byte {error.start}): nothing was changed") from None
