"""Which way a terminal can show pictures, and the bytes that show one (pure: the caller passes
the environment and whether output is a terminal).

`images = auto` uses a graphics protocol only where the terminal says it speaks one: Kitty's
(TERM=xterm-kitty, or KITTY_WINDOW_ID set by kitty in its windows) or iTerm2's inline images
(TERM_PROGRAM iTerm.app or WezTerm). Sixel is not chosen: no variable says a terminal has it, and
asking the terminal (a device-attributes query) races with the app's own reading of its input.
Inside tmux (TMUX set) the escape sequences reach tmux, not the terminal, and would be dropped or
garbled unless passed through, which reader cannot see from here: half blocks there. Nothing
that is not a terminal gets an escape sequence."""

from __future__ import annotations

import base64
from collections.abc import Mapping

KITTY = "kitty"
ITERM2 = "iterm2"
HALFBLOCK = "halfblock"
OFF = "off"
KITTY_CHUNK = 4096  # base64 characters per escape sequence, as kitty's protocol requires
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


def kitty_image(png: bytes, columns: int, rows: int) -> bytes:
    """Kitty's graphics protocol: transmit and show a PNG (`f=100,a=T`) scaled to `columns` x
    `rows` cells, the base64 in chunks of KITTY_CHUNK (`m=1` on every chunk but the last), the
    cursor left where it was (`C=1`), the terminal's answer suppressed (`q=2`)."""
    data = base64.standard_b64encode(png)
    chunks = [data[at : at + KITTY_CHUNK] for at in range(0, len(data), KITTY_CHUNK)] or [b""]
    out = []
    for index, chunk in enumerate(chunks):
        more = b"1" if index < len(chunks) - 1 else b"0"
        keys = b"f=100,a=T,q=2,C=1,c=%d,r=%d,m=%s" % (columns, rows, more) if index == 0 else b"m=" + more
        out.append(b"\x1b_G" + keys + b";" + chunk + b"\x1b\\")
    return b"".join(out)


def iterm2_image(png: bytes, columns: int, rows: int) -> bytes:
    """iTerm2's inline image (WezTerm reads it too): the file's size and base64, shown
    `columns` x `rows` cells, its aspect kept."""
    data = base64.standard_b64encode(png)
    keys = b"inline=1;size=%d;width=%d;height=%d;preserveAspectRatio=1" % (len(png), columns, rows)
    return b"\x1b]1337;File=" + keys + b":" + data + b"\x07"
