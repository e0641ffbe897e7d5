"""Exporting into an existing .bib file (`reader export --update FILE`).

The file is the user's: every byte of it is kept (their own entries, their edits to exported
ones, comments, @string and @preamble). A paper already in it is found by its arXiv id (see
`arxiv_reference`: an id field, an arxiv.org link, arXiv's DOI, or Google Scholar's `journal =
{arXiv preprint arXiv:ID}`), and is not written again: it keeps the entry and the key it has
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
from reader.core.citekeys import key_suffixes, unique_keys
from reader.errors import ReaderError
from reader.models import Paper, split_version

# An arXiv id as people write it: `2511.02810`, `arXiv:2511.02810v2`, `hep-th/9901001`,
# `https://arxiv.org/abs/2511.02810v2`, `.../pdf/2511.02810v2.pdf`.
_ID = r"(\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"
TEXT_PATTERN = re.compile(rf"(?i:arxiv:\s*){_ID}(?!\d)")
# Anywhere in a field: an abs or pdf link (http or https, any version, inside `\url{...}` too),
# and arXiv's DOI in any case (`10.48550/arXiv.ID`, bare or as a doi.org link).
LINK_PATTERN = re.compile(rf"(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/{_ID}(?!\d)", re.IGNORECASE)
DOI_PATTERN = re.compile(rf"10\.48550/arxiv\.{_ID}(?!\d)", re.IGNORECASE)
_ID_IN_URL = re.compile(rf"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/{_ID}(?:\.pdf)?/?$", re.IGNORECASE)
_ENTRY_START = re.compile(r"@\s*([A-Za-z]+)\s*([{(])")
_BARE = re.compile(r"[^\s,#}]+")  # a number or an @string name
_FIELD_NAME = re.compile(r"\s*([A-Za-z][\w\-:.]*)\s*=\s*")


def arxiv_id(text: str) -> str | None:
    """The unversioned arXiv id in `2511.02810`, `arXiv:2511.02810`, an arxiv.org link; else None."""
    text = text.strip()
    for pattern in (_ID_IN_URL, re.compile(rf"^(?i:arxiv:\s*)?{_ID}$")):
        match = pattern.match(text)
        if match:
            return split_version(match.group(1))[0]
    return None


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


def _value(body: str, position: int) -> tuple[str, int]:
    """A field value (braced, quoted, or a bare word, joined with #) and where it ends."""
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
            parts.append(body[position:end])
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
            entries.append(Entry(kind, "", {}, line, closed))
            continue
        key, _, rest = body.partition(",")
        fields: dict[str, str] = {}
        cursor = 0
        while True:
            name = _FIELD_NAME.match(rest, cursor)
            if name is None:
                break
            value, cursor = _value(rest, name.end())
            fields[name.group(1).lower()] = value
            cursor = rest.find(",", cursor)
            if cursor < 0:
                break
            cursor += 1
        entries.append(Entry(kind, key.strip(), fields, line, closed))


# Where each way of citing an arXiv paper is looked for, in the order tried (the first hit wins).
ID_FIELDS = ("eprint", "arxivid")  # `eprint` only when no other archive is named (see _eprint_is_arxiv)
LINK_FIELDS = ("url", "howpublished", "note", "pdf", "link")
DOI_FIELDS = ("doi", *LINK_FIELDS)
TEXT_FIELDS = ("journal", "note", "howpublished", "number")


def found_id(pattern: re.Pattern[str], text: str) -> str | None:
    """The unversioned id of the first hit of `pattern` in `text` that is a real arXiv id."""
    for match in pattern.finditer(text):
        try:
            return split_version(match.group(1))[0]
        except ValueError:  # `HEP-TH/9901001`: old ids are lower case
            continue
    return None


def _eprint_is_arxiv(fields: dict[str, str]) -> bool:
    """`eprint` holds an arXiv id unless `archivePrefix` or biblatex's `eprinttype` names
    another archive (HAL, PubMed, ...)."""
    archive = fields.get("archiveprefix", fields.get("eprinttype", "arxiv"))
    return archive.strip("{} ").casefold() == "arxiv"


def arxiv_reference(entry: Entry) -> tuple[str, str] | None:
    """(the arXiv id an entry cites, how it was found), first hit wins: "id" (`eprint`,
    `arxivId`), "link" (an arxiv.org abs or pdf link in `url`, `howpublished`, `note`...), "doi"
    (arXiv's DOI, any case), "text" (`arXiv:ID` in `journal`, `note`...). None when it cites none."""
    fields = entry.fields
    for name in ID_FIELDS:
        if name in fields and (name != "eprint" or _eprint_is_arxiv(fields)):
            found = arxiv_id(fields[name].strip("{} "))
            if found:
                return found, "id"
    for kind, names, pattern in (("link", LINK_FIELDS, LINK_PATTERN), ("doi", DOI_FIELDS, DOI_PATTERN), ("text", TEXT_FIELDS, TEXT_PATTERN)):
        for name in names:
            found = found_id(pattern, fields.get(name, ""))
            if found:
                return found, kind
    return None


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
