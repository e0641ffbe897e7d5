"""A PDF's lines of text (pypdf's, page by page) made into the blocks of a paper.

Each line is mended first: an accent that TeX set as a glyph of its own (`Schr¨odinger`, with
OT1 fonts) is composed with its letter, ligatures (ﬁ ﬀ ﬂ) become letters, and the arXiv stamp
down page 1's margin is cut out (pypdf often glues it to the title). Lines that recur at the top
or foot of pages (running headers, page numbers) are dropped.

Then lines are joined into paragraphs: a line that ends a sentence well short of the page's usual
width ends its paragraph; a hyphen at a line's end joins the word unless it is a real hyphen.
A heading is a short line numbered as the next section would be (`2`, `2.1`, `II.`, `B.`): a
figure's `0 Steps` or an equation's `4 Var(X)` is not. The bibliography starts at its heading,
or without one at a run of entries numbered from `[1]`; each entry is a block of its own, found
by its label (`[12]`, `12.`, in sequence) or, in an author-year list, by its author's name."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from reader.errors import ReaderError
from reader.fulltext.clean import printable
from reader.fulltext.document import FIGURE, HEADING, PARAGRAPH, REFERENCE, Block
from reader.fulltext.page_blocks import MAX_BLOCKS, MAX_TEXT
from reader.fulltext.refs import arxiv_id_in_text
from reader.models import ID_PATTERN


class PdfUnreadable(ReaderError):
    """pypdf could not read the file."""


# --- mending a line ----------------------------------------------------------------------------

_LIGATURES = str.maketrans(
    {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"}
)
# TeX's accents as pypdf reads them from OT1 fonts (spacing forms) -> the combining forms.
_COMBINING = {
    "\u00b4": "\u0301",
    "\u00a8": "\u0308",
    "\u02c6": "\u0302",
    "\u02dc": "\u0303",
    "\u00af": "\u0304",
    "\u02d8": "\u0306",
    "\u02d9": "\u0307",
    "\u02da": "\u030a",
    "\u02dd": "\u030b",
    "\u02c7": "\u030c",
    "`": "\u0300",
    "\u00b8": "\u0327",
    "\u02db": "\u0328",
}
_BELOW = "\u00b8\u02db"  # cedilla and ogonek: pypdf puts them before or after their letter
_TAKES_BELOW = set("cCsStTkKlLnNrRgGaAeEiIoOuU")
_ACCENT = re.compile(
    r"(?P<before>[^\W\d_])?(?P<accent>[\u00b4\u00a8\u02c6\u02dc\u00af\u02d8\u02d9\u02da\u02dd\u02c7`\u00b8\u02db])"
    r"(?P<space> ?)(?P<after>[^\W\d_])?"
)
_DOTLESS = {"\u0131": "i", "\u0237": "j"}  # TeX puts an accent on a dotless i (\'\i)
# arXiv's stamp: `arXiv:2301.01234v2 [cs.LG] 5 Jan 2023`, `arXiv:hep-th/9901001v3 12 Jan 1999`.
_STAMP = re.compile(rf"arXiv:{ID_PATTERN}v\d+\s+(?:\[[A-Za-z.-]+\]\s+)?\d{{1,2}}\s+[A-Z][a-z]{{2}}\s+\d{{4}}")


def _composed(letter: str, accent: str) -> str:
    return unicodedata.normalize("NFC", _DOTLESS.get(letter, letter) + _COMBINING[accent])


def _accent(match: re.Match[str]) -> str:
    before, accent, space, after = match["before"] or "", match["accent"], match["space"], match["after"] or ""
    if accent in _BELOW:  # the letter that takes it, on either side (a space never stands between)
        if after and not space and (after in _TAKES_BELOW or not before):
            return before + _composed(after, accent)
        if before and before in _TAKES_BELOW:
            return _composed(before, accent) + space + after
        return match[0]
    if not after or (space and not before) or (accent == "`" and after not in "aeiouAEIOU"):
        return match[0]  # a lone accent, or a backquote: left as it is
    return before + _composed(after, accent)


def mended(line: str) -> str:
    """A line with its ligatures as letters and TeX's loose accents composed with their letters."""
    line = line.translate(_LIGATURES)
    return _ACCENT.sub(_accent, line) if any(accent in line for accent in _COMBINING) else line


def without_stamp(text: str) -> str:
    """Page 1's text without arXiv's margin stamp, a line break in its place."""
    return _STAMP.sub("\n", text, count=1)


# --- headings ------------------------------------------------------------------------------------

_NUMBERED = re.compile(r"^(?P<number>\d{1,2}(?:\.\d{1,2})*\.?|[IVX]{1,5}\.|[A-Z]\.)\s+(?P<title>[A-Z][^.]{0,100})$")
_APPENDIX = re.compile(r"^(?:Appendix|APPENDIX)(?:\s+[A-Z](?:[:.]|\s|$).{0,100}|$)")
_NAMED = re.compile(
    r"^(?:Abstract|Acknowledge?ments?|Bibliography|References(?: and Notes)?|Literature Cited|Works Cited)$",
    re.IGNORECASE,
)
_REFERENCE_TITLE = re.compile(r"^(?:bibliography|references(?: and notes)?|literature cited|works cited)$", re.IGNORECASE)
_MATH = re.compile(r"[=<>≤≥∑∫√|+±×∈→]")
_ROMAN = {"I": 1, "V": 5, "X": 10}


def _roman(text: str) -> int | None:
    values = [_ROMAN[c] for c in text]
    total = sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))
    return total if 0 < total < 40 else None


def _title_like(title: str) -> bool:
    """Words, not a figure's labels or an equation: a word of three letters, mostly letters."""
    compact = title.replace(" ", "")
    letters = sum(c.isalpha() for c in compact)
    return bool(re.search(r"[^\W\d_]{3}", title)) and letters >= 0.7 * len(compact) and not _MATH.search(title)


def _follows(previous: tuple[int, ...], number: tuple[int, ...]) -> bool:
    """`number` can be the section after `previous`: one deeper starting at 1, or one level's count
    up by 1 or 2 (a heading pypdf missed) with what is below it gone."""
    depth = len(number)
    if depth == len(previous) + 1 and number[:-1] == previous:
        return number[-1] == 1
    if depth > len(previous) or number[:-1] != previous[: depth - 1]:
        return False
    return 1 <= number[-1] - previous[depth - 1] <= 2


# --- references ----------------------------------------------------------------------------------

_BRACKET_LABEL = re.compile(r"^\[(?P<label>[^\]\s]{1,20})\]\s")
_NUMBER_LABEL = re.compile(r"^(?P<label>\d{1,4})\.\s+\S")
_NUMBERED_BRACKET = re.compile(r"^\[(?P<label>\d{1,4})\]\s")
# An author-year entry starts with a surname and a comma (`Hairer, E.`, `van der Berg, J.`), or a
# full name (`Ashish Vaswani, Noam ...`).
_PARTICLES = r"(?:(?:van|von|der|den|de|del|della|di|da|du|le|la|dos|ter)\s+)*"
# A letter follows the comma: `Supplement, 8, 14` goes on an entry. `—.` repeats the last authors.
_AUTHOR_START = re.compile(
    rf"^(?:{_PARTICLES}[A-Z][^\W\d_'’-]*(?:[-'’][^\W\d_]+)*(?:\s+[A-Z][^\W\d_]*\.?)?,\s+[^\W\d_]|(?:—|-{{2,3}})\.?\s)"
)
# An entry's last line: a full stop, a bracket, a page or year, ADS's `L3+` (more pages in the
# journal), or a paper not yet published (`ArXiv e-prints`, `in press`).
_ENTRY_END = re.compile(r"[.)\]+]$|\d$|\b(?:e-prints|in press|submitted|in prep\.?)$", re.IGNORECASE)


def _label_run(lines: list[str]) -> int | None:
    """Where a bibliography with no heading starts: the last line `[1] ...` from which the
    entries `[1]`, `[2]`, ... (at least two) run to the end in sequence."""
    start: int | None = None
    expected = 0
    for index, line in enumerate(lines):
        match = _NUMBERED_BRACKET.match(line)
        if not match:
            continue
        label = int(match["label"])
        if label == 1:
            start, expected = index, 2
        elif start is not None and label == expected:
            expected += 1
        else:
            start = None
    return start if start is not None and expected > 2 else None


# --- assembling ----------------------------------------------------------------------------------


_PAGE_NUMBER = re.compile(r"^\d{1,4}\b|\b\d{1,4}$")


class Paragraphs:
    """Takes pypdf's text page by page (`page`), gives the paper's blocks at the end (`blocks`)."""

    def __init__(self) -> None:
        self._pages: list[list[str]] = []
        self._numbers: list[int] = []  # each page's number in the PDF (a page skipped has none here)
        self._text = 0

    def page(self, text: str, number: int | None = None) -> None:
        """The text of the PDF's page `number` (from 1; None: the one after the last given)."""
        self._numbers.append(number if number is not None else (self._numbers[-1] + 1 if self._numbers else 1))
        if not self._pages:
            text = without_stamp(text)
        lines = [mended(printable(line)) for line in text.split("\n")]
        lines = [line for line in lines if line]
        self._text += sum(len(line) for line in lines)
        if self._text > MAX_TEXT:
            raise PdfUnreadable(f"the PDF's text is longer than {MAX_TEXT // 2**20} MB; refused")
        self._pages.append(lines)

    def blocks(self) -> list[Block]:
        """The blocks of the pages given since the last call (each page is given once)."""
        pages, numbers = _without_running_lines(self._pages), self._numbers
        self._pages, self._numbers, self._text = [], [], 0
        return _Assembly(pages, numbers).blocks


def _shape(line: str) -> str:
    """A line with the page number it may start or end with made `#`."""
    return _PAGE_NUMBER.sub("#", line)


def _without_running_lines(pages: list[list[str]]) -> list[list[str]]:
    """The pages without their page numbers and running headers and footers: a line among the
    first or last two of a page that recurs there on other pages, its page number aside."""
    edges: Counter[str] = Counter()
    for lines in pages:
        edges.update({_shape(line) for line in lines[:2] + lines[-2:]})
    kept = []
    for lines in pages:
        lines = list(lines)
        for position in (0, -1):  # a page number alone, at its top or foot
            if lines and lines[position].isdigit():
                lines.pop(position)
        edge = set(range(min(2, len(lines)))) | set(range(max(0, len(lines) - 2), len(lines)))
        kept.append([line for index, line in enumerate(lines) if not (index in edge and edges[_shape(line)] > 1)])
    return kept


class _Assembly:
    def __init__(self, pages: list[list[str]], numbers: list[int]):
        self.blocks: list[Block] = []
        self._lines: list[str] = []
        self._kind = PARAGRAPH
        self._page = 1  # the PDF's page of the line read
        self._caption_page: int | None = None  # a figure's caption being read: its page
        self._section: tuple[int, ...] = (0,)
        self._roman = False  # REVTeX's numbering: I., II., then A., B., then 1., 2.
        self._references = False
        self._next_label = 1  # the bibliography's next `12.` label
        self._labelled = False  # its entries have labels: only a label starts one
        self._words = _vocabulary(pages)
        everything = [line for lines in pages for line in lines]
        run = _label_run(everything)
        position = 0
        for page, lines in zip(numbers, pages, strict=True):
            self._page = page
            usual = sorted(len(line) for line in lines)[len(lines) // 2] if lines else 0
            for number, line in enumerate(lines):
                if position == run and not self._references:
                    self._end()
                    self._references = True
                position += 1
                if number == 0 and self._after_bibliography(line):
                    self._end()
                    self._references = False
                self._line(line, usual)
            # A paragraph may go on over the page break: it ends only as below.
        self._end()

    def _line(self, line: str, usual: int) -> None:
        if self._heading(line, usual):
            self._end()
            self._add(Block(HEADING, line))
            return
        if self._references and self._entry_starts(line, usual):
            self._end()
            self._kind = REFERENCE
        elif self._caption_starts(line):
            self._end()  # a figure's caption starts a block of its own, on its page
            self._kind, self._caption_page = FIGURE, self._page
        self._lines.append(line)
        if self._kind in (PARAGRAPH, FIGURE) and _SENTENCE_END.search(line) and len(line) < 0.85 * usual:
            self._end()

    def _caption_starts(self, line: str) -> bool:
        caption = _CAPTION.match(line) if not self._references else None
        return caption is not None and bool(caption["sure"] or not self._lines or _SENTENCE_END.search(self._lines[-1]))

    def _heading(self, line: str, usual: int) -> bool:
        if _NAMED.match(line) or _APPENDIX.match(line):
            self._references = bool(_REFERENCE_TITLE.match(line))
            if not _NAMED.match(line):
                self._section = (0,)
            return True
        match = _NUMBERED.match(line)
        if not match or len(line) >= 0.8 * max(usual, 1) or not _title_like(match["title"]):
            return False
        number = self._number(match["number"].rstrip("."))
        if number is None or not _follows(self._section, number):
            return False
        self._section = number
        self._references = bool(_REFERENCE_TITLE.match(match["title"]))
        return True

    def _number(self, text: str) -> tuple[int, ...] | None:
        if text.isdigit() or "." in text:
            number = tuple(int(part) for part in text.split("."))
            if self._roman and len(number) == 1:  # REVTeX's third level, under a lettered one
                return (*self._section[:2], number[0]) if len(self._section) >= 2 else None
            return number
        roman = _roman(text) if len(text) > 1 or text in "IVX" else None
        if roman is not None and (self._roman or self._section == (0,)) and (len(text) > 1 or self._section[0] + 1 == roman):
            self._roman = True
            return (roman,)
        if len(text) == 1 and self._roman:  # REVTeX's subsections: A., B.
            return (self._section[0], ord(text) - ord("A") + 1)
        return None

    def _entry_starts(self, line: str, usual: int) -> bool:
        if _BRACKET_LABEL.match(line):
            self._labelled = True
            return True
        numbered = _NUMBER_LABEL.match(line)
        if numbered and int(numbered["label"]) == self._next_label:
            self._next_label += 1
            self._labelled = True
            return True
        if not self._lines or self._kind != REFERENCE:
            return True  # the first line after the heading
        if self._labelled:
            return False
        # Author-year: the last entry has ended, and a name starts.
        return bool(_ENTRY_END.search(self._lines[-1])) and bool(_AUTHOR_START.match(line))

    def _after_bibliography(self, first_line: str) -> bool:
        """An author-year bibliography is over when a page starts with a line that neither goes
        on with its last entry nor starts one (the tables that follow it in some journals)."""
        return (
            self._references
            and self._kind == REFERENCE
            and not self._labelled
            and bool(self._lines)
            and bool(_ENTRY_END.search(self._lines[-1]))
            and not _AUTHOR_START.match(first_line)
        )

    def _end(self) -> None:
        if self._lines:
            pieces = [self._lines[0]]
            for previous, line in zip(self._lines, self._lines[1:]):
                cut, glue = _joint(previous, line, self._words)
                if cut:
                    pieces[-1] = pieces[-1][:-1]
                pieces += (glue, line)
            text = "".join(pieces)
            found = arxiv_id_in_text(text) if self._kind == REFERENCE else None
            self._add(Block(self._kind, text, found, page=self._caption_page if self._kind == FIGURE else None))
        self._lines = []
        self._kind = PARAGRAPH

    def _add(self, block: Block) -> None:
        if len(self.blocks) >= MAX_BLOCKS:
            raise PdfUnreadable(f"the PDF has more than {MAX_BLOCKS:,} paragraphs; refused")
        self.blocks.append(block)


_SENTENCE_END = re.compile(r"[.:!?)\]]$")
# A figure's caption: `Figure 3:`, `Fig. 3.`, REVTeX's `FIG. 3.`, AAS's `Fig. 3.—`, `Figure S1:`,
# `Figure A.2:`. A colon or a dash after the label is a caption's even after the figure's own
# words (its axes' labels, read just before it); a full stop only after a sentence's end.
_CAPTION = re.compile(r"^(?:Figure|FIGURE|Fig\.|FIG\.)\s?[A-Z]?\.?\d{1,3}(?:\.\d{1,3})?\s?(?:(?P<sure>:|\.\s?[—–])|[.|])")
_LINK = re.compile(r"^(?:https?://|www\.|doi\.org/)", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_LAST_WORD = re.compile(r"(?:[^\W\d_]+-)*[^\W\d_]*-$")  # searched in the line's last token only
_FIRST_WORD = re.compile(r"^[^\W\d_]+(?:-[^\W\d_]+)*")
# Words whose hyphen is part of them (`self-contained`): never one that TeX's patterns break.
_HYPHENATED_PREFIXES = frozenset(("self", "well", "ill", "cross", "half", "quasi"))


def _vocabulary(pages: list[list[str]]) -> frozenset[str]:
    """Every word the text holds whole on a line (lowercase, hyphenated ones as written)."""
    return frozenset(word.lower() for lines in pages for line in lines for word in _WORD.findall(line))


def _joint(previous: str, line: str, words: frozenset[str]) -> tuple[bool, str]:
    """How a line follows the previous one: (drop the previous line's final hyphen, what goes
    between). A word hyphenated at the line's end is joined again; a real hyphen (`state-of-the-`
    `art`, `X-` `ray`, `Tool-` `Using`) stays; a link goes on without a space."""
    token = previous[previous.rfind(" ") + 1 :]
    if _LINK.match(token) and (token[-1] in "/-_" or (token[-1] == "." and line[:1].islower())):
        return False, ""  # a link cut where the url package breaks it
    last = _LAST_WORD.search(token) if token.endswith("-") else None
    if last is None or not last[0][:-1]:
        return False, " "
    first = _FIRST_WORD.match(line)
    if first is None:
        return False, "" if line[:1].isupper() or line[:1].isdigit() else " "
    before, after = last[0][:-1], first[0]
    fragment = before.rsplit("-", 1)[-1]
    real = (
        not after[0].islower()
        or "-" in before
        or "-" in after
        or len(fragment) < 2
        or fragment.lower() in _HYPHENATED_PREFIXES
        or (f"{fragment}-{after}".lower() in words and f"{fragment}{after}".lower() not in words)
    )
    return not real, ""
