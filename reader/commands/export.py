"""`reader export`: papers chosen by id, star, tag, topic and query (together: all must hold), written as
BibTeX, RIS or CSL-JSON, to standard output, a file, or into an existing .bib (`--update`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from reader.commands.common import (
    cached_ids,
    open_store,
    print_warning,
    read_catalog,
    selected_papers,
    tagged_ids,
    topic_name,
    validated_query,
)
from reader.commands.completion import completes_names
from reader.commands.marks import ID_HELP
from reader.core.exporting import FORMAT_NAMES, FORMATS, format_of_path, render
from reader.core.text import plural
from reader.errors import ReaderError
from reader.ids import parse_paper_id
from reader.safe_files import link_target, path_problem


def register(commands) -> None:
    parser = commands.add_parser(
        "export",
        help="write papers as BibTeX, RIS or CSL-JSON (by id, starred, tag, topic, query)",
        description="Write papers for a reference manager, with your tags as keywords and your note. "
        "Selectors combine: a paper is exported when it passes every one given (ids, --starred, --tag, "
        "--topic, --query).",
    )
    parser.add_argument("ids", nargs="*", metavar="ID", help=ID_HELP)
    parser.add_argument("--starred", action="store_true", help="the starred papers")
    completes_names(parser.add_argument("--tag", metavar="TAG", help="the papers with this tag (any case)"), "tag")
    parser.add_argument("--topic", metavar="NAME", help="the papers of a topic")
    parser.add_argument("--query", metavar="Q", help="the papers matching a query (as in `reader list`)")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="file format (default: by -o's extension, any case: .bib BibTeX, .ris RIS, "
        ".json CSL-JSON; any other name and standard output: BibTeX)",
    )
    parser.add_argument(
        "--unicode",
        action="store_true",
        help="BibTeX: keep names and titles in UTF-8 (biber, xelatex, lualatex) instead of LaTeX accents and transliteration",
    )
    parser.add_argument(
        "--update",
        metavar="FILE",
        help="BibTeX: add the papers not yet in FILE to it, keeping every byte already there (papers found in it keep their entry and key)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write here (atomically) instead of to stdout, in the format its extension names; "
        "a file holding entries reader did not write, or changed since, is refused (see --force)",
    )
    parser.add_argument(
        "--force", action="store_true", help="with -o: replace the file even when it holds entries reader did not write (they are lost)"
    )
    parser.set_defaults(handler=run)


def _chosen_format(args: argparse.Namespace) -> str:
    """--format when given (a file named for another format gets one line saying so), else the
    format -o's extension names, else BibTeX."""
    named = format_of_path(args.output)
    if args.format is None:
        return named or "bibtex"
    if named is not None and named != args.format:
        print_warning(
            f"{args.output} ends in {Path(args.output).suffix}, but --format {args.format} was given: writing {FORMAT_NAMES[args.format]}"
        )
    return args.format


def _check_options(args: argparse.Namespace, format: str) -> None:
    if not (args.ids or args.starred or args.tag or args.topic or args.query):
        raise ReaderError("say what to export: ids, --starred, --tag TAG, --topic NAME and/or --query Q")
    named = format_of_path(args.update)
    if named not in (None, "bibtex"):
        raise ReaderError(f"--update {args.update!r}: --update adds to a BibTeX file only; write {FORMAT_NAMES[named]} whole with -o")
    if format != "bibtex" and (args.unicode or args.update):
        option = "--unicode" if args.unicode else "--update"
        raise ReaderError(f"{option} is for BibTeX only (RIS and CSL-JSON are always UTF-8 and written whole)")
    if args.update is not None and args.output is not None:
        raise ReaderError("--update writes FILE itself: leave out -o")
    if args.force and args.output in (None, "-"):
        raise ReaderError("--force is for -o FILE: it replaces a file that holds entries reader did not write")
    for option, value in (("-o", args.output), ("--update", args.update)):
        problem = path_problem(value) if value not in (None, "-") else None
        if option == "--update" and value is not None and not problem:
            problem = _update_problem(Path(value).expanduser())
        if problem:
            raise ReaderError(f"{option} {value!r}: {problem}")


def _update_problem(path: Path) -> str | None:
    """Why `--update` may not append to `path`: through a link, only to a regular .bib file (a
    link to anything else would have its text copied out, or be written as BibTeX)."""
    if not path.is_symlink():
        return None
    target = link_target(path)
    if target is None or not target.is_file() or target.suffix.lower() != ".bib":
        return f"a link to {target or 'itself'}, which is not a .bib file: --update follows links only to .bib files"
    return None


def run(args: argparse.Namespace, settings) -> int:
    from reader.service.exports import users_entries, write_whole

    format = _chosen_format(args)
    _check_options(args, format)
    for ref in args.ids:  # a mistyped id is said before anything is opened
        parse_paper_id(ref)
    store = open_store(args, settings)
    wanted = set(cached_ids(store, args.ids)) if args.ids else None
    query = validated_query(args.query, for_arxiv=False) if args.query else None
    catalog = read_catalog(store)
    tagged = tagged_ids(store, args.tag)
    only = wanted if tagged is None else tagged if wanted is None else wanted & tagged
    papers = selected_papers(
        store,
        catalog,
        query=query,
        topic=topic_name(store, args.topic),
        starred=args.starred,
        only=only,
        hidden=None if wanted is not None else False,  # papers named by id are exported even when hidden
    )

    extras = {
        "tags": {pid: list(t) for pid, t in store.tags_of(p.id for p in papers).items() if t},
        "notes": store.notes(),
        "print_arxiv_id": settings.bibtex_print_arxiv_id,
    }
    if args.update is not None:
        return _update(store.data_dir, Path(args.update).expanduser(), papers, unicode=args.unicode, keys=store.citation_keys, **extras)
    text = render(format, papers, unicode=args.unicode, keys=store.citation_keys(papers), **extras)
    if args.output is None or args.output == "-":
        sys.stdout.write(text)
    else:
        target = Path(args.output).expanduser()
        held = None if args.force else users_entries(store.data_dir, format, target, text)
        if held is not None:
            merge = f"--update {args.output} adds to it, keeping every entry; " if format == "bibtex" else ""
            raise ReaderError(
                f"{held.summary(args.output)} (yours, or changed since reader wrote them): "
                f"nothing written; {merge}--force replaces it, dropping them"
            )
        write_whole(store.data_dir, format, target, text)
        print(
            f"wrote {plural(len(papers), 'entry', 'entries', thousands=True)} to {args.output} as {FORMAT_NAMES[format]}", file=sys.stderr
        )
    if not papers:
        written = "the output" if args.output is None or args.output == "-" else "the file"
        print(f"nothing matched the selection: {written} has no entries", file=sys.stderr)
    return 0


def _update(
    data_dir: Path,
    path: Path,
    papers,
    *,
    unicode: bool,
    keys: Callable,
    tags: dict[str, list[str]],
    notes: dict[str, str],
    print_arxiv_id: bool,
) -> int:
    from reader.service.exports import update_bib

    result = update_bib(data_dir, path, papers, unicode=unicode, keys=keys, tags=tags, notes=notes, print_arxiv_id=print_arxiv_id)
    for paper_id, (recorded, written) in result.renamed.items():
        print(f"{path}: {recorded}, the key of {paper_id}, names another entry there: added it as {written}", file=sys.stderr)
    print(
        f"{path}: added {plural(len(result.added), 'entry', 'entries', thousands=True)}, {len(result.kept):,} already there (kept as they are)",
        file=sys.stderr,
    )
    return 0
