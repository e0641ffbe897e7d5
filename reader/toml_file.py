"""Reading the user's TOML files (config.toml, keymap.toml) with messages that name a line.

Bounds checked before a file is parsed: tomllib recurses into arrays and inline tables, so one
nested thousands of levels deep ends in a RecursionError, and a key dotted as deep does the same in
whatever walks the document after. Then the line of each key and of an error, which tomllib does
not keep, and the document's tables as dotted names."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

MAX_TOML_DEPTH = 8  # tables, dotted key parts, arrays and inline tables; no setting needs more than 3
MAX_TOML_BYTES = 1_000_000  # a config file is a few hundred bytes


def toml_limit_problem(text: str) -> tuple[int, str] | None:  # noqa: C901 (one pass over the text: one branch per TOML construct it skips or counts)
    """(line, reason) for TOML text beyond the bounds above, else None; found by one pass over
    the text that skips strings and comments, so it never recurses."""
    if len(text) > MAX_TOML_BYTES:
        return 1, f"the file is larger than {MAX_TOML_BYTES:,} characters"
    line, i, n = 1, 0, len(text)
    containers: list[str] = []  # open "[" (arrays) and "{" (inline tables)
    table = 0  # key parts of the current [table] header
    parts = 1  # key parts of the key being read
    in_key, in_header, line_start = True, False, True
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            if not containers:
                in_key, in_header, line_start, parts = True, False, True, 1
            i += 1
            continue
        if ch in " \t\r":
            i += 1
            continue
        if ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if ch in "\"'":
            end = _string_end(text, i)
            line += text.count("\n", i, end)
            i = end
            line_start = False
            continue
        if in_key and ch == "[" and line_start and not containers:  # a [table] or [[array of tables]] header
            in_header, table, parts = True, 1, 0
            i += 2 if text.startswith("[[", i) else 1
            line_start = False
            continue
        line_start = False
        if in_header:
            if ch == ".":
                table += 1
            elif ch == "]":
                in_header, in_key = False, False
        elif in_key and ch == ".":
            parts += 1
        elif in_key and ch == "=":
            in_key = False
        elif ch in "[{":
            containers.append(ch)
            in_key, parts = ch == "{", 1
        elif ch in "]}" and containers:
            containers.pop()
        elif ch == "," and containers and containers[-1] == "{":
            in_key, parts = True, 1
        if table + parts + len(containers) > MAX_TOML_DEPTH:
            return line, f"nested more than {MAX_TOML_DEPTH} levels deep (no setting needs more than 3)"
        i += 1
    return None


def _string_end(text: str, start: int) -> int:
    """The index just past the TOML string that opens at `start` (the end of the text, or of the
    line for a one-line string, when it never closes: tomllib then says what is wrong)."""
    quote = text[start]
    if text.startswith(quote * 3, start):
        i = start + 3
        while True:
            end = text.find(quote * 3, i)
            if end < 0:
                return len(text)
            if quote == '"' and _escaped(text, end):
                i = end + 1
                continue
            end += 3
            for _ in range(2):  # up to two quotes of the string's own may stand before the closing three
                if end < len(text) and text[end] == quote:
                    end += 1
            return end
    i = start + 1
    while i < len(text) and text[i] != "\n":
        if text[i] == "\\" and quote == '"':
            i += 2
            continue
        if text[i] == quote:
            return i + 1
        i += 1
    return i


def _escaped(text: str, at: int) -> bool:
    """Whether the character at `at` follows an odd run of backslashes."""
    count = 0
    while at - count - 1 >= 0 and text[at - count - 1] == "\\":
        count += 1
    return count % 2 == 1


# Patterns are compiled at their first use (by re's cache), not by every command's start.
_TOML_POSITION = r"\s*\(at (?:line (\d+), column \d+|end of document)\)"


def toml_error(error: ValueError, lines: list[str]) -> tuple[int, str]:
    """The line a TOML error points at ("end of document": the last line with text), and its
    message without the position."""
    message = str(error)
    match = re.search(_TOML_POSITION, message)
    if match and match.group(1):
        line = min(int(match.group(1)), len(lines)) or 1
    else:
        filled = [number for number, text in enumerate(lines, start=1) if text.strip()]
        line = filled[-1] if filled else 1
    return line, re.sub(_TOML_POSITION, "", message)


def flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"arxiv": {"delay": 3}} -> {"arxiv.delay": 3}: tables and dotted keys name the same thing."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            flat.update(flatten(value, prefix + key + "."))
        else:
            flat[prefix + key] = value
    return flat


_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_KEY_PATH = rf"{_KEY_PART}(?:\s*\.\s*{_KEY_PART})*"
_TABLE_LINE = rf"\s*\[\s*({_KEY_PATH})\s*\]\s*(?:#.*)?$"
_KEY_LINE = rf"\s*({_KEY_PATH})\s*="


def toml_key_lines(text: str) -> dict[str, int]:
    """Dotted key -> the line (1-based) that sets it, for messages; tomllib keeps no positions."""
    lines: dict[str, int] = {}
    table = ""
    for number, line in enumerate(text.splitlines(), start=1):
        if header := re.match(_TABLE_LINE, line):
            table = _dotted(header.group(1)) + "."
            lines.setdefault(table[:-1], number)
        elif key := re.match(_KEY_LINE, line):
            lines.setdefault(table + _dotted(key.group(1)), number)
    return lines


def _dotted(path: str) -> str:
    parts = re.findall(_KEY_PART, path)
    return ".".join(_key_name(part) for part in parts)


def _key_name(part: str) -> str:
    """A key as TOML reads it: a basic string's escapes (\\u001b, \\t...) decoded."""
    if part[:1] == "'":
        return part[1:-1]
    if part[:1] == '"':
        import tomllib

        try:
            return tomllib.loads(f"k = {part}")["k"]
        except tomllib.TOMLDecodeError:  # the file's own parse would have failed first
            return part[1:-1]
    return part
