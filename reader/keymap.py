"""keymap.toml: the user's key bindings, by binding id (`"app.star" = "z"`), beside config.toml.

A line that is wrong (bad TOML, an unknown binding id, a value that is not a key list) is reported
with its line number and ignored; every other line still applies. The file used to live in the data
directory: found there, it is moved once beside the config file, with a notice. A remap that gives
a key to two bindings active together is said, naming the one left without it."""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path

from reader.safe_files import FileWriteError, write_atomic
from reader.toml_file import flatten, toml_error, toml_key_lines, toml_limit_problem

KEYMAP_FILE_NAME = "keymap.toml"
MAX_BAD_LINES = 100  # a file that is mostly not TOML is not worth repairing line by line
_KEY = re.compile(r"[^\s,\x00-\x1f\x7f]+")  # one key name such as j, ctrl+n, pagedown, question_mark


def keymap_path(config_dir: Path) -> Path:
    return config_dir / KEYMAP_FILE_NAME


def load_keymap(known_ids: Iterable[str], *, config_dir: Path, data_dir: Path) -> tuple[dict[str, str], list[str]]:
    """(binding id -> keys, messages): the bindings of every good line, and one line per problem
    (or notice of the move from the data directory), each naming the file and the line."""
    messages: list[str] = []
    path = _locate(config_dir, data_dir, messages)
    if path is None:
        return {}, messages
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not UTF-8 text"
        return {}, [*messages, f"{path} ignored: cannot read it ({reason})"]
    bindings, problems = parse_keymap(text, set(known_ids))
    return bindings, messages + [f"{path}, {problem}" for problem in problems]


def _locate(config_dir: Path, data_dir: Path, messages: list[str]) -> Path | None:
    """The keymap file to read, after moving an old one from the data directory if need be."""
    new, old = keymap_path(config_dir), data_dir / KEYMAP_FILE_NAME
    if not old.is_file():
        return new if new.is_file() else None
    if new.is_file():
        messages.append(f"{old} is not read: {new} is used instead (delete the old one)")
        return new
    try:
        new.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(new, old.read_bytes())
        old.unlink()
    except (OSError, FileWriteError) as error:
        messages.append(f"{old} is read from the data directory: could not move it to {new} ({error})")
        return old
    messages.append(f"keymap.toml moved from {old} to {new}, beside the config file")
    return new


def parse_keymap(text: str, known_ids: set[str]) -> tuple[dict[str, str], list[str]]:
    """Bindings from keymap text, and "line N: problem" for each line that is ignored."""
    too_deep = toml_limit_problem(text)
    if too_deep:
        return {}, [f"line {too_deep[0]}: {too_deep[1]}: the whole file is ignored"]
    problems: list[str] = []
    lines = text.splitlines()
    document: dict = {}
    for _ in range(MAX_BAD_LINES):
        try:
            document = tomllib.loads("\n".join(lines))
            break
        except tomllib.TOMLDecodeError as error:
            number, reason = toml_error(error, lines)
            problems.append(f"line {number}: not valid TOML ({reason}); line ignored")
            lines[number - 1] = ""
    else:
        return {}, [*problems, "too many lines that are not TOML: the whole file is ignored"]
    where = toml_key_lines("\n".join(lines))
    bindings: dict[str, str] = {}
    for binding_id, keys in flatten(document).items():
        line = f"line {where.get(binding_id, '?')}"
        if binding_id not in known_ids:
            close = difflib.get_close_matches(binding_id, sorted(known_ids), n=1)
            hint = f" (did you mean {close[0]}?)" if close else f" (known ids: {', '.join(sorted(known_ids)[:6])}, ...)"
            problems.append(f"{line}: unknown binding id {binding_id!r}{hint}; line ignored")
        elif not isinstance(keys, str):
            problems.append(f'{line}: {binding_id!r} needs keys as text, like "x" or "j,down"; line ignored')
        elif not all(_KEY.fullmatch(key.strip()) and key.isprintable() for key in keys.split(",")):  # no C1 or bidi control
            problems.append(f"{line}: {binding_id} = {keys!r} is not a comma-separated list of keys; line ignored")
        else:
            bindings[binding_id] = ",".join(key.strip() for key in keys.split(","))
    return bindings, sorted(problems, key=_line_number)


def _line_number(problem: str) -> int:
    number = problem.removeprefix("line ").partition(":")[0]
    return int(number) if number.isdigit() else 0


def key_clashes(bindings: dict[str, str], groups: Iterable[Sequence[tuple[str, str, str]]]) -> list[str]:
    """One sentence per key that the remap `bindings` gives to two bindings active at once. Each
    group is the (id, name, default keys) of bindings active together (a screen's and its focused
    widget's); a binding that keeps its default keys loses the one taken, and is told so."""
    messages: list[str] = []
    for group in groups:
        keys_of = {binding_id: (bindings.get(binding_id) or default).split(",") for binding_id, _, default in group}
        loser_names = {binding_id: name for binding_id, name, _ in group}
        name_of = {binding_id: f"{name} ({binding_id})" for binding_id, name, _ in group}
        holders_of: dict[str, list[str]] = {}
        for binding_id, _, _ in group:
            for key in keys_of[binding_id]:
                holders_of.setdefault(key, []).append(binding_id)
        for key, holders in holders_of.items():
            if len(holders) < 2 or not any(holder in bindings for holder in holders):
                continue
            sentence = f"{KEYMAP_FILE_NAME}: {key} is now both {' and '.join(name_of[h] for h in holders)}"
            losers = [holder for holder in holders if holder not in bindings]
            for loser in losers:
                rest = [other for other in keys_of[loser] if len(holders_of[other]) == 1]
                sentence += f"; {loser_names[loser]} " + (f"keeps only {', '.join(rest)}" if rest else "has no key")
            if not losers:
                sentence += "; only one of them will run: give the other another key"
            if sentence not in messages:
                messages.append(sentence)
    return messages
