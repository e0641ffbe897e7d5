"""One table of TeX's text letters and accents (core/latex_chars.py), read both ways: what
escaping writes for a character, decoding reads back as that character."""

from __future__ import annotations

from reader.core.latex import escape_text
from reader.core.latex_chars import ACCENT_COMMANDS, LETTER_COMMANDS, with_mark
from reader.core.tex_decode import decode_tex

LETTERS = sorted(set(LETTER_COMMANDS.values()) - {"ȷ"})  # a dotless j is written j
# Every accent over the letters Unicode has a precomposed character for (ü, ç, ő, ṣ...).
ACCENTED = sorted(
    {accented for mark in ACCENT_COMMANDS.values() for base in "aeiouncszAEOUNCSZ" if len(accented := with_mark(base, mark)) == 1}
)


def test_a_letter_escaped_as_tex_decodes_to_itself():
    words = [f"Ab{character}cd" for character in LETTERS + ACCENTED]
    assert [decode_tex(escape_text(word)) for word in words] == words


def test_every_letter_command_decodes_braced_or_bare():
    for command, letter in LETTER_COMMANDS.items():
        assert decode_tex(f"{{\\{command}}}x \\{command} y") == f"{letter}x {letter} y"
