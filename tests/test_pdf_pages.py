"""The PDF page view: pages drawn by PDFium in a bounded child process as half-block cells sized to
the view; hostile PDFs refused in one line within the memory bound; `P` in the full-text view."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reader.app.screens.full_text import FullTextScreen
from reader.app.screens.pdf_pages import PdfPagesScreen
from reader.fulltext.document import PARAGRAPH, Block, Document
from reader.fulltext.pdfpages import MAX_BITMAP_PIXELS, Limits, PageRefused, bitmap_scale, render_page
from reader.fulltext.picture import half_blocks
from reader.fulltext.store import TextStore
from tests.conftest import ROOT
from tests.fulltext_pages import HTML, PAPER_HTML, PAPER_PDF, PDF
from tests.helpers.app import full_text_app, open_paper, ready
from tests.helpers.pilot import until
from tests.helpers.timing import scaled
from tests.terminal import run_in_terminal

ARTICLE = ROOT / "tests" / "fixtures" / "pdfpapers" / "article.pdf"  # pdflatex's, three pages
WHITE = (255, 255, 255)
MAX_PEAK_MB = 300


def pdf_page(width: float, height: float, content: bytes = b"", *more: bytes) -> bytes:
    """A PDF of pages of that media box (points), the first drawing `content`, the next each of
    `more` (stored deflated)."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, NameObject

    writer = PdfWriter()
    for drawn in (content, *more):
        page = writer.add_blank_page(width, height)
        if drawn:
            stream = DecodedStreamObject()
            stream.set_data(drawn)
            page[NameObject("/Contents")] = writer._add_object(stream.flate_encode())
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def triangles(count: int) -> bytes:
    """`count` page-sized filled triangles: PDFium keeps an object for each, and fills each."""
    return b"0 0 m 612 792 l 0 792 l f " * count


def test_a_page_is_drawn_as_half_blocks_sized_to_the_view_and_not_blank():
    page = render_page(ARTICLE, 1, 2 * 40, 2 * 2 * 100)  # a narrow view: the width decides
    assert (page.number, page.pages) == (1, 3)
    cells = half_blocks(page.image, 40, 100)
    assert cells.width == 40 and len(cells.rows) == 26  # a US Letter page: 40 x 792/612 pixels down, two a cell
    pixels = [pixel for row in cells.rows for cell in row for pixel in cell]
    inked = sum(pixel != WHITE for pixel in pixels)
    assert pixels.count(WHITE) > len(pixels) // 2 and inked > len(pixels) // 50  # paper, and the text on it
    wide = render_page(ARTICLE, 1, 2 * 200, 2 * 2 * 30)  # a wide, short view: the height decides
    cells = half_blocks(wide.image, 200, 30)
    assert len(cells.rows) == 30 and cells.width == 46  # 60 pixels down x 612/792


def test_a_page_past_the_end_is_the_last_and_text_is_given_when_asked():
    page = render_page(ARTICLE, 9, 80, 80, text=True)
    assert (page.number, page.pages, page.image) == (3, 3, None)
    assert "4. J. Kempe. Quantum random walks" in page.text


def test_the_bitmap_is_capped_whatever_the_page_claims():
    scale = bitmap_scale(100_000, 100_000, 100_000, 100_000)
    assert (100_000 * scale) ** 2 <= MAX_BITMAP_PIXELS
    assert bitmap_scale(612, 792, 1224, 10_000) == 2.0


def test_a_damaged_pdf_is_one_line(tmp_path):
    damaged = tmp_path / "damaged.pdf"
    damaged.write_bytes(ARTICLE.read_bytes()[:2000])
    with pytest.raises(PageRefused) as refused:
        render_page(damaged, 1, 100, 100)
    assert str(refused.value) == "the PDF cannot be read (damaged, or not a PDF)"


def test_a_page_past_its_cpu_limit_is_refused_in_one_line(tmp_path):
    heavy = tmp_path / "heavy.pdf"
    heavy.write_bytes(pdf_page(612, 792, triangles(200_000)))  # tens of seconds of CPU to draw
    with pytest.raises(PageRefused) as refused:
        render_page(heavy, 1, 400, 500, limits=Limits(cpu_seconds=1))
    assert str(refused.value) == "the page takes more than 1 s to draw; refused"


def children() -> set[str]:
    return {pid for task in Path("/proc/self/task").iterdir() for pid in (task / "children").read_text().split()}


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the children from /proc")
def test_a_drawing_no_longer_wanted_is_stopped_with_its_child(tmp_path):
    heavy = tmp_path / "heavy.pdf"
    heavy.write_bytes(pdf_page(612, 792, triangles(200_000)))
    before = children()
    with pytest.raises(PageRefused) as refused:
        render_page(heavy, 1, 400, 500, cancelled=lambda: True)
    assert str(refused.value) == "stopped"
    assert children() - before == set()  # killed and waited for, not left drawing (another test's child may end meanwhile)


PEAK_SCRIPT = """
import json, resource, sys
from pathlib import Path
from reader.fulltext.pdfpages import PageRefused, render_page
outcomes = []
for path in sys.argv[1:]:
    try:
        page = render_page(Path(path), 1, 2000, 2000)
        outcomes.append(list(page.image.size))
    except PageRefused as error:
        outcomes.append(str(error))
print(json.dumps({"outcomes": outcomes, "peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024}))
"""


@pytest.mark.slow  # child processes: a fetch, PDFium
def test_hostile_pdfs_are_drawn_small_or_refused_within_300_mb(tmp_path):
    huge = tmp_path / "huge.pdf"
    huge.write_bytes(pdf_page(100_000, 100_000, b"0 0 m 100000 100000 l 0 100000 l f"))
    tall = tmp_path / "tall.pdf"
    tall.write_bytes(pdf_page(10, 100_000))
    crowded = tmp_path / "crowded.pdf"
    crowded.write_bytes(pdf_page(612, 792, triangles(4_000_000)))  # 100 MB of content, 250 KB deflated
    # The measure is taken in a process of its own: its children's peak is the renderers'. (Not its
    # own: Linux counts in a new process's peak the memory of the process that started it, here a
    # test worker holding hundreds of MB after its earlier tests.)
    done = subprocess.run(
        [sys.executable, "-c", PEAK_SCRIPT, str(huge), str(tall), str(crowded)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ),
        timeout=scaled(300),
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    big, thin, refused = report["outcomes"]
    assert big == [2000, 2000]  # fitted to what was asked, not to its 100,000 points
    assert thin[1] <= 2000 and thin[0] * thin[1] <= MAX_BITMAP_PIXELS
    assert refused == "the page needs more than 256 MB to draw; refused"
    assert report["peak_mb"] <= MAX_PEAK_MB


# --- the page view in the app ------------------------------------------------------------------------


def keep_read_from_pdf(data_dir, paper, pdf: bytes) -> None:
    """The paper's text kept as read from its PDF, and that PDF kept beside it (as if fetched)."""
    texts = TextStore(data_dir)
    texts.save(Document(paper.id, paper.version, "pdf", (Block(PARAGRAPH, "A paper read from its PDF."),)))
    path = texts.pdf_path(paper.id, paper.version)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pdf)


def page_lines(app) -> list[str]:
    return [line.rstrip() for line in app.screen.query_one("#pdf-page").lines.texts]


async def full_text_then_pages(pilot) -> PdfPagesScreen:
    """`v` (the text fetched), then `P`, waiting for the first page or why not."""
    await pilot.press("v")
    await until(pilot, lambda: isinstance(pilot.app.screen, FullTextScreen) and pilot.app.screen.document is not None)
    await pilot.press("P")
    await until(pilot, lambda: isinstance(pilot.app.screen, PdfPagesScreen))
    screen = pilot.app.screen
    await until(pilot, lambda: screen.shown_page is not None or screen.problem is not None)
    return screen


@pytest.mark.slow  # child processes: a fetch, PDFium
async def test_p_in_the_full_text_of_a_pdf_only_paper_shows_its_pages_and_turns_them(store, fake_arxiv, monkeypatch):
    from reader.app.screens import pdf_pages

    monkeypatch.setattr(pdf_pages, "KEPT_PAGES", 1)  # the drawn pages kept: bounded, the oldest go
    app = full_text_app(store, fake_arxiv.base)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        paper = app.screen.paper
        fake_arxiv.documents[f"/pdf/{paper.id}v{paper.version}"] = (PDF, PAPER_PDF)  # no HTML: the text is the PDF's
        screen = await full_text_then_pages(pilot)
        assert screen.problem is None
        lines = page_lines(app)
        assert lines[0] == f"  Page 1 of 2 · arXiv:{paper.id}v{paper.version}"
        strips = app.screen.query_one("#pdf-page").lines.strips
        assert len(strips) == 2 + 40 - 4 and all(strip.cell_length <= 100 for strip in strips)  # the page fills the view's height
        assert {segment.text for segment in strips[10]} >= {"▀"}
        await pilot.press("n")
        await until(pilot, lambda: screen.shown_page == 2)
        assert page_lines(app)[0] == f"  Page 2 of 2 · arXiv:{paper.id}v{paper.version}"
        await pilot.press("n")  # the last page: it stays
        await pilot.press("pageup")
        await until(pilot, lambda: screen.shown_page == 1)
        assert len(screen._drawn) == 1  # page 1 drawn again: page 2 made room for it
        await pilot.press("escape")
        await ready(pilot)
        assert isinstance(app.screen, FullTextScreen)
    assert [request.path for request in fake_arxiv.document_requests()].count(f"/pdf/{paper.id}v{paper.version}") == 1  # kept, reused


@pytest.mark.slow  # child processes: a fetch, PDFium
async def test_p_on_an_html_paper_fetches_its_pdf_and_images_off_shows_the_pages_text(store, fake_arxiv):
    app = full_text_app(store, fake_arxiv.base, images="off")
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        paper = app.screen.paper
        fake_arxiv.documents[f"/html/{paper.id}v{paper.version}"] = (HTML, PAPER_HTML)
        fake_arxiv.documents[f"/pdf/{paper.id}v{paper.version}"] = (PDF, PAPER_PDF)
        screen = await full_text_then_pages(pilot)
        assert screen.problem is None
        lines = page_lines(app)
        assert lines[0] == f"  Page 1 of 2 · arXiv:{paper.id}v{paper.version}"
        assert "  Images are off (the images setting): the page's text." in lines
        assert any("Reward Shaping" in line for line in lines)
        assert not any("▀" in segment.text for strip in app.screen.query_one("#pdf-page").lines.strips for segment in strip)
    assert TextStore(store.data_dir).stored_pdf(paper.id, paper.version) is not None


@pytest.mark.slow  # child processes: a fetch, PDFium
async def test_a_pdf_arxiv_does_not_have_is_said_in_one_line(store, fake_arxiv):
    app = full_text_app(store, fake_arxiv.base)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        paper = app.screen.paper
        fake_arxiv.documents[f"/html/{paper.id}v{paper.version}"] = (HTML, PAPER_HTML)
        screen = await full_text_then_pages(pilot)
        lines = [line for line in page_lines(app) if line.strip()]
        assert screen.problem is not None and len(lines) == 1
        assert lines[0].startswith(f"  Page 1 · arXiv:{paper.id}v{paper.version}: No PDF: arXiv has no PDF of")


@pytest.mark.slow  # PDFium in a child process, up to its memory limit
async def test_a_page_too_costly_to_draw_is_refused_in_one_line_and_the_next_one_turns_to(store):
    app = full_text_app(store, "http://127.0.0.1:9")  # offline: the text and the PDF are kept
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        paper = app.screen.paper
        keep_read_from_pdf(store.data_dir, paper, pdf_page(612, 792, triangles(4_000_000), b"72 72 468 648 re f"))
        screen = await full_text_then_pages(pilot)
        lines = [line for line in page_lines(app) if line.strip()]
        assert lines == [f"  Page 1 of 2 · arXiv:{paper.id}v{paper.version}: the page needs more than 256 MB to draw; refused"]
        await pilot.press("n")
        await until(pilot, lambda: screen.shown_page == 2)
        assert page_lines(app)[0] == f"  Page 2 of 2 · arXiv:{paper.id}v{paper.version}"
        colours = {segment.style.color.triplet for strip in screen.view.lines.strips[2:] for segment in strip if segment.style}
        assert (0, 0, 0) in colours and (255, 255, 255) in colours  # the black rectangle on the white page


@pytest.mark.slow  # a child process: PDFium
async def test_a_kept_pdf_is_judged_by_the_bounded_child_never_parsed_in_the_app(store, monkeypatch):
    import reader.fulltext.pdf

    def parsed_here(handle):
        raise AssertionError("the app's process parsed a PDF")

    monkeypatch.setattr(reader.fulltext.pdf, "pdf_opens", parsed_here)
    app = full_text_app(store, "http://127.0.0.1:9")  # offline: the text and the PDF are kept
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        paper = app.screen.paper
        keep_read_from_pdf(store.data_dir, paper, b"%PDF-1.4\n" + b"no objects at all " * 1000 + b"\n%%EOF\n")
        screen = await full_text_then_pages(pilot)
        assert screen.problem is not None and "the PDF cannot be read (damaged, or not a PDF)" in screen.problem


@pytest.mark.slow  # the app in a real terminal
def test_in_a_real_terminal_p_draws_the_page_in_half_blocks_and_n_turns_it(store, papers, data_dir):
    for paper in papers:  # whichever paper the list highlights first is kept with its PDF
        keep_read_from_pdf(data_dir, paper, PAPER_PDF)
    run = run_in_terminal(
        [sys.executable, "-m", "reader", "--data-dir", str(data_dir)],
        env={**os.environ, "TERM": "xterm-256color", "READER_ARXIV_PDF_URL": "http://127.0.0.1:9/pdf/"},
        size=(100, 40),
        keys=[(" · cs.", "\r"), ("Full text", "v"), ("A paper read from its PDF.", "P"), ("Page 1 of 2", "n"), ("Page 2 of 2", "\x11")],
        deadline=90,
    )
    assert run.status == 0, run.output[-2000:]
    first = run.output.split("Page 1 of 2", 1)[1]
    assert "▀" in first.split("Page 2 of 2", 1)[0] and "▀" in first.split("Page 2 of 2", 1)[1]


@pytest.mark.slow  # PDFium's child process
async def test_a_figure_of_a_pdf_only_text_says_its_page_and_enter_opens_the_page_view_there(store):
    from reader.fulltext.pdf import pdf_blocks

    app = full_text_app(store)
    async with app.run_test(size=(100, 40), notifications=True) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        paper = app.screen.paper
        keep_read_from_pdf(store.data_dir, paper, ARTICLE.read_bytes())
        TextStore(store.data_dir).save(Document(paper.id, paper.version, "pdf", tuple(pdf_blocks(ARTICLE))))  # its real text
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, FullTextScreen) and app.screen.document is not None)
        lines = [line.rstrip() for line in app.screen.view.lines.texts]
        caption = lines.index("Figure 1: Success probability of the walk against the number of steps.")
        assert lines[caption + 1] == "  see page 2 · ⏎: open page 2 of the PDF"
        await pilot.press("f")  # no image to fetch: it says where the figure is
        await ready(pilot)
        assert "its figures are on their pages (⏎ opens one)" in str(list(app._notifications)[-1].message)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, PdfPagesScreen))
        screen = app.screen
        await until(pilot, lambda: screen.shown_page is not None or screen.problem is not None)
        assert screen.shown_page == 2
        assert page_lines(app)[0] == f"  Page 2 of 3 · arXiv:{paper.id}v{paper.version}"


@pytest.mark.slow  # PDFium's child process
async def test_in_a_kitty_terminal_a_page_is_sent_as_its_own_pixels_and_drawn_as_placement_cells(store, monkeypatch):
    import base64
    import re

    from PIL import Image

    from reader.app.screens import pdf_pages
    from reader.core.terminal_graphics import KITTY, PLACEHOLDER

    sent: list[str] = []
    monkeypatch.setattr(pdf_pages, "terminal_drawing", lambda app, images: KITTY)  # as in kitty itself
    monkeypatch.setattr(pdf_pages, "send_to_terminal", lambda app, sequence: sent.append(sequence))
    app = full_text_app(store)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        keep_read_from_pdf(store.data_dir, app.screen.paper, ARTICLE.read_bytes())
        screen = await full_text_then_pages(pilot)
        assert screen.shown_page == 1 and len(sent) == 1
        found = re.findall(r"\x1b_G([^;]*);([^\x1b]*)\x1b\\", sent[0])
        keys = dict(pair.split("=") for pair in found[0][0].split(","))
        columns, rows = int(keys["c"]), int(keys["r"])
        assert rows == 40 - 4 and columns == 56  # the page fills the view's height; a US Letter page is 612 x 792
        page = Image.open(io.BytesIO(base64.standard_b64decode("".join(data for _, data in found))))
        assert page.format == "PNG" and page.size == (668, 864)  # drawn by PDFium for 36 rows of 24 pixels: 12 a column, not 1
        assert page.convert("L").getextrema() == (0, 255)  # black text on white, not a blank
        placed = [strip for strip in app.screen.query_one("#pdf-page").lines.strips if PLACEHOLDER in strip.text]
        assert len(placed) == rows
        await pilot.press("n")
        await until(pilot, lambda: screen.shown_page == 2)
        await pilot.press("p")
        await until(pilot, lambda: screen.shown_page == 1)
        assert len(sent) == 2  # page 1 drawn again from what was kept: not sent again
        await pilot.press("escape")
        await ready(pilot)
        assert len([sequence for sequence in sent if sequence.startswith("\x1b_Ga=d")]) == 2  # both freed


def _stored_at_format_3(data_dir, document: Document) -> None:
    """The text as stored before format 4 (a PDF's figure captions were paragraphs then)."""
    path = TextStore(data_dir).save(document)
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**data, "format": 3}), encoding="utf-8")


def test_a_pdf_text_stored_before_its_figures_were_blocks_is_read_again_from_the_kept_pdf_and_no_text_is_fetched(
    capsys, texts_env, data_dir
):
    from reader.fulltext.document import FIGURE, FORMAT
    from tests.conftest import run

    html_paper, pdf_paper = texts_env.papers[0], texts_env.papers[1]
    _stored_at_format_3(data_dir, Document(html_paper.id, html_paper.version, "html", (Block(PARAGRAPH, "An HTML text of format 3."),)))
    keep_read_from_pdf(data_dir, pdf_paper, ARTICLE.read_bytes())
    _stored_at_format_3(data_dir, Document(pdf_paper.id, pdf_paper.version, "pdf", (Block(PARAGRAPH, "A PDF text of format 3."),)))

    code, out, err = run(capsys, "text", pdf_paper.id)
    assert code == 0, err
    assert "A PDF text of format 3." not in out and "Success probability of the walk" in out
    stored = TextStore(data_dir).load(pdf_paper.id)
    assert stored is not None and stored.format == FORMAT
    assert [block.page for block in stored.blocks if block.kind == FIGURE] == [2]
    code, out, err = run(capsys, "text", html_paper.id)
    assert code == 0 and "An HTML text of format 3." in out  # as it was made: no request for it
    assert texts_env.document_requests() == []


def test_a_pdf_text_read_again_is_shown_when_it_cannot_be_stored(capsys, texts_env, data_dir, monkeypatch):
    from reader.errors import StoreError
    from tests.conftest import run

    pdf_paper = texts_env.papers[1]
    keep_read_from_pdf(data_dir, pdf_paper, ARTICLE.read_bytes())
    _stored_at_format_3(data_dir, Document(pdf_paper.id, pdf_paper.version, "pdf", (Block(PARAGRAPH, "A PDF text of format 3."),)))

    def full_disk(self, document):
        raise StoreError("cannot write the full text: No space left on device")

    monkeypatch.setattr(TextStore, "save", full_disk)
    code, out, err = run(capsys, "text", pdf_paper.id)
    assert code == 0, err
    assert "Success probability of the walk" in out  # the text read again, shown though not kept


async def test_the_app_shows_the_figures_of_a_pdf_text_stored_before_they_were_blocks(store):
    app = full_text_app(store)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        paper = app.screen.paper
        keep_read_from_pdf(store.data_dir, paper, ARTICLE.read_bytes())
        _stored_at_format_3(store.data_dir, Document(paper.id, paper.version, "pdf", (Block(PARAGRAPH, "A PDF text of format 3."),)))
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, FullTextScreen) and app.screen.document is not None)
        lines = [line.rstrip() for line in app.screen.view.lines.texts]
        caption = lines.index("Figure 1: Success probability of the walk against the number of steps.")
        assert lines[caption + 1] == "  see page 2 · ⏎: open page 2 of the PDF"


@pytest.mark.slow  # PDFium's child process
async def test_in_a_kitty_terminal_a_page_drawn_again_at_a_new_size_frees_the_old_image_and_quitting_frees_all(store, monkeypatch):
    import re

    from reader.app.screens import pdf_pages
    from reader.core.terminal_graphics import KITTY

    sent: list[str] = []
    monkeypatch.setattr(pdf_pages, "terminal_drawing", lambda app, images: KITTY)
    monkeypatch.setattr(pdf_pages, "send_to_terminal", lambda app, sequence: sent.append(sequence))

    def images() -> list[int]:
        return [int(found) for sequence in sent for found in re.findall(r"\x1b_Ga=T[^;]*,i=(\d+),", sequence)]

    def freed() -> list[int]:
        return [int(found) for sequence in sent for found in re.findall(r"\x1b_Ga=d,d=I,i=(\d+),", sequence)]

    app = full_text_app(store)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await open_paper(pilot)
        keep_read_from_pdf(store.data_dir, app.screen.paper, ARTICLE.read_bytes())
        await full_text_then_pages(pilot)
        assert len(images()) == 1 and freed() == []
        await pilot.resize_terminal(100, 30)  # page 1 drawn again, smaller: a new image
        await until(pilot, lambda: len(images()) == 2)
        await ready(pilot)
        assert freed() == images()[:1]
        # The app quits from the page view: its image is freed too.
    assert sorted(freed()) == sorted(images())


@pytest.mark.slow  # PDFium's child process
async def test_in_a_kitty_terminal_a_tall_page_on_a_tall_screen_takes_at_most_the_rows_a_placement_numbers(store, monkeypatch):
    import re

    from reader.app.screens import pdf_pages
    from reader.core.terminal_graphics import KITTY, KITTY_MAX_CELLS

    sent: list[str] = []
    monkeypatch.setattr(pdf_pages, "terminal_drawing", lambda app, images: KITTY)
    monkeypatch.setattr(pdf_pages, "send_to_terminal", lambda app, sequence: sent.append(sequence))
    app = full_text_app(store)
    async with app.run_test(size=(100, 330)) as pilot:  # 326 rows for the page: more than kitty numbers
        await ready(pilot)
        await open_paper(pilot)
        keep_read_from_pdf(store.data_dir, app.screen.paper, pdf_page(100, 2000, b"0 0 m 100 2000 l 0 2000 l f"))
        screen = await full_text_then_pages(pilot)
        assert screen.problem is None and screen.shown_page == 1
        rows = int(re.search(r"\x1b_Ga=T[^;]*,r=(\d+)", sent[0])[1])
        assert rows == KITTY_MAX_CELLS


@pytest.mark.slow  # the app in a real terminal, PDFium's child process
@pytest.mark.parametrize(
    "leaving",
    [[("Page 1 of 2", "q"), ("Open figure", "\x11")], [("Page 1 of 2", "\x11")]],  # back, then quit; quit from the page view
    ids=["closed", "quit"],
)
def test_in_a_real_kitty_terminal_p_sends_the_page_once_places_its_cells_and_frees_it(store, papers, data_dir, leaving):
    import re

    from reader.core.terminal_graphics import PLACEHOLDER, kitty_colour

    for paper in papers:  # whichever paper the list highlights first is kept with its PDF
        keep_read_from_pdf(data_dir, paper, PAPER_PDF)
    environ = {name: value for name, value in os.environ.items() if name not in ("TMUX", "TERM_PROGRAM")}
    run = run_in_terminal(
        [sys.executable, "-m", "reader", "--data-dir", str(data_dir)],
        env={**environ, "TERM": "xterm-kitty", "COLORTERM": "truecolor", "READER_ARXIV_PDF_URL": "http://127.0.0.1:9/pdf/"},
        size=(100, 40),
        keys=[(" · cs.", "\r"), ("Full text", "v"), ("A paper read from its PDF.", "P"), *leaving],
        deadline=90,
    )
    assert run.status == 0, run.output[-2000:]
    sent = re.findall(r"\x1b_Ga=T,f=100,t=d,U=1,i=(\d+),c=(\d+),r=(\d+),q=2,m=[01];", run.output)
    assert len(sent) == 1  # the page, once
    image_id, rows = int(sent[0][0]), int(sent[0][2])
    red, green, blue = kitty_colour(image_id)
    placed = run.output.split(sent[0][0], 1)[1]
    assert f"38;2;{red};{green};{blue}m" in placed and placed.count(PLACEHOLDER) >= rows  # its cells, in its colour
    freed = f"\x1b_Ga=d,d=I,i={image_id},q=2\x1b\\"
    assert freed in placed and "▀" not in placed.split(freed, 1)[0]  # no half blocks; freed on leaving the page view or the app
