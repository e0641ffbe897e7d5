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


# --- Kitty's graphics protocol -------------------------------------------------------------------


def _commands(sequence: str) -> list[tuple[dict[str, str], str]]:
    """The escape sequences' (keys, payload), in order; nothing may stand between them."""
    import re

    found = re.findall(r"\x1b_G([^;\x1b]*)(?:;([^\x1b]*))?\x1b\\", sequence)
    assert found and re.sub(r"\x1b_G[^\x1b]*\x1b\\", "", sequence) == ""
    return [(dict(pair.split("=", 1) for pair in keys.split(",")), data) for keys, data in found]


def test_an_image_is_sent_to_kitty_as_its_png_in_chunks_of_at_most_4096_with_a_virtual_placement():
    import base64
    import io
    import os

    from PIL import Image

    from reader.core.terminal_graphics import KITTY_CHUNK, kitty_image

    noise = Image.frombytes("RGB", (64, 64), os.urandom(64 * 64 * 3))  # does not compress: several chunks
    out = io.BytesIO()
    noise.save(out, format="PNG")
    png = out.getvalue()
    commands = _commands(kitty_image(png, 4242, 20, 10))
    assert len(commands) == -(-len(base64.standard_b64encode(png)) // KITTY_CHUNK) > 2
    first = commands[0][0]
    assert {key: first[key] for key in ("a", "f", "t", "U", "i", "c", "r", "q")} == {
        "a": "T", "f": "100", "t": "d", "U": "1", "i": "4242", "c": "20", "r": "10", "q": "2",
    }  # fmt: skip
    assert [keys["m"] for keys, _ in commands] == ["1"] * (len(commands) - 1) + ["0"]
    assert all(keys["q"] == "2" for keys, _ in commands)  # the terminal answers nothing (its answer would be keys)
    assert all(len(data) <= KITTY_CHUNK and len(data) % 4 == 0 for _, data in commands)
    sent = base64.standard_b64decode("".join(data for _, data in commands))
    assert sent == png
    assert Image.open(io.BytesIO(sent)).tobytes() == noise.tobytes()


def test_a_placement_is_written_as_placeholders_numbering_each_cells_row_and_column():
    from reader.core.terminal_graphics import DIACRITICS, PLACEHOLDER, kitty_colour, kitty_forget, kitty_rows

    rows = kitty_rows(3, 2)
    assert rows == ["".join(PLACEHOLDER + DIACRITICS[row] + DIACRITICS[column] for column in range(3)) for row in range(2)]
    assert DIACRITICS[:3] == "\u0305\u030d\u030e" and len(DIACRITICS) == 297  # kitty's table
    assert kitty_colour(0x123456) == (0x12, 0x34, 0x56)
    assert _commands(kitty_forget(7)) == [({"a": "d", "d": "I", "i": "7", "q": "2"}, "")]


TRUECOLOR = {"COLORTERM": "truecolor"}


@pytest.mark.parametrize(
    "environ, is_terminal, expected",
    [
        ({"TERM": "xterm-kitty", **TRUECOLOR}, True, KITTY),
        ({"TERM": "xterm-256color", **TRUECOLOR}, True, HALFBLOCK),  # a terminal that says nothing: half blocks
        ({"TERM": "xterm-kitty", **TRUECOLOR}, False, HALFBLOCK),
        # The image's id is a 24-bit colour: written as 256 colours (no COLORTERM, as over ssh)
        # or not at all (NO_COLOR), the terminal would look up another image.
        ({"TERM": "xterm-kitty"}, True, HALFBLOCK),
        ({"KITTY_WINDOW_ID": "3", "TERM": "xterm-256color"}, True, HALFBLOCK),
        ({"TERM": "xterm-kitty", **TRUECOLOR, "NO_COLOR": "1"}, True, HALFBLOCK),
    ],
)
def test_the_app_asks_its_own_terminal_how_to_draw(monkeypatch, environ, is_terminal, expected):
    import io
    import sys

    from textual.app import App

    from reader.app.widgets.picture import terminal_drawing

    class Output(io.StringIO):
        def isatty(self) -> bool:
            return is_terminal

    for name in ("TERM", "KITTY_WINDOW_ID", "TERM_PROGRAM", "TMUX", "COLORTERM", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "__stdout__", Output())
    app = App()  # its console reads the colours the terminal takes as Textual does
    assert terminal_drawing(app, "auto") == expected
    assert terminal_drawing(app, "off") == OFF
