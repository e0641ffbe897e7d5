"""Exporting into an existing .bib file (`reader export --update FILE`).

The file is the user's: every byte of it is kept (their own entries, their edits to exported
ones, comments, @string and @preamble). A paper already in it is found by its arXiv id (see
`arxiv_reference`: an id field, an arxiv.org link, arXiv's DOI, or Google Scholar's `journal =
{arXiv preprint arXiv:ID}`, see citedids), and is not written again: it keeps the entry and the key it has
there, also when the user changed that key. New papers are appended under their recorded keys (a
key given now is unique case-insensitively against every key already in the file too); only a
recorded key that another entry of the file has already takes a suffix there. `reader import`
reads .bib files with the same parser (core/import_file.py).

An entry not closed before the next line that starts an entry ends there, as biber and
bibtexparser recover: it is reported with its line, and the entries after it are read. The parser
is our own, not bibtexparser v2 (which recovers the same way, but counts lines from 0 and logs each
broken entry), because it is 3.4 times faster: benchmarks/importing.py's 80,000 entries (8.3 MB, 53
broken) in 4.8 s here, bibtexparser 16.6 s for the parse alone (both linear in the file).
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
# A line that starts an entry: where an entry still open ends (its closing brace is missing).
_LINE_START = re.compile(r"^[ \t]*@\s*[A-Za-z]+\s*[{(]", re.MULTILINE)
_KEY = re.compile(r"\s*([^\s,{}()]*)")
_BRACES = re.compile(r"[{}]")
_BRACES_OR_PAREN = re.compile(r"[{})]")
_BRACES_OR_QUOTE = re.compile(r'[{}"]')
_BARE = re.compile(r"[^\s,#}]+")  # a number or an @string name
_FIELD_NAME = re.compile(r"\s*([A-Za-z][\w\-:.]*)\s*=\s*")


@dataclass(slots=True)
class Entry:
    kind: str  # lower case: article, misc, string, comment, ...
    key: str
    fields: dict[str, str]  # lower-case name -> value without its outer delimiters
    line: int = 1  # where its `@` stands
    closed: bool = True  # False: its delimiter does not close before the next entry's line
    cut_at: int = 0  # when not closed: the line of the entry that cut it off (0: the file ended)


class UnclosedEntryError(ReaderError):
    """A .bib file with an entry that never closes: anything appended would become part of it."""


def _closing(text: str, start: int, opener: str, limit: int) -> int:
    """Index just past the delimiter that closes the entry opened at `start` (before `limit`),
    or -1."""
    depth = 0
    for match in (_BRACES if opener == "{" else _BRACES_OR_PAREN).finditer(text, start + 1, limit):
        ch = match.group()
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0 and opener == "{":
                return match.end()
            depth -= 1
        elif depth == 0:  # `)` closing an entry opened with `(`
            return match.end()
    return -1


def _value_end(body: str, position: int, closer: str) -> int:
    """Just past the `closer` (`}`, or `"` outside braces) that ends the value opened at
    `position`; past the body's end when none does."""
    depth = 0
    for match in (_BRACES if closer == "}" else _BRACES_OR_QUOTE).finditer(body, position + 1):
        ch = match.group()
        if ch == closer and depth == 0:
            return match.end()
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
    return len(body) + 1


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
            end = _value_end(body, position, "}")
            parts.append(body[position + 1 : end - 1])
        elif ch == '"':
            end = _value_end(body, position, '"')
            parts.append(body[position + 1 : end - 1])
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
    """The entries of a .bib file, as bibtex reads them; text outside entries is ignored. An entry
    not closed before the next line that starts one is cut off there (not closed, no fields). One
    pass over the text: lines are counted as it goes."""
    entries: list[Entry] = []
    macros: dict[str, str] = {}  # @string name (any case) -> its text
    starts = [match.start() for match in _LINE_START.finditer(text)]
    following = 0  # index in `starts` of the first line start after the entry being read
    position, line, counted = 0, 1, 0
    while True:
        match = _ENTRY_START.search(text, position)
        if match is None:
            return entries
        while following < len(starts) and starts[following] <= match.start():
            following += 1
        limit = starts[following] if following < len(starts) else len(text)
        line += text.count("\n", counted, match.start())
        counted = match.start()
        kind = match.group(1).lower()
        end = _closing(text, match.end() - 1, match.group(2), limit)
        if end < 0:
            if kind == "comment":  # bibtex reads no comment's braces (JabRef's hold any text): nothing lost
                position = limit
                continue
            named = _KEY.match(text, match.end()) if kind not in ("preamble", "string") else None
            key = named.group(1) if named else ""
            cut_at = line + text.count("\n", counted, limit) if limit < len(text) else 0
            entries.append(Entry(kind, key, {}, line, closed=False, cut_at=cut_at))
            position = limit
            continue
        body = text[match.end() : end - 1]
        position = end
        if kind in ("comment", "preamble", "string"):
            definition = _FIELD_NAME.match(body) if kind == "string" else None
            if definition is not None:
                macros[definition.group(1).casefold()] = _value(body, definition.end(), macros)[0]
            entries.append(Entry(kind, "", {}, line))
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
        entries.append(Entry(kind, key.strip(), fields, line))


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
    print_arxiv_id: bool = True,
) -> Update:
    """The file with the papers not in it yet appended. `keys(new papers, the file's keys)` gives
    the new papers their keys (Store.citation_keys: the recorded ones; by default, keys unique
    in the file). `print_arxiv_id`: as for `bibtex.entry`."""
    entries = parse(existing)
    unclosed = next((entry for entry in entries if not entry.closed), None)
    if unclosed is not None:
        where = f"is not closed before the next entry (line {unclosed.cut_at})" if unclosed.cut_at else "never closes"
        raise UnclosedEntryError(
            f"line {unclosed.line}: the entry @{unclosed.kind}{{{unclosed.key} {where}, so BibTeX would read every entry "
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
        addition = bibtex.export(new, unicode=unicode, tags=tags, notes=notes, keys=added, print_arxiv_id=print_arxiv_id)
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
