"""`reader add ID|URL ...`: papers a colleague sent, by id or link in any pasted form (see
reader/ids.py), fetched from arXiv and kept in the cache (not New); `-` reads them from
standard input."""

from __future__ import annotations

import sys

from reader.commands.common import EXIT_ERROR, open_store, print_error, print_warning
from reader.commands.marks import ID_HELP
from reader.core.text import plural
from reader.errors import ReaderError
from reader.ids import parse_paper_id

MAX_INPUT_BYTES = 16 * 1024 * 1024  # far beyond any list of ids a person pastes


def register(commands) -> None:
    parser = commands.add_parser(
        "add",
        help="fetch papers from arXiv by id or link and keep them (not New)",
        description="Fetch papers from arXiv by id, arxiv.org link (abs, pdf, html) or arXiv DOI, and keep them in the "
        "cache, outside any topic and not New: then star, tag, read or export them like any cached paper. A paper "
        "already cached is not asked again, unless a newer version than the cached one is named.",
    )
    parser.add_argument("refs", nargs="+", metavar="ID", help=ID_HELP + "; - reads them from standard input (blank and # lines skipped)")
    parser.add_argument("--star", action="store_true", help="star them too")
    parser.set_defaults(handler=cmd_add)


def cmd_add(args, settings) -> int:
    import asyncio

    from reader.sync.adding import add_papers
    from reader.sync.types import client_options

    refs = [parse_paper_id(ref) for ref in _words(args.refs)]  # every one read before anything is fetched
    if not refs:
        raise ReaderError("standard input names no paper: give one id or link a line")
    store = open_store(args, settings)

    def notice(message: str) -> None:  # a retry, a wait arXiv asked for
        print(f"reader: {message}", file=sys.stderr)

    added = asyncio.run(add_papers(store, client_options(settings), refs, settings.today(), on_notice=notice))
    present = added.present
    papers = store.papers_by_id(present)
    for pid in present:
        state = "added" if pid in added.saved else "cached"
        paper = papers.get(pid)
        print(f"{state}  {pid}v{paper.version if paper else added.cached.get(pid)}  {paper.title if paper else ''}".rstrip())
    for pid, version in added.older.items():
        print_warning(f"arXiv has no {pid}v{version}: its newest, v{added.saved[pid]}, was kept")
    if args.star and present:
        new = [pid for pid in present if pid not in store.marks().starred]
        if new:
            store.set_marks(new, starred=True)
        print(f"starred: {plural(len(present), 'paper', thousands=True)}")
    return _failures(added)


def _words(refs: list[str]) -> list[str]:
    """The ids given, `-` replaced by those of standard input (any number a line)."""
    words = []
    for ref in refs:
        if ref != "-":
            words.append(ref)
            continue
        raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        if len(raw) > MAX_INPUT_BYTES:
            raise ReaderError(f"standard input is larger than {MAX_INPUT_BYTES >> 20} MB: not a list of ids; nothing was added")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ReaderError(f"standard input is not UTF-8 text (byte {error.start}): nothing was added") from None
        words += [word for line in text.splitlines() if not line.lstrip().startswith("#") for word in line.split()]
    return words


def _failures(added) -> int:
    """The papers not added, a line each reason; the exit status."""
    if added.missing:
        print_error(f"arXiv has no paper {', '.join(added.missing)}: check the id")
    if added.refused:
        print_error(f"arXiv refuses {', '.join(added.refused)} as malformed: check the id")
    if added.not_fetched:
        kept = f"{plural(len(added.saved), 'paper', thousands=True)} added" if added.saved else "nothing was added"
        print_error(f"{added.error}: {kept}; not fetched: {', '.join(added.not_fetched)} (run it again to finish)")
    return EXIT_ERROR if added.missing or added.refused or added.not_fetched else 0
