"""`reader import FILE`: a researcher's library brought in (BibTeX, RIS, CSL-JSON, a list of ids),
each entry matched to an arXiv paper, the papers the cache lacks fetched, and all of them
starred or tagged. The file is only read."""

from __future__ import annotations

import re
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from reader.commands.common import EXIT_ERROR, open_store, print_json
from reader.commands.completion import completes_names
from reader.core.text import plural
from reader.errors import ReaderError, StoreError
from reader.models import ID_PATTERN

if TYPE_CHECKING:
    from reader.sync.fetching import Fetched

MAX_FILE_BYTES = 256 * 1024 * 1024  # far beyond any library; more is not one
EXIT_INTERRUPTED = 130  # Ctrl+C, as the shell's
RECHECK_DAYS = 30  # an id arXiv had no paper under (or refused) is asked again after this long (it may be new)
GROUP_OVER = 40  # more entries not found than this are told a line per reason, not per entry
SHOWN_KEYS = 8  # keys named on a reason's line


def register(commands) -> None:
    parser = commands.add_parser(
        "import",
        help="bring your library in: BibTeX, RIS, CSL-JSON or arXiv ids (starred or tagged)",
        description="Match each entry of a library file to an arXiv paper and star it (or tag it). The format is told "
        "by the content: BibTeX (Google Scholar, arXiv, Zotero, Better BibTeX, JabRef, Mendeley), RIS, CSL-JSON, or "
        "a list of arXiv ids, one a line (blank and # lines skipped). An entry is matched by its arXiv id (eprint, "
        "arxiv, an arxiv.org link, arXiv's DOI, arXiv:ID in any field but abstract and title), else by its exact "
        "title among the cached papers (sharing an author's family name). Papers the cache lacks are fetched from arXiv by id. Entries "
        "not matched are listed with the reason. The file is never written; running it again changes nothing.",
    )
    parser.add_argument("file", metavar="FILE", help="the library file; - reads standard input")
    completes_names(parser.add_argument("--tag", metavar="TAG", help="tag the papers TAG instead of starring them"), "tag")
    parser.add_argument("--star", action="store_true", help="with --tag: star them too")
    parser.add_argument(
        "--format", choices=("bibtex", "ris", "csl-json", "ids"), help="read the file as this format (default: told by its content)"
    )
    parser.add_argument(
        "--search-titles",
        action="store_true",
        help="look up on arXiv, by exact title, the entries without an id that the cache lacks (one request each, every run)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print {matched: [{key, id, how}], fetched: [id], unmatched: [{key, title, reason}], broken: [{key, line, reason}]}",
    )
    parser.set_defaults(handler=cmd_import)


def cmd_import(args, settings) -> int:
    from reader.core.import_file import read
    from reader.service.import_matching import match_cached

    tag = _checked_tag(args.tag)
    raw, name, suffix = _read_bytes(args.file)
    _, citations = read(raw, name, format=args.format, suffix=suffix)
    store = open_store(args, settings)
    matches = match_cached(store, store.index_order(), citations)
    interrupted = False
    try:
        failed = _fetch_missing(store, settings, matches, search_titles=args.search_titles)
    except KeyboardInterrupt:  # Ctrl+C: what arrived is kept; it is marked below, the rest said to be left
        _left_by_interrupt(store, matches)
        failed = interrupted = True
    star = args.star or tag is None
    marked = _mark(store, [m.paper_id for m in matches if m.paper_id is not None], star=star, tag=tag)
    done = " and ".join((["starred"] if star else []) + ([f"tagged {tag!r}"] if tag is not None else []))
    _report(matches, f"{done}: {plural(marked, 'paper', thousands=True)}" if marked else "", as_json=args.json)
    if any(m.left for m in matches):
        _say_what_is_left(matches, done, "interrupted" if interrupted else "arXiv stopped answering", as_json=args.json)
    return EXIT_INTERRUPTED if interrupted else EXIT_ERROR if failed else 0


def _checked_tag(tag: str | None) -> str | None:
    if tag is None:
        return None
    from reader.core.names import tag_name

    try:
        return tag_name(tag)
    except StoreError as error:
        raise ReaderError(f"{error} (nothing was changed)") from None


def _read_bytes(file: str) -> tuple[bytes, str, str]:
    """(the bytes, the name errors give it, its suffix) of FILE, or standard input for -."""
    if file == "-":
        raw = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:  # an endless pipe (`yes ID | reader import -`) too
            raise ReaderError(f"standard input is larger than {MAX_FILE_BYTES >> 20} MB: not a library file; nothing was changed")
        return raw, "standard input", ""
    path = Path(file)
    shown = file.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if path.is_dir():
        raise ReaderError(f"{shown} is a directory, not a library file: nothing was changed")
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise ReaderError(f"cannot read {shown}: {error.strerror}: nothing was changed") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ReaderError(f"{shown} is larger than {MAX_FILE_BYTES >> 20} MB: not a library file; nothing was changed")
    return raw, shown, path.suffix


def _fetch_missing(store, settings, matches, *, search_titles: bool) -> bool:
    """Fetch the matched papers the cache lacks (and, asked to, look titles up); True when
    arXiv could not give all of them."""
    import asyncio

    from reader.service.import_matching import NOT_CACHED, SEARCH_HINT

    today = settings.today()

    def recent(asked: dict[str, str]) -> dict[str, str]:
        return {pid: day for pid, day in asked.items() if (today - date.fromisoformat(day)).days < RECHECK_DAYS}

    absent, malformed = recent(store.sync_file.not_on_arxiv()), recent(store.sync_file.malformed_on_arxiv())
    for match in matches:
        if match.paper_id in absent and not match.cached:
            why = f"not on arXiv: it had no paper {match.paper_id} when asked on {absent[match.paper_id]}"
            match.paper_id, match.how, match.reason = None, None, why
        elif match.paper_id in malformed and not match.cached:  # it will not be well-formed next time either
            match.paper_id, match.how, match.reason = None, None, _refused(match.paper_id)
    wanted = list(dict.fromkeys(m.paper_id for m in matches if m.paper_id is not None and not m.cached))
    failed = False
    try:
        if wanted or (search_titles and any(m.reason == NOT_CACHED for m in matches)):  # else every paper is cached: no request
            failed = asyncio.run(_fetch(store, settings, matches, wanted, search_titles=search_titles))
    finally:  # (Ctrl+C too: an entry left not cached then was never to be looked up)
        for match in matches:
            if match.reason == NOT_CACHED and not search_titles:
                match.reason += SEARCH_HINT
    return failed


def _left_by_interrupt(store, matches) -> None:
    """After Ctrl+C: the papers saved before it are cached (and get marked); the others are left
    for the next run, which asks arXiv for them only."""
    from reader.service.import_matching import NOT_CACHED

    asked = [m.paper_id for m in matches if m.paper_id is not None and not m.cached]
    saved = store.cached_versions(asked)
    for match in matches:
        if match.paper_id is not None and not match.cached:
            if match.paper_id in saved:
                match.cached = match.fetched = True
            else:
                match.paper_id, match.how, match.reason, match.left = None, None, "not fetched: interrupted", True
        elif match.reason == NOT_CACHED:  # --search-titles had not reached it
            match.reason, match.left = "not looked up on arXiv: interrupted", True


def _refused(paper_id: str) -> str:
    return f"not an arXiv id: arXiv refuses {paper_id} as malformed"


async def _fetch(store, settings, matches, wanted: list[str], *, search_titles: bool) -> bool:
    from reader.service.import_matching import NOT_CACHED, match_fetched
    from reader.sync.fetching import fetch_ids, find_by_title, keep
    from reader.sync.syncer import client_for

    def progress(done: int, total: int) -> None:  # asked, not found: a paper arXiv has not is asked too
        print(f"reader: asked arXiv for {done:,} of {plural(total, 'paper', thousands=True)}", file=sys.stderr)

    if wanted:
        print(f"reader: fetching {plural(len(wanted), 'paper', thousands=True)} the cache lacks from arXiv", file=sys.stderr)
    async with client_for(settings, on_notice=lambda message: print(f"reader: {message}", file=sys.stderr)) as client:
        result = await fetch_ids(store, client, wanted, progress)
        asked = settings.today().isoformat()
        if result.missing or result.saved or result.refused:
            store.sync_file.record_not_on_arxiv(
                dict.fromkeys(result.missing, asked), found=set(result.saved), malformed=dict.fromkeys(result.refused, asked)
            )
        _note_id_results(matches, result, asked)
        match_fetched(matches, store.papers_by_id(result.saved).values())
        titled = [m for m in matches if m.reason == NOT_CACHED] if search_titles else []
        failed = result.error is not None
        for position, match in enumerate(titled):
            if failed:
                match.reason, match.left = f"not looked up on arXiv: {result.error}", True
                continue
            print(f"reader: looking up title {position + 1:,} of {len(titled):,} on arXiv", file=sys.stderr)
            try:
                found = await find_by_title(client, match.citation.title, match.citation.families)
            except ReaderError as error:
                result.error, failed = str(error), True
                match.reason, match.left = f"not looked up on arXiv: {error}", True
                continue
            if len(found) == 1:
                await keep(store, found)
                match.paper_id, match.how, match.cached, match.fetched, match.reason = found[0].id, "title", True, True, None
            elif found:
                match.reason = f"{len(found)} arXiv papers have this title and an author of it: give its arXiv id"
            else:
                match.reason = "no arXiv paper has exactly this title and one of its authors"
    return failed


def _note_id_results(matches, result: Fetched, asked: str) -> None:
    """What fetching by id did for each match: fetched, or why it stays unmatched."""
    saved, missing, refused, not_tried = set(result.saved), set(result.missing), set(result.refused), set(result.not_tried)
    for match in matches:
        if match.paper_id in saved:
            match.cached, match.fetched = True, True
        elif match.paper_id in missing:
            why = f"not on arXiv: it has no paper {match.paper_id} (asked on {asked}; asked again after {RECHECK_DAYS} days)"
            match.paper_id, match.how, match.reason = None, None, why
        elif match.paper_id in refused:
            match.paper_id, match.how, match.reason = None, None, _refused(match.paper_id)
        elif match.paper_id in not_tried:
            match.paper_id, match.how, match.reason, match.left = None, None, f"not fetched: {result.error}", True


def _mark(store, ids: list[str], *, star: bool, tag: str | None) -> int:
    """Star and/or tag the papers, writing only what changes (once each file): returns how many
    papers were matched (each once)."""
    ids = list(dict.fromkeys(ids))
    if star:
        starred = store.marks().starred
        new = [pid for pid in ids if pid not in starred]
        if new:
            store.set_marks(new, starred=True)
    if tag is not None:
        try:
            tagged = set(store.papers_tagged(tag))
        except StoreError:  # no such tag yet
            tagged = set()
        new = [pid for pid in ids if pid not in tagged]
        if new:
            store.set_tags(new, add=[tag])
    return len(ids)


def _report(matches, marked: str, *, as_json: bool) -> None:
    from reader.core.import_file import plain_title
    from reader.core.sanitize import clean_text

    matched = [m for m in matches if m.paper_id is not None]
    broken = [m for m in matches if m.citation.problem is not None]  # not read: their line and why
    unmatched = [m for m in matches if m.paper_id is None and m.citation.problem is None]
    left = sum(1 for m in unmatched if m.left)
    fetched = list(dict.fromkeys(m.paper_id for m in matched if m.fetched))
    summary = (
        f"{plural(len(matches), 'entry', 'entries', thousands=True)}: {len(matched):,} matched, "
        f"{len(fetched):,} fetched from arXiv, {len(unmatched) - left:,} not found"
        + (f", {left:,} not fetched" if left else "")
        + (f", {len(broken):,} broken" if broken else "")
    )
    if as_json:
        print(summary, file=sys.stderr)
        print_json(
            {
                "matched": [m.to_json() for m in matched],
                "fetched": fetched,
                "unmatched": [m.to_json() for m in unmatched],
                "broken": [{"key": row["key"], "line": m.citation.line, "reason": row["reason"]} for m in broken if (row := m.to_json())],
            }
        )
        return
    print(summary)
    if marked:
        print(marked)
    not_found = [m for m in matches if m.paper_id is None]  # broken entries too, in the file's order
    if len(not_found) > GROUP_OVER:
        _report_grouped(not_found)
        return
    for match in not_found:  # the file's words cleaned as feed text is: no escape sequence, no bidi control
        row = match.to_json()
        title = clean_text(plain_title(match.citation.title))
        print(f"{row['key']}\t{title or '(no title)'}\t{row['reason']}")


def _say_what_is_left(matches, done: str, why: str, *, as_json: bool) -> None:
    """The last line when the run stopped half-way (as sync's): what was kept, what is left."""
    fetched = len({m.paper_id for m in matches if m.fetched})
    marked = len({m.paper_id for m in matches if m.paper_id is not None})
    left = sum(1 for m in matches if m.left)
    print(
        f"{why}: {plural(fetched, 'paper', thousands=True)} fetched from arXiv and kept, {marked:,} {done}, "
        f"{left:,} not fetched or looked up: run it again to finish (it asks arXiv only for what is missing)",
        file=sys.stderr if as_json else sys.stdout,
    )


_DETAIL = re.compile(rf"\s*\([^)]*\)|(?<![\w.]){ID_PATTERN}(?![\w.])|\b\d+\b")


def _report_grouped(unmatched) -> None:
    """Hundreds of entries not found: one line per reason (its ids, counts and lines as N), with
    how many and the first keys."""
    from reader.core.sanitize import clean_text

    groups: dict[str, list[str]] = {}
    for match in unmatched:
        why = " ".join(_DETAIL.sub(lambda m: "" if m.group().lstrip().startswith("(") else "N", match.reason).split())
        groups.setdefault(why, []).append(clean_text(match.citation.label))
    for why, keys in sorted(groups.items(), key=lambda group: -len(group[1])):
        more = f" and {len(keys) - SHOWN_KEYS:,} more" if len(keys) > SHOWN_KEYS else ""
        print(f"{plural(len(keys), 'entry', 'entries', thousands=True)}: {why}: {', '.join(keys[:SHOWN_KEYS])}{more}")
    print("(--json lists each entry with its title and reason)")
