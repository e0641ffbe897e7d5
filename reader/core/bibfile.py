"""Exporting into an existing .bib file (`reader export --update FILE`).

The file is the user's: every byte of it is kept (their own entries, their edits to exported
ones, comments, @string and @preamble). A paper already in it is found by its arXiv id (see
`arxiv_reference`: an id field, an arxiv.org link, arXiv's DOI, or Google Scholar's `journal =
{arXiv preprint arXiv:ID}`, see citedids), and is not written again: it keeps the entry and the key it has
there, also when the user changed that key. New papers are appended under their recorded keys (a
key given now is unique case-insensitively against every key already in the file too); only a
recorded key that another entry of the file has already takes a suffix there. `reader import`
reads .bib files with the same parser (core/importing.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from reader.core import bibtex, citation
from reader.core.citedids import cited_id
from reader.core.citekeys import key_suffixes, unique_keys
from reader.errors import ReaderError
from reader.models import Paper

_ENTRY_START = re.compile(r"@\s*([A-Za-z]+)\s*([{(])")
_BARE = re.compile(r"[^\s,#}]+")  # a number or an @string name
_FIELD_NAME = re.compile(r"\s*([A-Za-z][\w\-:.]*)\s*=\s*")


@dataclass(slots=True)
class Entry:
    kind: str  # lower case: article, misc, string, comment, ...
    key: str
    fields: dict[str, str]  # lower-case name -> value without its outer delimiters
    line: int = 1  # where its `@` stands
    closed: bool = True  # False: its delimiter never closes, and it swallows the rest of the file


class UnclosedEntryError(ReaderError):
    """A .bib file with an entry that never closes: anything appended would become part of it."""


def _closing(text: str, start: int, opener: str) -> int:
    """Index just past the delimiter that closes the entry opened at `start`, or -1."""
    depth = 0
    for i in range(start + 1, len(text)):
        ch = text[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0 and opener == "{":
                return i + 1
            depth -= 1
        elif ch == ")" and opener == "(" and depth == 0:
            return i + 1
    return -1


def _value(body: str, position: int, macros: dict[str, str] | None = None) -> tuple[str, int]:
    """A field value (braced, quoted, or a bare word, joined with #) and where it ends; a bare
    word an earlier @string defined is its text, as BibTeX reads it."""
    parts = []
    while position < len(body):
        while position < len(body) and body[position].isspace():
            position += 1
        if position >= len(body):
            break
        ch = body[position]
        if ch == "{":
            depth, end = 0, position
            while end < len(body):
                depth += {"{": 1, "}": -1}.get(body[end], 0)
                end += 1
                if depth == 0:
                    break
            parts.append(body[position + 1 : end - 1])
        elif ch == '"':
            depth, end = 0, position + 1
            while end < len(body) and not (body[end] == '"' and depth == 0):
                depth += {"{": 1, "}": -1}.get(body[end], 0)
                end += 1
            parts.append(body[position + 1 : end])
            end += 1
        else:
            match = _BARE.match(body, position)
            end = match.end() if match else position + 1
            word = body[position:end]
            parts.append(macros.get(word.casefold(), word) if macros else word)
        position = end
        while position < len(body) and body[position].isspace():
            position += 1
        if position < len(body) and body[position] == "#":
            position += 1
            continue
        break
    return "".join(parts), position


def parse(text: str) -> list[Entry]:
    """The entries of a .bib file, as bibtex reads them; text outside entries is ignored."""
    entries: list[Entry] = []
    macros: dict[str, str] = {}  # @string name (any case) -> its text
    position = 0
    while True:
        match = _ENTRY_START.search(text, position)
        if match is None:
            return entries
        end = _closing(text, match.end() - 1, match.group(2))
        closed = end >= 0
        if not closed:
            end = len(text) + 1  # as bibtex reads it: to the end of the file
        kind = match.group(1).lower()
        body = text[match.end() : end - 1]
        position = end
        line = text.count("\n", 0, match.start()) + 1
        if kind in ("comment", "preamble", "string"):
            definition = _FIELD_NAME.match(body) if kind == "string" else None
            if definition is not None:
                macros[definition.group(1).casefold()] = _value(body, definition.end(), macros)[0]
            entries.append(Entry(kind, "", {}, line, closed))
            continue
        key, _, rest = body.partition(",")
        fields: dict[str, str] = {}
        cursor = 0
        while True:
            name = _FIELD_NAME.match(rest, cursor)
            if name is None:
                break
            value, cursor = _value(rest, name.end(), macros)
            fields[name.group(1).lower()] = value
            cursor = rest.find(",", cursor)
            if cursor < 0:
                break
            cursor += 1
        entries.append(Entry(kind, key.strip(), fields, line, closed))


def arxiv_reference(entry: Entry) -> tuple[str, str] | None:
    """(the arXiv id an entry cites, how it was found: id, link, doi, text), see citedids."""
    return cited_id(entry.fields)


def paper_id(entry: Entry) -> str | None:
    """The arXiv id an entry cites, if any."""
    reference = arxiv_reference(entry)
    return reference[0] if reference else None


@dataclass(slots=True)
class Update:
    text: str  # the whole new file: the old one, byte for byte, then the new entries
    kept: dict[str, str]  # paper id -> its key in the file (entry left as it was)
    added: dict[str, str]  # paper id -> the key of its new entry
    # paper id -> (its recorded key, the key its entry was added under): the file has another
    # entry under the recorded key (a key the user wrote by hand)
    renamed: dict[str, tuple[str, str]] = field(default_factory=dict)


def update(
    existing: str,
    papers: Iterable[Paper],
    *,
    unicode: bool = False,
    tags: dict[str, list[str]] | None = None,
    notes: dict[str, str] | None = None,
    keys: Callable[[list[Paper], list[str]], dict[str, str]] = unique_keys,
) -> Update:
    """The file with the papers not in it yet appended. `keys(new papers, the file's keys)` gives
    the new papers their keys (Store.citation_keys: the recorded ones; by default, keys unique
    in the file)."""
    entries = parse(existing)
    unclosed = next((entry for entry in entries if not entry.closed), None)
    if unclosed is not None:
        raise UnclosedEntryError(
            f"line {unclosed.line}: the entry @{unclosed.kind}{{{unclosed.key} never closes, so BibTeX would read every entry "
            "added after it as part of it; close it (a } is missing) and run again"
        )
    in_file: dict[str, str] = {}
    for entry in entries:
        found = paper_id(entry)
        if found:
            in_file.setdefault(found, entry.key)
    real = citation.exportable(papers)
    kept = {p.id: in_file[p.id] for p in real if p.id in in_file}
    new = [p for p in real if p.id not in in_file]
    taken = [e.key for e in entries if e.key]
    given = keys(new, taken) if new else {}
    added, renamed = _unique_in_file(given, taken)
    text = existing
    if new:
        addition = bibtex.export(new, unicode=unicode, tags=tags, notes=notes, keys=added)
        separator = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        if "\r\n" in existing:  # the file's own line ends
            separator, addition = separator.replace("\n", "\r\n"), addition.replace("\n", "\r\n")
        text += separator + addition
    return Update(text, kept, added, renamed)


def _unique_in_file(keys: dict[str, str], taken: list[str]) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """`keys`, with a suffix added to each that another entry of the file has already (ignoring
    case); and those renamed, paper id -> (key, key as added)."""
    used = {key.lower() for key in taken}
    added: dict[str, str] = {}
    renamed: dict[str, tuple[str, str]] = {}
    for paper_id, key in keys.items():
        written = key
        suffixes = key_suffixes()
        while written.lower() in used:
            written = key + next(suffixes)
        used.add(written.lower())
        added[paper_id] = written
        if written != key:
            renamed[paper_id] = (key, written)
    return added, renamed
