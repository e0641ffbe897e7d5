"""arXiv's HTML paper (LaTeXML's output inside arXiv's chrome) read into blocks of text.

Fed piece by piece as the page arrives (html.parser is a streaming tokenizer); open elements live
on an explicit stack, so a page nested 100,000 levels deep costs memory, never recursion, and
one nested deeper than MAX_DEPTH is refused in one line. Only `<article class="ltx_document">`
is read (arXiv's header, banner, infobox and footer are outside it), and within it nothing a
reader of the page would not see: script, style, noscript, template, head and dialog contents,
CSS-hidden classes, elements `hidden` or styled `display:none`. A formula's MathML is read apart
(mathml.py) into its Unicode, kept beside its TeX (formulas.py). No attribute value is kept but
math's TeX (`alttext`, as text) and a reference's link, only to read an arXiv id from it. See
shared/docs/arxiv-html.md for LaTeXML's classes.

The parser keeps the open elements and what each did; what they make is its collaborators':
elements.py says what an element is, page_blocks.py gathers the text into blocks, page_formulas.py
reads formulas and equations, page_figures.py figures, refs.py's OpenReference the entry of the
bibliography being read, byline.py an author's lines."""

from __future__ import annotations

from html import unescape

from reader.fulltext.attributes import character, hidden_by, raw_attribute
from reader.fulltext.bounded import BoundedHtmlParser, PageRefused
from reader.fulltext.byline import author_lines
from reader.fulltext.clean import printable, tex
from reader.fulltext.document import (
    AUTHORS,
    CELL_SEPARATOR,
    FIGURE,
    ITEM,
    MATH,
    REFERENCE,
    ROW,
    Block,
)
from reader.fulltext.elements import (
    BLOCK_TAGS,
    FLOAT_CLASSES,
    FRONT_MATTER,
    HIDDEN_CLASSES,
    HIDDEN_TAGS,
    OPAQUE,
    SILENT_NOTES,
    VOID,
    block_kind,
    classes_of,
)
from reader.fulltext.mathml import SKIPPED
from reader.fulltext.page_blocks import MAX_TEXT, PageBlocks
from reader.fulltext.page_figures import OpenFigures
from reader.fulltext.page_formulas import PageFormulas
from reader.fulltext.refs import OpenReference
from reader.fulltext.sources import resolved

MAX_DEPTH = 250_000  # open elements; 100,000 nested levels are read whole
# What an open element did when it started, undone when it ends (bits of a frame's int).
HIDE, ARTICLE, CONTEXT, ROW_OPEN, CELL, NOTE_TEXT, BIBLIOGRAPHY, BIB_ITEM = 1, 2, 4, 8, 16, 32, 64, 128
AUTHOR_LIST, AUTHOR, EQUATION, NOTE, NOTE_MARK, ITEM_TAG, BLOCK = 256, 512, 1024, 2048, 4096, 8192, 16384
EQUATION_ROW, BIB_TAG, AUTHOR_NOTES, CONTACT, BODY = 32768, 65536, 131072, 262144, 524288
FLOAT, FLOAT_CAPTION = 1048576, 2097152


class LatexmlText(BoundedHtmlParser):
    """feed(bytes) as they arrive, then blocks() for the text in reading order."""

    def __init__(self) -> None:
        super().__init__()
        self._characters = 0  # of text read
        self._blocks = PageBlocks()
        self._formulas = PageFormulas(self._blocks)
        self._stack: list[tuple[str, int]] = []  # (tag, what it did)
        self._open: dict[str, int] = {}  # tag -> how many are on the stack (an end tag matches in O(1))
        self._opaque: str | None = None  # inside <head>, <noscript>, ...: everything skipped up to its end
        self._opaque_nesting = 0
        self._hidden = 0  # open hiding elements
        self._articles = 0  # open ltx_document articles
        self._article_done = False  # the first one ended: later ones are not the paper
        self._marks: list[str] = []  # open footnotes' marks
        self._cells: list[str] | None = None  # the open table row's cells
        self._rows = 0  # open rows (a table inside a cell adds to its cell)
        self._authors: list[str] | None = None  # open author list: the open author's lines so far
        self._contacts: dict[str, list[str]] = {}  # the open author's e-mails, affiliations, thanks
        self._reference = OpenReference()
        self._contact_role = ""
        self._cell_open = 0
        self._note_text_open = 0
        self.found_article = False
        self._plain = False  # reading <body> while no LaTeXML article has come (a page arXiv did not make)
        self._page_ended = False  # `</html>` came
        self._figures = OpenFigures()

    # --- input ---------------------------------------------------------------------------------

    def finish(self, base_url: str | None = None) -> list[Block]:
        """The blocks: the paper's, then its bibliography. Call once, after the last piece.
        Figures' images are made absolute against `base_url`, the page's final address (none:
        their images are dropped)."""
        self.close_input()
        self._blocks.flush()
        return [resolved(block, base_url) if block.kind == FIGURE else block for block in self._blocks.main] + self._blocks.bibliography

    @property
    def plain_page(self) -> bool:
        """No LaTeXML article: the blocks are the body's visible text (an author-submitted page)."""
        return not self.found_article

    @property
    def reached_end(self) -> bool:  # `</html>` or the paper's end: a page cut short has neither
        return self._article_done or self._page_ended

    # --- tags ----------------------------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:  # noqa: C901 (math, figures and the rest: each its own mode)
        self.spend(len(attrs))
        if self._formulas.open is not None:
            if self._formulas.open.depth >= MAX_DEPTH:
                raise PageRefused(f"the page nests elements more than {MAX_DEPTH:,} deep; refused")
            self._formulas.open.start(tag, attrs)
            if tag in SKIPPED:
                self.set_cdata_mode(tag)  # the TeX and Content MathML beside the presentation: skipped unread
            return
        if self._opaque is not None:
            if tag == self._opaque:
                self._opaque_nesting += 1
            elif tag == "body" and self._opaque == "head":  # a head never closed ends here
                self._opaque = None
            return
        if tag in OPAQUE:
            self._opaque, self._opaque_nesting = tag, 1
            return
        if tag in VOID:
            if tag == "br" and self._contacts and len(self._blocks.saved) == 1 and self._authors is not None:
                self._authors.append(self._blocks.release_keep())  # an author's lines: name, affiliation, e-mail
            elif tag in ("br", "hr"):
                self.handle_data(" ")
            elif tag == "img" and self._figures.depth and self._reading():
                self._figures.image(attrs)
            return
        self._push(tag, self._start(tag, classes_of(attrs), attrs))
        if tag == "math" and self._formulas.open is None:
            self.set_cdata_mode("math")  # a formula not read (hidden): its MathML is skipped unread, up to </math>

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag == "math" or tag in SKIPPED:
            self.clear_cdata_mode()
        if tag not in VOID and self._opaque is None:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._formulas.open is not None:
            if tag != "math":
                self._formulas.open.end(tag)
                return
            self._formulas.end()
        if self._opaque is not None:
            if tag == self._opaque:
                self._opaque_nesting -= 1
                if not self._opaque_nesting:
                    self._opaque = None
            return
        if tag == "html":
            self._page_ended = True
        if not self._open.get(tag):
            return  # closes nothing open: ignored, as a browser would
        while self._stack:
            open_tag, did = self._stack.pop()
            self._open[open_tag] -= 1
            self._end(did)
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._formulas.open is not None:
            self._formulas.open.data(data)
        elif self._opaque is None and self._reading():
            if self._plain and self._characters + len(data) > MAX_TEXT:
                self._leave_plain()  # no page of text, and maybe no page at all (a gzip bomb of spaces)
                return
            self._characters += len(data)
            if self._characters > MAX_TEXT:
                raise PageRefused(f"the paper's text is longer than {MAX_TEXT // 2**20} MB; refused")
            self._blocks.parts.append(data)

    def handle_charref(self, name: str) -> None:
        self.handle_data(character(name))  # a control one too: an escape sequence is dropped whole

    def handle_entityref(self, name: str) -> None:
        self.handle_data(unescape(f"&{name};"))

    def _reading(self) -> bool:
        return self._articles > 0 and not self._hidden

    def _push(self, tag: str, did: int) -> None:
        if len(self._stack) >= MAX_DEPTH:
            raise PageRefused(f"the page nests elements more than {MAX_DEPTH:,} deep; refused")
        self._stack.append((tag, did))
        self._open[tag] = self._open.get(tag, 0) + 1

    def _start(self, tag: str, classes: frozenset[str], attrs: list[tuple[str, str | None]]) -> int:  # noqa: C901 (one branch per element LaTeXML writes)
        """What the element does as it starts; returns the bits that say what to undo at its end."""
        hides = tag in HIDDEN_TAGS or bool(classes & HIDDEN_CLASSES) or (not self._hidden and hidden_by(attrs))
        if self._plain and tag == "article" and "ltx_document" in classes and not self._hidden and not hides:
            self._leave_plain()  # the paper after all: what was read of the body is arXiv's chrome
        if not self._articles:
            if tag == "article" and "ltx_document" in classes and not self._article_done and not self._hidden and not hides:
                self._articles = 1
                self.found_article = True
                return ARTICLE
            if tag == "body" and not self._article_done and not self.found_article and not self._plain:
                self._articles, self._plain = 1, True
                return BODY
            if hides:
                self._hidden += 1
                return HIDE
            return 0
        if self._hidden or hides:
            self._hidden += 1
            return HIDE
        if tag == "math":
            self._math(attrs)
            self._hidden += 1  # MathML's glyphs: the TeX stands for them
            return HIDE
        did = 0
        if tag == "article":
            self._articles += 1
            did |= ARTICLE
        if tag in BLOCK_TAGS:
            self._blocks.boundary()
            did |= BLOCK
        if "ltx_note" in classes:
            if classes & SILENT_NOTES:
                self._hidden += 1
                return did | HIDE
            self._marks.append(FRONT_MATTER if "ltx_note_frontmatter" in classes else "")
            did |= NOTE
        elif "ltx_note_mark" in classes:
            if self._note_text_open:  # the mark again, at the note's start
                self._hidden += 1
                return did | HIDE
            self._blocks.capture()
            did |= NOTE_MARK
        elif "ltx_note_content" in classes and self._marks:
            self._blocks.capture()
            self._note_text_open += 1
            did |= NOTE_TEXT
        elif "ltx_tag_item" in classes and self._blocks.kinds[-1] == ITEM:
            self._blocks.capture()
            did |= ITEM_TAG
        if tag == "figure" and classes & FLOAT_CLASSES and not self._blocks.saved and not self._blocks.in_bibliography:
            self._figures.open(classes, self._blocks.main)
            did |= FLOAT
        elif self._figures.depth == 1 and (tag == "figcaption" or "ltx_caption" in classes) and not self._blocks.saved:
            did |= FLOAT_CAPTION
        if "ltx_bibliography" in classes:
            self._blocks.in_bibliography += 1
            did |= BIBLIOGRAPHY
        if "ltx_equation" in classes or "ltx_equationgroup" in classes:
            self._formulas.start_equation()
            did |= EQUATION
        if self._formulas.equations and (tag == "tr" or "ltx_eqn_row" in classes):
            if self._formulas.start_row():  # an aligned row: its cells' formulas and its number, one line
                did |= EQUATION_ROW
        elif did & EQUATION:
            pass
        elif tag == "tr" or "ltx_tr" in classes:
            if not self._rows:
                self._cells = []
            self._rows += 1
            did |= ROW_OPEN
        elif (tag in ("td", "th") or "ltx_td" in classes) and self._rows == 1 and not self._cell_open:
            self._blocks.capture()
            self._cell_open += 1
            did |= CELL
        if "ltx_authors" in classes and self._authors is None:
            self._authors = []
            did |= AUTHOR_LIST
        elif "ltx_creator" in classes and self._authors is not None and not self._blocks.saved:
            self._blocks.capture()
            self._contacts = {"email": [], "affiliation": [], "thanks": []}
            did |= AUTHOR
        elif "ltx_author_notes" in classes and self._authors is not None and self._contacts:
            self._blocks.capture()
            did |= AUTHOR_NOTES
        elif "ltx_contact" in classes and self._contacts:
            self._blocks.capture()
            did |= CONTACT
            self._contact_role = (
                "email"
                if "ltx_role_email" in classes
                else ("affiliation" if classes & {"ltx_role_affiliation", "ltx_role_address"} else "thanks")
            )
        if tag == "sup" and self._authors is not None and "ltx_note_mark" not in classes:
            self._blocks.parts.append("^")  # an affiliation's mark, `İrsoy^1`: apart from the name it follows (searched as a word)
        kind = block_kind(tag, classes, self._blocks.in_bibliography > 0)
        if kind is not None:
            self._blocks.kinds.append(kind)
            did |= CONTEXT
        if did & CONTEXT and kind == REFERENCE and not self._blocks.saved:
            self._blocks.capture()  # one line, whatever blocks it holds
            self._reference = OpenReference(dict(attrs).get("id") or "")
            did |= BIB_ITEM
        elif "ltx_tag_bibitem" in classes and self._blocks.kinds[-1] == REFERENCE and self._reference.key and not self._reference.label:
            self._blocks.capture()
            did |= BIB_TAG
        if tag == "a" and self._blocks.kinds[-1] == REFERENCE:
            self._reference.link(dict(attrs).get("href") or "")
        return did

    def _end(self, did: int) -> None:  # noqa: C901 (undoes each of what _start did, one bit each)
        if not did:
            return
        if did & HIDE:
            self._hidden -= 1
            return
        if did & NOTE_MARK:
            mark = self._blocks.release()
            if self._marks and self._marks[-1] == FRONT_MATTER:
                mark = ""
            elif self._marks:
                self._marks[-1] = mark
            if mark:
                self._blocks.parts.append(f"[^{mark}]")
        if did & ITEM_TAG:
            self._blocks.item_tag = self._blocks.release()
        if did & NOTE_TEXT:
            self._note_text_open -= 1
            text = self._blocks.release()
            if text:
                mark = self._marks[-1] if self._marks and self._marks[-1] != FRONT_MATTER else ""
                self._blocks.notes.append(f"[^{mark}]: {text}" if mark else text)
        if did & NOTE:
            self._marks.pop()
        if did & CELL:
            self._cell_open -= 1
            cell = self._blocks.release()
            if self._cells is not None:
                self._cells.append(cell)
        if did & CONTACT:
            contact = self._blocks.release()
            if contact and self._contacts:
                self._contacts[self._contact_role].append(contact)
        if did & AUTHOR_NOTES:
            thanks = self._blocks.release()
            if thanks and self._contacts:
                self._contacts["thanks"].append(thanks)
        if did & AUTHOR:
            self._end_author()
        if did & EQUATION_ROW:
            self._formulas.end_row()
        if did & BIB_TAG:
            self._reference.label = self._blocks.release()
        if did & ROW_OPEN:
            self._rows -= 1
            if not self._rows:
                self._end_row()
        if did & BIB_ITEM:
            self._end_reference()
        if did & BLOCK:
            if self._formulas.equations:
                self._formulas.end_part()
            else:
                self._blocks.boundary()
        if did & FLOAT_CAPTION:
            self._figures.caption_ended(self._blocks.main)
        if did & FLOAT and (figure := self._figures.close(self._blocks.main)):
            self._blocks.add(figure)
        if did & AUTHOR_LIST:
            self._blocks.flush()
            self._authors = None
        if did & EQUATION:
            self._formulas.end_equation()
        if did & CONTEXT and self._blocks.kinds.pop() == ITEM:
            self._blocks.item_tag = ""
        if did & BIBLIOGRAPHY:
            self._blocks.flush()
            self._blocks.in_bibliography -= 1
        if did & BODY and self._plain:
            self._blocks.flush()
            self._articles, self._plain, self._article_done = 0, False, True
        if did & ARTICLE:
            self._blocks.flush()
            self._articles -= 1
            if not self._articles:
                self._article_done = True

    # --- what the elements make ----------------------------------------------------------------

    def _math(self, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        alttext = values.get("alttext") or ""
        if "&#" in (start_tag := self.get_starttag_text() or ""):  # html.parser dropped its references' controls
            alttext = raw_attribute(start_tag, "alttext") or ""
        formula = tex(alttext, cell=self._formulas.row is not None)
        if not formula or not self._reading():
            return
        display = values.get("display") == "block"
        written = self._formulas.start(formula, display=display)
        if written is None:  # a cell of an aligned row: the row's line is made at its end
            return
        if display and not self._blocks.saved:
            self._blocks.boundary()
            self._blocks.add(Block(MATH, written))
        else:
            self._blocks.parts.append(written)

    def _end_row(self) -> None:
        cells, self._cells = self._cells or [], None
        self._blocks.flush()
        if any(cells):  # as the store reads it back: an empty cell's two spaces made one
            self._blocks.add(Block(ROW, printable(CELL_SEPARATOR.join(cells))))
        self._blocks.place_notes()

    def _end_reference(self) -> None:
        if reference := self._reference.block(self._blocks.release()):
            self._blocks.add(reference)
        self._reference = OpenReference()
        self._blocks.place_notes()

    def _end_author(self) -> None:
        """An author (or a byline of several) as lines of its own, the thanks after them as notes."""
        lines = (self._authors or []) + [self._blocks.release()]
        contacts, self._contacts = self._contacts, {}
        self._authors = []
        self._blocks.flush()
        for line in author_lines(lines, contacts.get("affiliation", []), contacts.get("email", [])):
            self._blocks.add(Block(AUTHORS, line))
        self._blocks.notes += contacts.get("thanks", [])
        self._blocks.place_notes()

    def _leave_plain(self) -> None:
        """The LaTeXML article begins (or the body is too long to be a page's text): forget the
        body read so far; only an article is read from now on."""
        self._blocks.forget()
        self._characters = 0
        self._articles, self._plain = 0, False
