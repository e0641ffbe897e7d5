"""Figures in the full-text view (issue 42): a figure is its caption and a hint; `f` fetches the
figure at or below the top of the screen and draws it in half-blocks in place, `F` every figure,
the lines at the top of the screen staying there; a refused image says why in its place."""

from __future__ import annotations

from reader.app.screens.full_text import FullTextScreen
from reader.app.widgets.picture import UPPER_HALF
from reader.fulltext.document import FIGURE, PARAGRAPH, TITLE, Block, Document
from reader.fulltext.store import TextStore
from tests.helpers.app import full_text_app, open_paper, ready
from tests.helpers.figures import BLUE, PNG, RED, checkerboard, encoded, png_bomb_header


async def _settled(pilot, screen: FullTextScreen) -> None:
    """The fetching worker done, and the layout it asked for shown."""
    for _ in range(100):
        await ready(pilot)
        figures = screen.figures
        if not figures._fetching and all(note is None or not note.startswith("fetching") for note in figures.pictures.values()):
            break
        await pilot.pause(0.05)
    await ready(pilot)


async def _text_with_one_figure(pilot, store, fake_arxiv, name: str, served: tuple, caption: str) -> tuple[FullTextScreen, str]:
    """The first paper's full text opened (`v`), stored as a title and one figure whose image
    `name` the loopback arXiv serves as `served` (headers, body); the screen and the image's path."""
    await ready(pilot)
    await open_paper(pilot)
    paper = pilot.app.screen.paper
    path = f"/html/{paper.id}v{paper.version}/{name}"
    fake_arxiv.documents[path] = served
    figure = Block(FIGURE, caption, images=(fake_arxiv.base + path,))
    TextStore(store.data_dir).save(Document(paper.id, paper.version, "html", (Block(TITLE, "T"), figure)))
    await pilot.press("v")
    await ready(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, FullTextScreen)
    return screen, path


async def test_f_draws_the_next_figure_in_place_and_F_every_figure_keeping_the_top_line(store, fake_arxiv):
    app = full_text_app(store, fake_arxiv.base)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        paper = app.screen.paper
        folder = f"{fake_arxiv.html_url}{paper.id}v{paper.version}/"
        fake_arxiv.documents[f"/html/{paper.id}v{paper.version}/x1.png"] = (PNG, encoded(checkerboard(4, 4, square=2), "PNG"))
        fake_arxiv.documents[f"/html/{paper.id}v{paper.version}/x2.png"] = (PNG, encoded(checkerboard(4, 4, square=2), "PNG"))
        fake_arxiv.documents[f"/html/{paper.id}v{paper.version}/bomb.png"] = (PNG, png_bomb_header())
        blocks = (
            Block(TITLE, "A Paper With Figures"),
            Block(FIGURE, "Figure 1: The first board.", images=(folder + "x1.png",)),
            *(Block(PARAGRAPH, f"Paragraph {n}.") for n in range(12)),
            Block(FIGURE, "Figure 2: The second board, and a bomb.", images=(folder + "x2.png", folder + "bomb.png")),
            Block(PARAGRAPH, "The end."),
        )
        TextStore(store.data_dir).save(Document(paper.id, paper.version, "html", blocks))
        await pilot.press("v")
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, FullTextScreen) and screen.document is not None
        view = screen.view
        lines = [line.rstrip() for line in view.lines.texts]
        assert "Figure 1: The first board." in lines
        assert lines.count("  f: show the figure · F: every figure") == 1
        assert "  f: show the figure (2 images) · F: every figure" in lines
        assert fake_arxiv.requests == []  # nothing is fetched before it is asked for

        for _ in range(8):  # Figure 1 is above the top now; the top is a paragraph
            await pilot.press("j")
        top = view.lines.texts[view.scroll_offset.y]
        assert top.startswith("Paragraph")
        await pilot.press("f")
        await _settled(pilot, screen)
        assert [request.path for request in fake_arxiv.requests] == [
            f"/html/{paper.id}v{paper.version}/x2.png",
            f"/html/{paper.id}v{paper.version}/bomb.png",
        ]
        lines = [line.rstrip() for line in view.lines.texts]
        assert "  image 3: not shown: an image of more than 25,000,000 pixels" in lines
        assert "  f: show the figure · F: every figure" in lines  # Figure 1 still only its hint
        drawn = [strip for strip in view.lines.strips if UPPER_HALF in strip.text]
        assert len(drawn) == 4  # 8 x 8 pixels: 4 rows of 8 cells
        for row, strip in enumerate(drawn):
            cells = [segment for segment in strip if segment.text == UPPER_HALF]
            assert len(cells) == 8
            for column, segment in enumerate(cells):
                expected = RED if (column // 2 + row) % 2 == 0 else BLUE
                assert tuple(segment.style.color.triplet) == expected and tuple(segment.style.bgcolor.triplet) == expected
        assert view.lines.texts[view.scroll_offset.y] == top
        # A picture's rows are no text: a selection copies none of their half-blocks.
        assert all(not text for strip, text in zip(view.lines.strips, view.lines.texts, strict=True) if UPPER_HALF in strip.text)

        await pilot.press("F")  # Figure 1 above the top is drawn too: the top line stays where it was
        await _settled(pilot, screen)
        assert len([strip for strip in view.lines.strips if UPPER_HALF in strip.text]) == 8
        assert view.lines.texts[view.scroll_offset.y] == top
        assert len(fake_arxiv.requests) == 3


async def test_an_image_arxiv_failed_to_send_says_so_in_place_and_f_asks_again(store, fake_arxiv):
    from tests.arxiv_server import Fault

    app = full_text_app(store, fake_arxiv.base)
    async with app.run_test(size=(100, 30)) as pilot:
        screen, path = await _text_with_one_figure(
            pilot, store, fake_arxiv, "x1.png", (PNG, encoded(checkerboard(4, 4, square=2), "PNG")), "Figure 1: A board."
        )
        fake_arxiv.faults.append(Fault("status", status=503))
        await pilot.press("f")
        await _settled(pilot, screen)
        lines = [line.rstrip() for line in screen.view.lines.texts]
        assert "  image 1: not fetched: arXiv answered HTTP 503 (gave up after 1 tries)" in lines
        await pilot.press("f")  # a failure is not a refusal: asked again
        await _settled(pilot, screen)
        assert len([strip for strip in screen.view.lines.strips if UPPER_HALF in strip.text]) == 4
        assert [request.path for request in fake_arxiv.requests] == [path, path]


async def test_with_images_off_a_figure_shows_its_link_and_nothing_is_fetched(store, fake_arxiv):
    app = full_text_app(store, fake_arxiv.base, images="off")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        paper = app.screen.paper
        url = f"{fake_arxiv.html_url}{paper.id}v{paper.version}/x1.png"
        blocks = (Block(TITLE, "A Paper With Figures"), Block(FIGURE, "Figure 1: The board.", images=(url,)))
        TextStore(store.data_dir).save(Document(paper.id, paper.version, "html", blocks))
        await pilot.press("v")
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, FullTextScreen)
        await pilot.press("f")
        await ready(pilot)
        lines = [line.rstrip() for line in screen.view.lines.texts]
        assert f"  image 1: not shown (images = off): {url}" in lines
        assert not any(UPPER_HALF in strip.text for strip in screen.view.lines.strips)
        assert fake_arxiv.requests == []


async def test_in_a_kitty_terminal_f_sends_the_image_once_and_draws_its_placement_cells(store, fake_arxiv, monkeypatch):
    import base64
    import io
    import re

    from PIL import Image

    from reader.app.screens import full_text_figures
    from reader.core.terminal_graphics import DIACRITICS, KITTY, PLACEHOLDER, kitty_colour

    sent: list[str] = []
    monkeypatch.setattr(full_text_figures, "send_to_terminal", lambda app, sequence: sent.append(sequence))
    app = full_text_app(store, fake_arxiv.base)
    async with app.run_test(size=(100, 30)) as pilot:
        screen, path = await _text_with_one_figure(
            pilot, store, fake_arxiv, "x1.png", (PNG, encoded(checkerboard(40, 20, square=4), "PNG")), "Figure 1: A board."
        )  # 160 x 80 pixels
        screen.figures.drawing = KITTY  # as in kitty itself (the tests' output is no terminal)
        await pilot.press("f")
        await _settled(pilot, screen)

        assert len(sent) == 1
        found = re.findall(r"\x1b_G([^;]*);([^\x1b]*)\x1b\\", sent[0])
        keys = dict(pair.split("=") for pair in found[0][0].split(","))
        image_id, columns, rows = int(keys["i"]), int(keys["c"]), int(keys["r"])
        assert (columns, rows) == (91, 23)  # the view's width less its margins, and 80 pixels down at 160 across: 23 rows of two
        png = Image.open(io.BytesIO(base64.standard_b64decode("".join(data for _, data in found))))
        assert png.format == "PNG" and png.size == (160, 80)  # never enlarged
        assert png.getpixel((1, 1)) == RED and png.getpixel((5, 1)) == BLUE

        view = screen.view
        drawn = [(strip, text) for strip, text in zip(view.lines.strips, view.lines.texts, strict=True) if PLACEHOLDER in strip.text]
        assert len(drawn) == rows
        for row, (strip, text) in enumerate(drawn):
            assert text == ""  # nothing to copy
            cells = [segment for segment in strip if PLACEHOLDER in segment.text]
            assert len(cells) == 1 and tuple(cells[0].style.color.triplet) == kitty_colour(image_id)
            assert cells[0].text == "".join(PLACEHOLDER + DIACRITICS[row] + DIACRITICS[column] for column in range(columns))
            assert strip.cell_length == 2 + columns

        await pilot.press("t")  # laid out again: the terminal has the image, it is not sent twice
        await ready(pilot)
        assert len(sent) == 1
        await pilot.press("escape")
        await ready(pilot)
        assert sent[-1] == f"\x1b_Ga=d,d=I,i={image_id},q=2\x1b\\"  # freed in the terminal


async def test_in_a_kitty_terminal_a_figure_drawn_again_at_a_new_width_frees_the_old_image_and_quitting_frees_all(
    store, fake_arxiv, monkeypatch
):
    import re

    from reader.app.screens import full_text_figures
    from reader.core.terminal_graphics import KITTY
    from tests.helpers.pilot import until

    sent: list[str] = []
    monkeypatch.setattr(full_text_figures, "send_to_terminal", lambda app, sequence: sent.append(sequence))

    def images() -> list[int]:
        return [int(found) for sequence in sent for found in re.findall(r"\x1b_Ga=T[^;]*,i=(\d+),", sequence)]

    def freed() -> list[int]:
        return [int(found) for sequence in sent for found in re.findall(r"\x1b_Ga=d,d=I,i=(\d+),", sequence)]

    app = full_text_app(store, fake_arxiv.base)
    async with app.run_test(size=(100, 30)) as pilot:
        screen, path = await _text_with_one_figure(
            pilot, store, fake_arxiv, "x1.png", (PNG, encoded(checkerboard(40, 20, square=4), "PNG")), "Figure 1: A board."
        )
        screen.figures.drawing = KITTY
        await pilot.press("f")
        await _settled(pilot, screen)
        first = images()
        assert len(first) == 1 and freed() == []
        await pilot.resize_terminal(120, 30)  # the figure drawn again, wider: a new image
        await until(pilot, lambda: len(images()) == 2)
        await ready(pilot)
        assert freed() == first  # the old one, once the new one is shown
        await pilot.resize_terminal(100, 30)  # back: drawn anew, not shown by a freed id
        await until(pilot, lambda: len(images()) == 3)
        await ready(pilot)
        assert freed() == images()[:2]
        # The app quits from the full-text view: its image is freed too.
    assert freed() == images()


async def test_enter_draws_the_figure_at_or_below_the_top_of_the_screen(store, fake_arxiv):
    app = full_text_app(store, fake_arxiv.base)
    async with app.run_test(size=(100, 30)) as pilot:
        screen, path = await _text_with_one_figure(
            pilot, store, fake_arxiv, "x1.png", (PNG, encoded(checkerboard(4, 4, square=2), "PNG")), "Figure 1: A board."
        )
        await pilot.press("enter")
        await _settled(pilot, screen)
        assert len([strip for strip in screen.view.lines.strips if UPPER_HALF in strip.text]) == 4
        assert [request.path for request in fake_arxiv.requests] == [path]


async def test_an_svg_figure_is_drawn_in_place_from_resvgs_drawing(store, fake_arxiv):
    from tests.helpers.figures import two_bars_svg

    app = full_text_app(store, fake_arxiv.base)
    async with app.run_test(size=(100, 30)) as pilot:
        screen, path = await _text_with_one_figure(
            pilot, store, fake_arxiv, "x1.svg", ({"Content-Type": "image/svg+xml"}, two_bars_svg()), "Figure 1: Two bars."
        )
        await pilot.press("f")
        await _settled(pilot, screen)
        drawn = [strip for strip in screen.view.lines.strips if UPPER_HALF in strip.text]
        assert len(drawn) == 23  # 91 cells across, half as many pixels down as across, two a row
        cells = [segment for segment in drawn[10] if segment.text == UPPER_HALF]
        assert tuple(cells[0].style.color.triplet) == RED and tuple(cells[-1].style.bgcolor.triplet) == BLUE


async def test_an_svg_drawing_whose_child_crashed_says_so_and_f_draws_it_again(store, fake_arxiv, tmp_path, monkeypatch):
    import sys

    from tests.helpers.figures import two_bars_svg

    crashing = tmp_path / "child.sh"
    crashing.write_text("#!/bin/sh\nkill -SEGV $$\n")
    crashing.chmod(0o755)
    app = full_text_app(store, fake_arxiv.base)
    async with app.run_test(size=(100, 30)) as pilot:
        screen, path = await _text_with_one_figure(
            pilot, store, fake_arxiv, "x1.svg", ({"Content-Type": "image/svg+xml"}, two_bars_svg()), "Figure 1: Two bars."
        )
        with monkeypatch.context() as patched:
            patched.setattr(sys, "executable", str(crashing))  # the drawing's child crashes this time
            await pilot.press("f")
            await _settled(pilot, screen)
        lines = [line.rstrip() for line in screen.view.lines.texts]
        assert "  image 1: not shown: the SVG drawer crashed (signal 11); not drawn this time" in lines
        await pilot.press("f")  # not the drawing's fault, nor kept: asked and drawn again
        await _settled(pilot, screen)
        assert len([strip for strip in screen.view.lines.strips if UPPER_HALF in strip.text]) == 23
        assert [request.path for request in fake_arxiv.requests] == [path, path]
