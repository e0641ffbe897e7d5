"""`reader fig` and `reader text --figures`: a paper's figures, fetched from arXiv as its HTML names
them and kept in the data directory (reader/fulltext/figures.py)."""

from __future__ import annotations

import sys

from reader.commands.common import cached_paper, open_store, output_file, print_warning, write_output
from reader.commands.marks import ID_HELP
from reader.core.text import plural
from reader.errors import ReaderError


def register(commands) -> None:
    fig = commands.add_parser(
        "fig",
        help="write one of a paper's figures (an image) to a file",
        description="Write image N of a cached paper's full text (its images counted from 1 in reading order, "
        "sub-figure panels each their own) to FILE, or to standard output when it is piped. The text and the "
        "image are fetched once, then kept in the data directory.",
    )
    fig.add_argument("id", metavar="ID", help=ID_HELP)
    fig.add_argument("number", metavar="N", type=int, help="which image, from 1 (`reader text ID --figures` lists them)")
    fig.add_argument("-o", "--output", metavar="FILE", help="write it here (default: standard output, when it is not a terminal)")
    fig.set_defaults(handler=cmd_fig)


def _run(settings, job):
    """Run `job(client, cache)` (a coroutine function) with one arXiv client."""
    import asyncio

    from reader.arxiv.client import ArxivClient
    from reader.config import default_data_dir
    from reader.fulltext.figures import FigureCache
    from reader.sync.types import client_options

    cache = FigureCache(settings.data_dir or default_data_dir(), settings.figure_cache_mb)

    async def run():
        async with ArxivClient(client_options(settings), on_notice=lambda message: print_warning(message)) as client:
            return await job(client, cache)

    return asyncio.run(run())


def prefetch(settings, document) -> int:
    """`reader text ID --figures`: every image of the text fetched (or found kept), a line each on
    stderr, a summary on stdout; 1 when any could not be fetched (a refused image is no failure)."""
    from reader.errors import ArxivError
    from reader.fulltext.figures import fetch_image
    from reader.fulltext.picture import ImageNotDrawnNow, ImageRefused

    images = document.images
    counts = {"kept": 0, "refused": 0, "failed": 0}

    async def job(client, cache):
        for number, (figure, url) in enumerate(images, start=1):
            where = f"[{number}/{len(images)}] {figure.text[:60]}"
            try:
                path = await fetch_image(client, cache, document.id, document.version, number, url)
            except ImageNotDrawnNow as passing:  # not the image's fault: the next run tries it again
                counts["failed"] += 1
                print(f"{where}: FAILED: {passing}", file=sys.stderr)
                continue
            except ImageRefused as refused:
                counts["refused"] += 1
                print(f"{where}: not shown: {refused}", file=sys.stderr)
                continue
            except ArxivError as error:
                counts["failed"] += 1
                print(f"{where}: FAILED: {error}", file=sys.stderr)
                continue
            counts["kept"] += 1
            size = path.stat().st_size
            print(f"{where}: {size:,} bytes" if size < 10_240 else f"{where}: {size // 1024:,} KB", file=sys.stderr)

    if images:
        _run(settings, job)
    summary = f"{document.id}v{document.version}: {plural(len(images), 'image', thousands=True)}, {counts['kept']:,} kept"
    if counts["refused"]:
        summary += f", {counts['refused']:,} refused"
    if counts["failed"]:
        summary += f", {counts['failed']:,} failed"
    print(summary)
    return 1 if counts["failed"] else 0


def cmd_fig(args, settings) -> int:
    from reader.fulltext.fetch import TextFetcher
    from reader.fulltext.figures import fetch_image
    from reader.fulltext.store import TextStore

    output = output_file(args.output, "figure.png")
    if output is None and sys.stdout.isatty():
        raise ReaderError("an image is no text for a terminal: give -o FILE, or pipe it")
    store = open_store(args, settings)
    pid, cached = cached_paper(store, args.id)
    texts = TextStore(store.data_dir)
    stored = texts.load(pid)

    async def job(client, cache):
        document = stored if stored is not None else await TextFetcher(client, texts).text(pid, cached)
        images = document.images
        if not 1 <= args.number <= len(images):
            if not images:
                raise ReaderError(f"the text of {pid}v{document.version} has no images")
            raise ReaderError(f"the text of {pid}v{document.version} has {plural(len(images), 'image')}: N is 1 to {len(images)}")
        figure, url = images[args.number - 1]
        path = await fetch_image(client, cache, pid, document.version, args.number, url)
        return path, f"figure {args.number} of {pid}v{document.version} ({figure.text[:60]})"

    path, what = _run(settings, job)
    from reader.fulltext.picture import MAX_BYTES, open_image
    from reader.safe_files import UnsafeFileError, read_regular

    try:  # as the view reads a kept image: a regular file within the bound, an image still
        data = read_regular(path, MAX_BYTES)
    except (OSError, UnsafeFileError) as error:
        raise ReaderError(f"cannot read {path}: {error}") from None
    open_image(data)
    if output is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return 0
    write_output(output, data)
    print(f"{what} written to {output}", file=sys.stderr)
    return 0
