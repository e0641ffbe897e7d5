"""`reader text`, `fetch-text`, `pdf` and `refs`: papers' full texts, read in the terminal, kept in
the data directory for reading offline and for `text:` searches (reader/fulltext)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from reader.commands.common import (
    cached_paper,
    open_store,
    output_file,
    print_json,
    print_warning,
    read_catalog,
    selected_ids,
    topic_name,
    write_output,
)
from reader.commands.completion import completes_names
from reader.commands.marks import ID_HELP
from reader.core.sanitize import clean_text
from reader.core.text import plural
from reader.errors import ReaderError

FETCHED_TEXTS = "Texts are kept in the data directory: read them offline, search them with text:"


def register(commands) -> None:
    text = commands.add_parser(
        "text",
        help="print a paper's full text (fetched once from arXiv's HTML, ar5iv's, or the PDF, then kept)",
        description="Print a cached paper's full text: title, authors, sections, math (in Unicode on a terminal, as TeX "
        f"when piped), the references last. {FETCHED_TEXTS}.",
    )
    text.add_argument("id", metavar="ID", help=ID_HELP)
    text.add_argument("--refresh", action="store_true", help="fetch the text again, even when it is stored")
    math = text.add_mutually_exclusive_group()
    math.add_argument("--tex", action="store_true", help="print math as TeX (the default when piped)")
    math.add_argument("--unicode", action="store_true", help="print math in Unicode (the default on a terminal)")
    text.add_argument(
        "--figures", action="store_true", help="fetch and keep the text's figures instead of printing it (a line each on stderr)"
    )
    text.set_defaults(handler=cmd_text)

    fetch = commands.add_parser(
        "fetch-text",
        help="fetch and keep the full texts of papers, for reading offline and text: searches",
        description=f"Fetch the full texts not stored yet (or stored at an older version), one by one. {FETCHED_TEXTS}.",
    )
    fetch.add_argument("ids", nargs="*", metavar="ID", help=ID_HELP)
    completes_names(fetch.add_argument("--topic", action="append", metavar="NAME", help="the papers of this topic (repeatable)"), "topic")
    fetch.add_argument("--starred", action="store_true", help="the starred papers")
    fetch.set_defaults(handler=cmd_fetch_text)

    pdf = commands.add_parser(
        "pdf",
        help="save a paper's PDF and print its path",
        description="Save a cached paper's PDF, byte for byte as arXiv sends it (one saved for that version is reused), "
        "and print its absolute path as the last line.",
    )
    pdf.add_argument("id", metavar="ID", help=ID_HELP)
    pdf.add_argument("-o", "--output", metavar="FILE", help="write it here too (default: pdf/ in the data directory)")
    pdf.set_defaults(handler=cmd_pdf)

    refs = commands.add_parser(
        "refs",
        help="a stored text's references, with the arXiv papers they name",
        description="List the bibliography of a paper's stored text in order, with the arXiv id of each entry that names "
        "one, and whether that paper is cached, starred or read. With --cited-by: the cached papers whose stored "
        "texts cite the paper instead.",
    )
    refs.add_argument("id", metavar="ID", help=ID_HELP)
    refs.add_argument(
        "--cited-by", action="store_true", help="list the cached papers whose stored texts cite this one (it need not be cached)"
    )
    refs.add_argument(
        "--json",
        action="store_true",
        help="print an array of {number, key, text, arxiv_id, cached, starred, read} "
        "(with --cited-by: of {id, version, title, starred, read})",
    )
    refs.set_defaults(handler=cmd_refs)


def _run(settings, job):
    """Run `job(fetcher)` (a coroutine function) with one arXiv client, as sync does."""
    import asyncio

    from reader.arxiv.client import ArxivClient
    from reader.fulltext.fetch import TextFetcher
    from reader.fulltext.store import TextStore
    from reader.sync.types import client_options

    async def run():
        async with ArxivClient(client_options(settings), on_notice=lambda message: print_warning(message)) as client:
            return await job(TextFetcher(client, TextStore(_data_dir(settings))))

    return asyncio.run(run())


def _data_dir(settings) -> Path:
    from reader.config import default_data_dir

    return settings.data_dir or default_data_dir()


# --- reader text ---------------------------------------------------------------------------------


def cmd_text(args, settings) -> int:
    from reader.fulltext.store import TextStore

    store = open_store(args, settings)
    pid, cached = cached_paper(store, args.id)
    texts = TextStore(store.data_dir)
    document = None if args.refresh else texts.load(pid)
    if document is not None:
        from reader.fulltext.fetch import reread_pdf_text

        document = reread_pdf_text(texts, document)  # a PDF's text of an older format: its figures, from the kept PDF
    if document is None:
        document = fetch_document(settings, pid, cached, refresh=args.refresh)
    if document.version < cached:
        print(
            f"reader: note: this is the text of {pid}v{document.version}; the cache has v{cached} "
            f"(`reader text {pid} --refresh` fetches it)",
            file=sys.stderr,
        )
    if document.source == "pdf":
        print(f"reader: note: arXiv has no HTML of {pid}v{document.version}: this text was read from its PDF", file=sys.stderr)
    elif document.source == "page":
        print(
            f"reader: note: {pid}v{document.version} is an HTML page its authors submitted (no LaTeXML, no PDF): this is its visible text",
            file=sys.stderr,
        )
    elif document.source == "ar5iv":
        print(
            f"reader: note: arXiv has no HTML of {pid}v{document.version}: this text is ar5iv's HTML "
            f"({settings.ar5iv_url}), of the version ar5iv has (maybe an earlier one)",
            file=sys.stderr,
        )
    if args.figures:
        from reader.commands.figures import prefetch

        return prefetch(settings, document)
    terminal = sys.stdout.isatty()
    show(document, terminal=terminal, unicode=args.unicode or (terminal and not args.tex))
    return 0


def fetch_document(settings, pid: str, version: int, *, refresh: bool = False):
    """The text of that version fetched from arXiv and stored (a line on a terminal's stderr)."""
    if sys.stderr.isatty():
        print(f"fetching the full text of {pid}v{version} ...", file=sys.stderr)
    return _run(settings, lambda fetcher: fetcher.text(pid, version, refresh=refresh))


def show(document, *, terminal: bool, unicode: bool) -> None:
    """Piped: one line per block. On a terminal: wrapped to its width, through $PAGER when longer
    than the screen. `unicode`: formulas in Unicode where the page's MathML said them, else TeX."""
    from reader.fulltext.render import lines

    if not terminal:  # UTF-8 whatever the locale says
        sys.stdout.flush()
        out = sys.stdout.buffer
        for line in lines(document, unicode=unicode):
            out.write(line.encode("utf-8") + b"\n")
        out.flush()
        return
    import shutil  # (a terminal's size: not imported by the piped and other commands)

    size = shutil.get_terminal_size()
    text = list(lines(document, min(size.columns, 100), unicode=unicode))
    if len(text) < size.lines - 1 or not _page("\n".join(text) + "\n"):
        for line in text:
            print(line)


def _page(text: str) -> bool:
    """Show `text` through the user's pager; False when there is none to run."""
    import subprocess

    command = os.environ.get("PAGER") or "less"
    environment = dict(os.environ)
    environment.setdefault("LESS", "FRX")  # leave at the end, no screen clearing (as git does)
    try:
        pager = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=environment)
    except OSError:
        return False
    assert pager.stdin is not None
    try:
        pager.stdin.write(text.encode("utf-8"))
        pager.stdin.close()
    except BrokenPipeError:  # the reader quit the pager early
        pass
    return pager.wait() != 127  # 127: the shell found no such command


# --- reader fetch-text ---------------------------------------------------------------------------


def cmd_fetch_text(args, settings) -> int:
    from reader.errors import ArxivError
    from reader.fulltext.pdf import PdfUnreadable
    from reader.fulltext.store import TextStore

    store = open_store(args, settings)
    if not (args.ids or args.topic or args.starred):
        raise ReaderError("name the papers: IDs, --topic NAME or --starred")
    wanted: dict[str, int] = {}
    for ref in args.ids:
        pid, version = cached_paper(store, ref)
        wanted[pid] = version
    if args.topic or args.starred:
        catalog = read_catalog(store)
        index = catalog.index
        for name in args.topic or [None]:
            selected = selected_ids(catalog, topic=topic_name(store, name), starred=args.starred)
            for pid, row in zip(selected, index.positions().rows_of(selected, -1).tolist()):
                wanted.setdefault(pid, index.versions[row])
    stored = TextStore(store.data_dir).stored_versions()
    todo = [(pid, version) for pid, version in wanted.items() if stored.get(pid, 0) < version]
    already = len(wanted) - len(todo)
    failed = 0

    async def job(fetcher):
        nonlocal failed
        for number, (pid, version) in enumerate(todo, start=1):
            where = f"[{number}/{len(todo)}] {pid}v{version}"
            try:
                document = await fetcher.text(pid, version)
            except (ArxivError, PdfUnreadable) as error:  # the next paper's may be fine
                failed += 1
                print(f"{where}: FAILED: {error}", file=sys.stderr)
                continue
            source = {"html": "HTML", "ar5iv": "HTML of ar5iv (no arXiv HTML)", "pdf": "PDF (no HTML)"}.get(
                document.source, "authors' HTML page"
            )
            print(f"{where}: stored from the {source}, {plural(len(document.blocks), 'block', thousands=True)}", file=sys.stderr)

    if todo:
        _run(settings, job)
    done = len(todo) - failed
    summary = f"fetched {done:,} of {plural(len(todo), 'text', thousands=True)}"
    if already:
        summary += f"; {already:,} stored already"
    if failed:
        summary += f"; {failed:,} failed"
    print(summary)
    return 1 if failed else 0


# --- reader pdf ----------------------------------------------------------------------------------


def cmd_pdf(args, settings) -> int:
    store = open_store(args, settings)
    output = output_file(args.output, "paper.pdf")
    pid, cached = cached_paper(store, args.id)
    path = _run(settings, lambda fetcher: fetcher.pdf(pid, cached))
    if output is not None:
        try:
            data = path.read_bytes()
        except OSError as error:
            raise ReaderError(f"cannot read {path}: {error.strerror}") from None
        write_output(output, data)
        path = output
    print(os.path.abspath(path))
    return 0


# --- reader refs ---------------------------------------------------------------------------------


def cmd_refs(args, settings) -> int:
    from reader.fulltext.store import TextStore

    store = open_store(args, settings)
    if args.cited_by:
        return _cited_by(store, args)
    pid, _ = cached_paper(store, args.id)
    document = TextStore(store.data_dir).load(pid)
    if document is None:
        raise ReaderError(f"no stored text of {pid}: `reader text {pid}` or `reader fetch-text {pid}` fetches it")
    rows = reference_rows(store, document)
    if args.json:
        print_json(rows)
        return 0
    if not rows:
        print(f"the text of {pid}v{document.version} has no references", file=sys.stderr)
    for row in rows:
        line = row["text"]
        if row["arxiv_id"]:
            marks = [name for name in ("cached", "starred", "read") if row[name]]
            line += f"  [arXiv:{row['arxiv_id']}{': ' + ', '.join(marks) if marks else ''}]"
        print(line)
    return 0


def reference_rows(store, document) -> list[dict]:
    references = document.references
    ids = [block.arxiv_id for block in references if block.arxiv_id]
    cached = store.cached_versions(ids) if ids else {}
    marks = store.marks()
    return [
        {
            "number": block.number,  # in the bibliography, as LaTeXML numbered it (bib.bibN)
            "key": block.key,  # its anchor in the page, what the text's citations link to
            "text": block.text,
            "arxiv_id": block.arxiv_id,
            "cached": block.arxiv_id in cached,
            "starred": block.arxiv_id in marks.starred,
            "read": block.arxiv_id in marks.read,
        }
        for block in references
    ]


def _cited_by(store, args) -> int:
    """`reader refs ID --cited-by`: one line per cached paper whose stored text cites ID (read from
    the full-text index, brought up to date first: no text is read unless it changed)."""
    from reader.fulltext.text_index import TextIndex
    from reader.ids import parse_paper_id

    pid, _ = parse_paper_id(args.id)
    citing = TextIndex(store.data_dir).cited_by(pid) or []
    papers = _cards(store, citing)  # the cached ones: a text outlives its paper's removal
    marks = store.marks()
    rows = [
        {
            "id": paper.id,
            "version": paper.version,
            "title": paper.title,
            "starred": paper.id in marks.starred,
            "read": paper.id in marks.read,
        }
        for paper in (papers[cid] for cid in citing if cid in papers)
    ]
    if args.json:
        print_json(rows)
        return 0
    print(f"cited by {plural(len(rows), 'paper', thousands=True)} in your library (of the stored texts)", file=sys.stderr)
    for row in rows:
        marks_said = [name for name in ("starred", "read") if row[name]]
        print(f"arXiv:{row['id']}v{row['version']}  {clean_text(row['title'])}{'  [' + ', '.join(marks_said) + ']' if marks_said else ''}")
    return 0


def _cards(store, ids: list[str]) -> dict:
    """The cards of these papers (id, version, title) from the search index, brought up to date for
    their shards only (a stat of each); from their records when the index cannot answer. Neither
    the library service nor a refresh of every shard: they cost more than the lookup itself."""
    from reader.search_index import SearchIndex, SearchIndexError

    index = SearchIndex.open(store.data_dir)
    try:
        return index.current_cards(store, ids)
    except SearchIndexError:
        return store.papers_by_id(ids)
    finally:
        index.close()
