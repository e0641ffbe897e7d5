"""Generated images for the figures' tests (tests/test_figures.py): well-formed ones in each format
and the hostile ones (a bomb's header, a truncated file, thousands of frames), all small, and a
LaTeXML page naming them as arXiv writes figures."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image

RED, BLUE = (255, 0, 0), (0, 0, 255)
PNG = {"Content-Type": "image/png"}


def checkerboard(columns: int = 4, rows: int = 4, square: int = 2) -> Image.Image:
    """Squares of `square` pixels, red where (row + column) is even, blue elsewhere."""
    image = Image.new("RGB", (columns * square, rows * square))
    for y in range(rows * square):
        for x in range(columns * square):
            image.putpixel((x, y), RED if (x // square + y // square) % 2 == 0 else BLUE)
    return image


def encoded(image: Image.Image, format: str, **options) -> bytes:
    out = io.BytesIO()
    image.save(out, format=format, **options)
    return out.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bomb_header(side: int = 100_000) -> bytes:
    """A PNG claiming side x side pixels, a few dozen bytes long (one row of data at most)."""
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + _chunk(b"IEND", b"")


def many_frames_gif(frames: int = 10_000) -> bytes:
    """A 1x1 GIF of `frames` frames: Pillow's two-frame file with its second frame repeated."""
    two = encoded(Image.new("P", (1, 1), 0), "GIF", save_all=True, append_images=[Image.new("P", (1, 1), 1)], disposal=1)
    second = two.rindex(b"\x21\xf9")  # the second frame's graphic control extension
    return two[:second] + two[second:-1] * frames + b";"  # Pillow counts one fewer than the frames written


def truncated_png() -> bytes:
    whole = encoded(checkerboard(64, 64, 3), "PNG")
    return whole[: len(whole) // 2]


SVG = b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="10" height="10"/></svg>'
# A drawing naming a file of the reader's own disk, which resvg would read and draw.
SVG_NAMING_A_FILE = (
    b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="40">'
    b'<image xlink:href="/etc/hostname.png" width="40" height="40"/></svg>'
)


def two_bars_svg() -> bytes:
    """A 200 x 100 drawing: its left half red, its right half blue."""
    return (
        b'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100">'
        b'<rect width="100" height="100" fill="#ff0000"/><rect x="100" width="100" height="100" fill="#0000ff"/></svg>'
    )


def figures_page(sources: list[str], table_image: str | None = None) -> bytes:
    """A LaTeXML article: a paragraph, a figure of two sub-figure panels, then one figure per
    other source, each with its caption; with `table_image`, a table with that image in a cell;
    the page's end."""
    first, second, *others = sources
    parts = [
        '<html><head><title>t</title></head><body><article class="ltx_document">',
        '<h1 class="ltx_title ltx_title_document">A paper with figures</h1>',
        '<section class="ltx_section"><p class="ltx_p">Figure 1 shows the board.</p>',
        '<figure id="S1.F1" class="ltx_figure">',
        f'<figure id="S1.F1.1" class="ltx_figure ltx_flex_size_1"><img src="{first}" class="ltx_graphics" alt="">'
        '<figcaption class="ltx_caption">(a) left</figcaption></figure>',
        f'<figure id="S1.F1.2" class="ltx_figure ltx_flex_size_1"><img src="{second}" class="ltx_graphics" alt="">'
        '<figcaption class="ltx_caption">(b) right</figcaption></figure>',
        '<figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_figure">Figure 1: </span>A board in two panels.</figcaption>',
        "</figure>",
    ]
    for number, src in enumerate(others, start=2):
        parts.append(
            f'<figure id="S1.F{number}" class="ltx_figure"><img src="{src}" class="ltx_graphics" alt="">'
            f'<figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_figure">Figure {number}: </span>Panel {number}.</figcaption></figure>'
        )
    if table_image is not None:
        parts.append(
            '<figure id="S1.T1" class="ltx_table"><figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_table">Table 1: </span>'
            f'Marks.</figcaption><table class="ltx_tabular"><tr class="ltx_tr"><td class="ltx_td"><img src="{table_image}" alt=""></td>'
            '<td class="ltx_td">good</td></tr></table></figure>'
            '<figure id="S1.T2" class="ltx_table"><figcaption class="ltx_caption">Table 2: No image.</figcaption>'
            "<table><tr><td>a</td><td>b</td></tr></table></figure>"
        )
    parts.append('<p class="ltx_p">Words between the figures.</p></section></article></body></html>')
    return "".join(parts).encode()
