"""Which way a terminal can show pictures, and Kitty's graphics protocol written out (pure: the
caller passes the environment and whether output is a terminal, and sends what is made here).

`images = auto` uses a graphics protocol only where the terminal says it speaks one: Kitty's
(TERM=xterm-kitty, or KITTY_WINDOW_ID set by kitty in its windows) or iTerm2's inline images
(TERM_PROGRAM iTerm.app or WezTerm). Sixel is not chosen: no variable says a terminal has it, and
asking the terminal (a device-attributes query) races with the app's own reading of its input.
Inside tmux (TMUX set) the escape sequences reach tmux, not the terminal, and would be dropped or
garbled unless passed through, which reader cannot see from here: half blocks there. Nothing
that is not a terminal gets an escape sequence.

Kitty's protocol fits Textual, which owns every cell: the image is sent once (its PNG in chunks of
base64, with a "virtual placement" of C x R cells) and each of those cells is then written as
text, U+10EEEE with two combining marks saying its row and column, in a foreground colour that
is the image's id. Textual draws, scrolls and crops those cells like any text; the terminal puts
the image's pixels where they stand. iTerm2's images are drawn at the cursor, outside the cells,
and would be left behind or wiped by the next redraw: the app draws half blocks there."""

from __future__ import annotations

from collections.abc import Mapping

KITTY = "kitty"
ITERM2 = "iterm2"
HALFBLOCK = "halfblock"
OFF = "off"
_ITERM2_PROGRAMS = frozenset({"iTerm.app", "WezTerm"})


def drawing(images: str, environ: Mapping[str, str], is_terminal: bool) -> str:
    """How pictures are drawn under the `images` setting: OFF, HALFBLOCK, KITTY or ITERM2."""
    if images == OFF:
        return OFF
    if images != "auto" or not is_terminal or environ.get("TMUX"):
        return HALFBLOCK
    if environ.get("TERM") == "xterm-kitty" or environ.get("KITTY_WINDOW_ID"):
        return KITTY
    if environ.get("TERM_PROGRAM") in _ITERM2_PROGRAMS:
        return ITERM2
    return HALFBLOCK


# --- Kitty's graphics protocol, unicode placeholders (sw.kovidgoyal.net/kitty/graphics-protocol) ---

KITTY_CHUNK = 4096  # the protocol's most base64 characters in one escape sequence
PLACEHOLDER = "\U0010eeee"
# The combining marks that number a placeholder's row and column (kitty's rowcolumn-diacritics),
# in order, as ranges of code points: mark n is the n-th of them.
_DIACRITIC_RANGES = (
    (0x305, 0x305), (0x30D, 0x30E), (0x310, 0x310), (0x312, 0x312), (0x33D, 0x33F), (0x346, 0x346),
    (0x34A, 0x34C), (0x350, 0x352), (0x357, 0x357), (0x35B, 0x35B), (0x363, 0x36F), (0x483, 0x487),
    (0x592, 0x595), (0x597, 0x599), (0x59C, 0x5A1), (0x5A8, 0x5A9), (0x5AB, 0x5AC), (0x5AF, 0x5AF),
    (0x5C4, 0x5C4), (0x610, 0x617), (0x657, 0x65B), (0x65D, 0x65E), (0x6D6, 0x6DC), (0x6DF, 0x6E2),
    (0x6E4, 0x6E4), (0x6E7, 0x6E8), (0x6EB, 0x6EC), (0x730, 0x730), (0x732, 0x733), (0x735, 0x736),
    (0x73A, 0x73A), (0x73D, 0x73D), (0x73F, 0x741), (0x743, 0x743), (0x745, 0x745), (0x747, 0x747),
    (0x749, 0x74A), (0x7EB, 0x7F1), (0x7F3, 0x7F3), (0x816, 0x819), (0x81B, 0x823), (0x825, 0x827),
    (0x829, 0x82D), (0x951, 0x951), (0x953, 0x954), (0xF82, 0xF83), (0xF86, 0xF87), (0x135D, 0x135F),
    (0x17DD, 0x17DD), (0x193A, 0x193A), (0x1A17, 0x1A17), (0x1A75, 0x1A7C), (0x1B6B, 0x1B6B),
    (0x1B6D, 0x1B73), (0x1CD0, 0x1CD2), (0x1CDA, 0x1CDB), (0x1CE0, 0x1CE0), (0x1DC0, 0x1DC1),
    (0x1DC3, 0x1DC9), (0x1DCB, 0x1DCC), (0x1DD1, 0x1DE6), (0x1DFE, 0x1DFE), (0x20D0, 0x20D1),
    (0x20D4, 0x20D7), (0x20DB, 0x20DC), (0x20E1, 0x20E1), (0x20E7, 0x20E7), (0x20E9, 0x20E9),
    (0x20F0, 0x20F0), (0x2CEF, 0x2CF1), (0x2DE0, 0x2DFF), (0xA66F, 0xA66F), (0xA67C, 0xA67D),
    (0xA6F0, 0xA6F1), (0xA8E0, 0xA8F1), (0xAAB0, 0xAAB0), (0xAAB2, 0xAAB3), (0xAAB7, 0xAAB8),
    (0xAABE, 0xAABF), (0xAAC1, 0xAAC1), (0xFE20, 0xFE26), (0x10A0F, 0x10A0F), (0x10A38, 0x10A38),
    (0x1D185, 0x1D189), (0x1D1AA, 0x1D1AD), (0x1D242, 0x1D244),
)  # fmt: skip
DIACRITICS = "".join(chr(code) for first, last in _DIACRITIC_RANGES for code in range(first, last + 1))
KITTY_MAX_CELLS = len(DIACRITICS)  # rows or columns a placement can number (297)
KITTY_MAX_ID = 2**24 - 1  # an id said by a 24-bit colour alone


def kitty_image(png: bytes, image_id: int, columns: int, rows: int) -> str:
    """The escape sequences that send `png` as image `image_id` and place it virtually over
    `columns` x `rows` cells (drawn where kitty_rows' text stands): base64 in chunks of at most
    KITTY_CHUNK characters, every one asking the terminal for no reply (q=2: a reply would reach
    the app as keys)."""
    import base64

    if not (0 < image_id <= KITTY_MAX_ID and 0 < columns <= KITTY_MAX_CELLS and 0 < rows <= KITTY_MAX_CELLS):
        raise ValueError(f"no Kitty placement for image {image_id} over {columns} x {rows} cells")
    payload = base64.standard_b64encode(png).decode("ascii")
    chunks = [payload[at : at + KITTY_CHUNK] for at in range(0, len(payload), KITTY_CHUNK)] or [""]
    first = f"a=T,f=100,t=d,U=1,i={image_id},c={columns},r={rows}"
    return "".join(
        f"\x1b_G{first + ',' if at == 0 else ''}q=2,m={int(at < len(chunks) - 1)};{chunk}\x1b\\" for at, chunk in enumerate(chunks)
    )


def kitty_forget(image_id: int) -> str:
    """The escape sequence that frees image `image_id` in the terminal."""
    return f"\x1b_Ga=d,d=I,i={image_id},q=2\x1b\\"


def kitty_colour(image_id: int) -> tuple[int, int, int]:
    """The foreground colour that says which image a placeholder cell shows."""
    return (image_id >> 16) & 255, (image_id >> 8) & 255, image_id & 255


def kitty_rows(columns: int, rows: int) -> list[str]:
    """Each row of a placement as text: a placeholder per cell, its row's mark and its column's."""
    return ["".join(PLACEHOLDER + DIACRITICS[row] + DIACRITICS[column] for column in range(columns)) for row in range(rows)]
