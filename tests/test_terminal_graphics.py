"""Which terminals get a graphics protocol under `images = auto`, and the exact bytes of Kitty's
and iTerm2's image sequences."""

from __future__ import annotations

import base64

import pytest

from reader.core.terminal_graphics import HALFBLOCK, ITERM2, KITTY, OFF, drawing, iterm2_image, kitty_image


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


def test_kitty_sends_the_png_in_chunks_of_4096_base64_characters():
    png = bytes(range(256)) * 13  # 3,328 bytes: 4,440 base64 characters, two chunks
    data = base64.standard_b64encode(png)
    assert kitty_image(png, 40, 12) == (
        b"\x1b_Gf=100,a=T,q=2,C=1,c=40,r=12,m=1;" + data[:4096] + b"\x1b\\" + b"\x1b_Gm=0;" + data[4096:] + b"\x1b\\"
    )
    assert kitty_image(b"\x89PNG", 2, 1) == b"\x1b_Gf=100,a=T,q=2,C=1,c=2,r=1,m=0;iVBORw==\x1b\\"


def test_iterm2_sends_the_size_and_base64_in_one_sequence():
    assert iterm2_image(b"\x89PNG", 30, 10) == b"\x1b]1337;File=inline=1;size=4;width=30;height=10;preserveAspectRatio=1:iVBORw==\x07"
