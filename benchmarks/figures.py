"""Figures (issue 42): `python -m benchmarks.figures [--figures 50] [--formulas 500] [--width 114] [--runs 5]`.

A stored text of `--figures` figures and `--formulas` display formulas between paragraphs, each
figure's image a 1600 x 1000 PNG of noise and gradients (hard to compress, like a plot or a
photo). Measures, in this process (medians): the view's lines with no image drawn (the work behind
the first screen of a stored text), reading one image and drawing it as half-blocks at the view's
width (off the UI thread, once per width), and the view's lines again with every image drawn
(what is laid out after each image arrives), and a screenful of drawn image rows rendered by the
view as it scrolls (on the event loop); and the same for a Kitty terminal (the image scaled,
encoded and written as escape sequences; a screenful of its placement cells), and an SVG plot
drawn by resvg in its bounded child process (once, when the figure is fetched). Targets: first screen 100 ms, an image drawn 1 s after it
arrives, scrolling 20 ms."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path


def _median_ms(work, runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def _scrolling_ms(lines, steps: int = 30) -> tuple[float, float]:
    """A screenful of the view's lines rendered at `steps` places: (median, worst) in ms."""
    from textual.app import App

    from reader.app.widgets.record_view import RecordView

    class Bench(App):
        def compose(self):
            yield RecordView()

    async def run() -> list[float]:
        app = Bench()
        samples = []
        async with app.run_test(size=(120, 40)) as pilot:
            view = app.query_one(RecordView)
            view.show(lines, home=True)
            await pilot.pause()
            for step in range(steps):
                view.scroll_to(y=step * (len(lines.strips) // steps), animate=False, immediate=True)
                started = time.perf_counter()
                for y in range(view.size.height):
                    view.render_line(y)
                samples.append((time.perf_counter() - started) * 1000)
        return samples

    samples = asyncio.run(run())
    return statistics.median(samples), max(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--figures", type=int, default=50)
    parser.add_argument("--formulas", type=int, default=500)
    parser.add_argument("--width", type=int, default=114, help="the view's width in cells (a 120-column terminal)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    from PIL import Image

    from reader.app.widgets.picture import cell_strips, placement_strips
    from reader.app.widgets.text_layout import text_lines
    from reader.core.terminal_graphics import kitty_image
    from reader.fulltext.document import FIGURE, MATH, PARAGRAPH, Block, Document
    from reader.fulltext.figures import FigureCache
    from reader.fulltext.picture import half_blocks, terminal_pixels
    from reader.fulltext.svgdraw import draw_svg

    blocks = []
    for number in range(args.figures):
        blocks.append(Block(PARAGRAPH, "Words of a paragraph, long enough to wrap over a few lines of the view. " * 6))
        for formula in range(args.formulas // max(1, args.figures)):
            blocks.append(Block(MATH, f"$$\\mathbb{{E}}_{{x\\sim p}}[\\log q_{formula}(x)] = \\sum_i \\alpha_i x_i^2$$ ({formula})"))
        blocks.append(Block(FIGURE, f"Figure {number + 1}: A plot.", images=(f"https://arxiv.org/html/2301.00001v1/x{number + 1}.png",)))
    document = Document("2301.00001", 1, "html", tuple(blocks))

    gradient = Image.linear_gradient("L").resize((1600, 1000)).convert("RGB")
    noise = Image.effect_noise((1600, 1000), 64).convert("RGB")
    picture = Image.blend(gradient, noise, 0.5)
    with tempfile.TemporaryDirectory() as folder:
        cache = FigureCache(Path(folder))
        buffer = __import__("io").BytesIO()
        picture.save(buffer, format="PNG")
        path = cache.keep(document.id, document.version, 1, buffer.getvalue())
        size_kb = path.stat().st_size // 1024

        plain = _median_ms(lambda: text_lines(document, args.width, set(), set(), set()), args.runs)
        drawn = _median_ms(lambda: cell_strips(half_blocks(cache.read_with_bytes(path)[0], args.width - 3, 60), indent=2), args.runs)
        strips = cell_strips(half_blocks(cache.read_with_bytes(path)[0], args.width - 3, 60), indent=2)
        pictures = {number: strips for number in range(1, args.figures + 1)}
        every = _median_ms(lambda: text_lines(document, args.width, set(), set(), set(), pictures), args.runs)
        layout = text_lines(document, args.width, set(), set(), set(), pictures)
        scrolling, worst = _scrolling_ms(layout.lines)

        def kitty():  # what a Kitty terminal is given instead: the PNG at about its cells' pixels, sent once
            image, data = cache.read_with_bytes(path)
            pixels = terminal_pixels(image, args.width - 3, 60, data)
            return kitty_image(pixels.png, 1, pixels.columns, pixels.rows), placement_strips(1, pixels.columns, pixels.rows, 2)

        sent = _median_ms(kitty, args.runs)
        plot = (
            b'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300">'
            + b"".join(
                b'<circle cx="%d" cy="%d" r="3" fill="#%06x"/><text x="%d" y="%d" font-size="6">p%d</text>'
                % (n % 400, n * 7 % 300, n * 997, n % 400, n * 7 % 300, n)
                for n in range(2000)
            )
            + b"</svg>"
        )  # a scatter plot of 2,000 labelled points
        svg = _median_ms(lambda: draw_svg(plot), args.runs)
        sequence, placed = kitty()
        kitty_layout = text_lines(document, args.width, set(), set(), set(), {number: placed for number in range(1, args.figures + 1)})
        kitty_scrolling, kitty_worst = _scrolling_ms(kitty_layout.lines)

    print(f"text: {args.figures} figures, {args.formulas} formulas, {len(layout.lines.strips):,} lines with every image drawn")
    print(f"lines with no image drawn (first screen's work)   {plain:8.1f} ms   (target 100 ms)")
    print(f"one 1600x1000 PNG ({size_kb:,} KB) read and drawn     {drawn:8.1f} ms   (target 1,000 ms after it arrives)")
    print(f"lines again with all {args.figures} images drawn          {every:8.1f} ms   (made in a worker after each image)")
    print(f"a screenful rendered while scrolling (median, worst) {scrolling:6.1f} / {worst:.1f} ms   (target 20 ms)")
    print(f"Kitty: the same PNG read, checked, sent ({len(sequence) // 1024:,} KB) {sent:8.1f} ms   (once per width, in a worker)")
    print(f"an SVG plot of 2,000 labelled points drawn by resvg    {svg:8.1f} ms   (its bounded child, at fetch)")
    print(f"Kitty: a screenful of placement cells scrolling     {kitty_scrolling:6.1f} / {kitty_worst:.1f} ms   (target 20 ms)")


if __name__ == "__main__":
    main()
