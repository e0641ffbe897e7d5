"""One paper's record drawn as prepared lines: the detail view's body, note and facts.

The lines are rendered once per record and width (`render_record`) and the widget only hands
them out (Textual's Line API). A screen of wrapped Statics and a Markdown widget had to be
restyled, laid out and wrapped again at every opening; this is what let the detail view open
in under 20 ms at 100,000 papers.

Feed text is never parsed as markup: the record is built as rich Text. The note is the user's
Markdown, but its links never reach the terminal as links: each becomes a click that asks the
screen (`open_note_link`, by index, never by URL text), which opens only http(s)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.console import Console, JustifyMethod, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from reader.app.paper_actions import paper_link
from reader.core.texmath import tex_to_unicode
from reader.models import Paper

if TYPE_CHECKING:
    from rich.markdown import Markdown

# The keys that scroll a record (the detail view's, and the full text's: one id each, so a key
# remapped in keymap.toml moves in both).
RECORD_SCROLL = [
    Binding("j,down", "scroll('down')", "Down", show=False, id="detail.down"),
    Binding("k,up", "scroll('up')", "Up", show=False, id="detail.up"),
    Binding("space,pagedown", "scroll('page_down')", "Page down", show=False, id="detail.page_down"),
    Binding("pageup", "scroll('page_up')", "Page up", show=False, id="detail.page_up"),
    Binding("g,home", "scroll('home')", "Top", show=False, id="detail.top"),
    Binding("G,end", "scroll('end')", "Bottom", show=False, id="detail.bottom"),
]

# Math as Unicode or as TeX: one binding for the detail view and the full text (`t` tags the paper
# in the detail view, so this is `T`).
MATH = Binding("T", "toggle_math", "TeX/Unicode", id="detail.toggle_math", tooltip="Show the math as Unicode or as TeX")

LABEL_WIDTH = 14
EMPTY_NOTE = "No note yet. {write} writes one here (saved as you type); {editor} edits it in $EDITOR."


def detail_text(paper: Paper, *, read: bool, starred: bool, width: int = 100, math: str = "unicode") -> Text:
    """Title, marks, authors and abstract as plain styled text (feed text is never parsed as
    markup); affiliations wrap under themselves, not under their authors. `math`: "unicode"
    shows the title's and abstract's TeX as Unicode, "tex" as arXiv wrote it."""
    shown = tex_to_unicode if math == "unicode" else str
    text = Text()
    text.append(shown(paper.title) + "\n", style="bold")
    marks = ("★ starred · " if starred else "") + ("read" if read else "unread")
    ident = "demo paper (no arXiv id)" if paper.demo else f"arXiv:{paper.id}v{paper.version}"
    text.append(f"{ident} · {paper.primary_category} · {marks}\n\n", style="dim")
    text.append("Authors\n", style="bold underline")

    def indented(value: str, indent: int, style: str = "") -> None:
        lines = textwrap.wrap(value, max(20, width - indent), break_on_hyphens=False) or [""]
        text.append("".join(" " * indent + line + "\n" for line in lines), style=style)

    for author in paper.authors:
        indented(author.name, 2)
        if author.affiliations:
            indented("; ".join(author.affiliations), 6, "italic dim")
    if paper.extra_authors:
        text.append(f"  and {paper.extra_authors} more\n", style="dim")
    if paper.listed_affiliations:
        more = f" and {paper.extra_affiliations} more" if paper.extra_affiliations else ""
        indented(f"Affiliations: {'; '.join(paper.listed_affiliations)}{more}", 2, "italic dim")
    text.append("\nAbstract\n", style="bold underline")
    text.append(shown(paper.abstract))
    return text


def facts_text(
    paper: Paper,
    topics: list[str],
    tags: tuple[str, ...] = (),
    width: int = 100,
    full_text: str = "",
    citations: str = "",
) -> Text:
    """The metadata under the note, each value wrapped under itself, then the links."""
    text = Text()
    rows = [
        ("Full text", full_text),
        ("Citations", citations),
        ("Tags", ", ".join(tags)),
        ("Categories", ", ".join(paper.categories)),
        ("Topics", ", ".join(topics)),
        ("Comment", paper.comment or ""),
        ("Journal ref", paper.journal_ref or ""),
        ("DOI", paper.doi or ""),
        ("Submitted", f"{paper.published[:10]} (v1)"),
        ("This version", f"v{paper.version}, {paper.updated[:10]}"),
    ]
    room = max(20, width - LABEL_WIDTH - 2)
    for label, value in rows:
        if value:
            text.append(f"{label:>{LABEL_WIDTH}}  ", style="bold")
            lines = textwrap.wrap(value, room, break_long_words=True, break_on_hyphens=False) or [""]
            text.append(("\n" + " " * (LABEL_WIDTH + 2)).join(lines) + "\n")
    # Links on lines of their own, unwrapped where the width allows, so they can be selected whole.
    for label, kind in (("Abstract page", "abs"), ("PDF", "pdf")):
        url = paper_link(paper, kind)
        if url:
            text.append(f"\n{label}\n", style="bold")
            text.append(url, style=Style(link=url, underline=True))
            text.append("\n")
    return text


@lru_cache(maxsize=1)
def _note_markdown() -> type[Markdown]:
    """rich's Markdown with headings at the left (it centres a top-level one; the record is
    left-aligned throughout). Imported at the first note shown: 30 ms of the app's start."""
    from rich.markdown import Heading, Markdown

    class LeftHeading(Heading):
        LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = {}

    class NoteMarkdown(Markdown):
        elements = {**Markdown.elements, "heading_open": LeftHeading}

    return NoteMarkdown


@dataclass(frozen=True)
class NoteSection:
    """What the record shows of the note: its text (None: the paper keeps no note, as a demo
    paper) and why it could not be saved, if it could not; `keys`: the keys that write it here
    and in $EDITOR, as bound now."""

    text: str | None
    problem: str = ""
    keys: tuple[str, str] = ("N", "E")


@dataclass(frozen=True)
class RecordLook:
    """Everything a record's lines depend on besides the paper itself."""

    width: int
    read: bool
    starred: bool
    topics: tuple[str, ...]
    tags: tuple[str, ...]
    note: NoteSection
    full_text: str = ""  # what is stored of the paper's full text (reader/fulltext)
    citations: str = ""  # its references and the cached papers citing it, and the keys listing them
    math: str = "unicode"  # the title's and abstract's math as "unicode" or "tex"


def record_width(screen_width: int) -> int:
    """The record's width on a screen this wide: the view's left padding (2), a margin (3) and
    its scroll thumb (1) taken off. Known before the view's first layout, so lines can be made
    ahead."""
    return screen_width - 6


@dataclass(frozen=True)
class RecordLines:
    """A record rendered (`paper` as seen with `look`): the lines, their plain text (for
    selection) and the note's link targets in the order their clicks name them."""

    strips: tuple[Strip, ...]
    texts: tuple[str, ...]
    links: tuple[str, ...] = ()
    paper: Paper | None = None
    look: RecordLook | None = None
    note_line: int | None = None  # where the note's section starts

    @classmethod
    def message(cls, text: str, *, width: int | None = None, indent: int = 0) -> RecordLines:
        """A message, each line indented by `indent`; with `width`, wrapped to it (by cells, as the
        terminal draws them)."""
        wrapped = Text(text).wrap(_console(width), width - indent) if width and width > indent else [Text(text)]
        lines = [" " * indent + line.plain.rstrip() for line in wrapped]
        return cls(tuple(Strip([Segment(line)]) for line in lines), tuple(lines))

    def shows(self, paper: Paper, look: RecordLook) -> bool:
        return self.paper is paper and self.look == look


def _console(width: int) -> Console:
    return Console(
        width=width, force_terminal=True, color_system="truecolor", legacy_windows=False, markup=False, emoji=False, highlight=False
    )


def render_record(paper: Paper, look: RecordLook) -> RecordLines:
    """The whole record as lines: body, note, facts. Pure: a worker can make them ahead."""
    width, note = look.width, look.note
    console = _console(width)
    options = console.options.update_width(width)
    lines: list[list[Segment]] = [[]]  # a blank line above (and one below, the facts' last): the view has
    links: tuple[str, ...] = ()  # no vertical padding, which a ScrollView leaves out of how far it scrolls

    def add(renderable: RenderableType) -> None:
        lines.extend(console.render_lines(renderable, options, pad=False, new_lines=False))

    add(detail_text(paper, read=look.read, starred=look.starred, width=width, math=look.math))
    note_line = None
    if note.text is not None:
        lines.append([])
        note_line = len(lines)
        add(Text("Note", style="bold underline"))
        if note.text.strip():
            note_lines, links = note_markdown(note.text, width)
            lines.extend(note_lines)
        else:
            add(Text(EMPTY_NOTE.format(write=note.keys[0], editor=note.keys[1]), style="dim"))
        if note.problem:
            add(Text(note.problem, style="bold red"))
    lines.append([])
    add(
        facts_text(paper, list(look.topics), look.tags, width=width, full_text=look.full_text, citations=look.citations)
    )  # it ends with a blank line
    strips = tuple(Strip(line) for line in lines)
    return RecordLines(strips, tuple(strip.text.rstrip() for strip in strips), links, paper, look, note_line)


@lru_cache(maxsize=8)
def note_markdown(text: str, width: int) -> tuple[tuple[list[Segment], ...], tuple[str, ...]]:
    """A note rendered (its lines and link targets), kept for the notes shown lately: a long
    note (a pasted code block takes rich a second) is rendered once, not at every star or key.
    Callers do not change the lines."""
    console = _console(width)
    links: dict[str, int] = {}
    rendered = console.render_lines(
        _note_markdown()(text, hyperlinks=True), console.options.update_width(width), pad=False, new_lines=False
    )
    lines = tuple([_click_instead_of_link(segment, links) for segment in line] for line in rendered)
    return lines, tuple(links)


def _click_instead_of_link(segment: Segment, links: dict[str, int]) -> Segment:
    """A note's link as a click the screen answers (by index), never a terminal hyperlink."""
    style = segment.style
    if style is None or not style.link:
        return segment
    index = links.setdefault(style.link, len(links))
    click = Style(underline=True) + Style.from_meta({"@click": ("screen.open_note_link", (index,))})
    return Segment(segment.text, style.update_link(None) + click)


class RecordView(ScrollView, can_focus=True):
    """Scrolls prepared `RecordLines`; text in it can be selected and copied.

    It draws its own scroll thumb in its last column: Textual's scrollbar is a widget of its own,
    and composing it beside the lines cost as much as drawing the lines (half of the view's
    first frame). The wheel and the keys scroll; the thumb only shows where the view is."""

    COMPONENT_CLASSES = {"record-view--thumb"}
    DEFAULT_CSS = """
    RecordView {
        overflow-x: hidden;
        scrollbar-size-vertical: 0;
        & > .record-view--thumb {
            color: $scrollbar;
        }
    }
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.lines = RecordLines.message("")

    def show(self, lines: RecordLines, *, home: bool) -> None:
        """Show these lines, from the top (`home`) or where the view was scrolled to."""
        self.lines = lines
        self.virtual_size = Size(max((strip.cell_length for strip in lines.strips), default=0), len(lines.strips))
        if home:
            self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        index = y + self.scroll_offset.y
        strips, width = self.lines.strips, self.scrollable_content_region.width
        strip = strips[index] if index < len(strips) else Strip([])
        if (selection := self.text_selection) is not None and (span := selection.get_span(index)) is not None:
            strip = self._selected(strip, *span)
        # Each cell's place in the text, for selecting with the mouse (Strip.apply_offsets, with
        # the thumb's column added in the same pass). A line drawn but with no text (a picture's
        # row: a colour a cell) has nothing to select: its cells are passed on as they are.
        if index < len(strips) and not self.lines.texts[index] and strip.cell_length:
            segments = list(strip)
        else:
            segments, x = [], 0
            for text, style, _ in strip:
                offset = Style.from_meta({"offset": (x, index)})
                segments.append(Segment(text, style + offset if style else offset))
                x += len(text)
        thumb = self._thumb()
        segments.append(Segment(" " * max(0, width - 1 - strip.cell_length)))
        segments.append(Segment("▐", self.get_component_rich_style("record-view--thumb")) if y in thumb else Segment(" "))
        return Strip(segments, max(width, strip.cell_length + 1))

    def _thumb(self) -> range:
        """The rows of the scroll thumb (none when everything fits)."""
        height, total = self.scrollable_content_region.height, len(self.lines.strips)
        if total <= height or height <= 0:
            return range(0)
        size = max(1, height * height // total)
        start = round(self.scroll_offset.y * (height - size) / (total - height))
        return range(start, start + size)

    def _selected(self, strip: Strip, start: int, end: int) -> Strip:
        """`strip` with characters `start` to `end` (-1: the end) shown as selected (offsets
        count characters, the strip cells: a wide character takes two)."""
        text = strip.text
        start, end = cell_len(text[:start]), strip.cell_length if end == -1 else cell_len(text[:end])
        if start >= end:
            return strip
        before, chosen, after = strip.divide([start, end, strip.cell_length])
        return Strip.join([before, chosen.apply_style(self.screen.get_component_rich_style("screen--selection")), after])

    @property
    def text(self) -> str:
        """The record as shown, as plain text."""
        return "\n".join(self.lines.texts)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return selection.extract(self.text), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()
