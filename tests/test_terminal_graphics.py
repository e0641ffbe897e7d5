"""Which terminals get a graphics protocol under `images = auto`."""

from __future__ import annotations

import pytest

from reader.core.terminal_graphics import HALFBLOCK, ITERM2, KITTY, OFF, drawing


@pytest.mark.parametrize(
    "images, environ, is_terminal, expected",
    [
        ("auto", {"TERM": "xterm-kitty"}, True, KITTY),
        ("auto", {"TERM": "xterm-256color", "KITTY_WINDOW_ID": "3"}, True, KITTY),
        ("auto", {"TERM_PROGRAM": "iTerm.app"}, True, ITERM2),
        ("auto", {"TERM_PROGRAM": "WezTerm"}, True, ITERM2),
        ("auto", {"TERM": "xterm-256color", "TERM_PROGRAM": "Apple_Terminal"}, True, HALFBLOCK),
        ("auto", {"TERM": "xterm-kitty", "TMUX": "/tmp/tmux-1000/default,42,0"}, True, HALFBLOCK),
        ("auto", {"TERM_PROGRAM": "iTerm.app", "TMUX": "/tmp/tmux-1000/default,42,0"}, True, HALFBLOCK),
        ("auto", {"TERM": "xterm-kitty"}, False, HALFBLOCK),  # not a terminal: no escape sequence
        ("halfblock", {"TERM": "xterm-kitty"}, True, HALFBLOCK),
        ("off", {"TERM": "xterm-kitty"}, True, OFF),
        ("off", {}, False, OFF),
    ],
)
def test_a_protocol_only_where_the_terminal_says_it_speaks_one_never_in_tmux(images, environ, is_terminal, expected):
    assert drawing(images, environ, is_terminal) == expected
