"""Which way a terminal can show pictures (pure: the caller passes the environment and whether
output is a terminal). The app draws half blocks in every case but `off` for now: placing a
protocol's image under Textual (which owns the screen) is the step still to take.

`images = auto` uses a graphics protocol only where the terminal says it speaks one: Kitty's
(TERM=xterm-kitty, or KITTY_WINDOW_ID set by kitty in its windows) or iTerm2's inline images
(TERM_PROGRAM iTerm.app or WezTerm). Sixel is not chosen: no variable says a terminal has it, and
asking the terminal (a device-attributes query) races with the app's own reading of its input.
Inside tmux (TMUX set) the escape sequences reach tmux, not the terminal, and would be dropped or
garbled unless passed through, which reader cannot see from here: half blocks there. Nothing
that is not a terminal gets an escape sequence."""

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
