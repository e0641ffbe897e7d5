"""The PDF page view's drawing: `python -m benchmarks.pdf_pages`. For each page of the pdflatex
fixtures, drawn for a 100 x 40 view (half blocks) and for a 4-megapixel bitmap (what a graphics
protocol would be sent), the wall time of reader/fulltext/pdfpages.py's child (its start included)
and its CPU time; then hostile pages (a 100,000 x 100,000 point media box, 100 MB of content, a
page tens of seconds of CPU to fill) with what each said and the children's peak RSS. Targets:
a page under 1 s, hostile ones refused within 10 s of CPU and 300 MB."""

from __future__ import annotations

import resource
import tempfile
import time
from pathlib import Path

from benchmarks import ROOT, as_installed

PAPERS = ROOT / "tests" / "fixtures" / "pdfpapers"


def timed(path: Path, number: int, width: int, height: int) -> tuple[float, float, str]:
    """(wall s, CPU s of the child, what it gave or said)."""
    from reader.fulltext.pdfpages import PageRefused, render_page

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    try:
        page = render_page(path, number, width, height)
        said = "x".join(map(str, page.image.size)) if page.image is not None else "text"
    except PageRefused as error:
        said = str(error)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, said


def hostile(folder: Path) -> dict[str, Path]:
    import io

    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, NameObject

    def pdf(name: str, width: float, height: float, content: bytes) -> Path:
        writer = PdfWriter()
        page = writer.add_blank_page(width, height)
        stream = DecodedStreamObject()
        stream.set_data(content)
        page[NameObject("/Contents")] = writer._add_object(stream.flate_encode())
        out = io.BytesIO()
        writer.write(out)
        path = folder / f"{name}.pdf"
        path.write_bytes(out.getvalue())
        return path

    triangle = b"0 0 m 612 792 l 0 792 l f "
    return {
        "100,000 x 100,000 points": pdf("huge", 100_000, 100_000, b"0 0 m 100000 100000 l 0 100000 l f"),
        "100 MB of content": pdf("crowded", 612, 792, triangle * 4_000_000),
        "200,000 filled triangles": pdf("slow", 612, 792, triangle * 200_000),
    }


def main() -> None:
    as_installed()
    print(f"{'page':<28} {'size':<12} {'wall s':>7} {'CPU s':>6}  result")
    for style in ("article", "revtex", "elsarticle"):
        for number in (1, 2, 3):
            for size, (width, height) in {"100x40 cells": (200, 160), "4 Mpx": (1732, 2240)}.items():
                wall, cpu, said = timed(PAPERS / f"{style}.pdf", number, width, height)
                label = f"{style} page {number}"
                print(f"{label:<28} {size:<12} {wall:7.2f} {cpu:6.2f}  {said}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in hostile(Path(tmp)).items():
            wall, cpu, said = timed(path, 1, 2000, 2000)
            print(f"{name:<28} {'2000x2000':<12} {wall:7.2f} {cpu:6.2f}  {said}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    print(f"peak RSS of the drawing children: {peak} MB")


if __name__ == "__main__":
    main()
