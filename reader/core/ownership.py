"""Whose entries an existing export file holds, so that writing onto it never drops what the
user wrote.

A file is cut into its entries as text: a BibTeX entry runs from a line that starts with `@` to
the next such line, a RIS record from a `TY  -` line to the next, a CSL-JSON item is an item of
the top-level array (text before the first entry, and a file that is no JSON array, is one
entry of its own). An entry is reader's when its text (line ends and trailing blanks aside) is
one reader wrote (the store keeps a fingerprint of each entry it writes) or one it is about to
write again now; any other entry is the user's: their own, an entry they edited, a comment.
Cutting at lines rather than parsing keeps every byte in some entry, so text between entries
that BibTeX ignores is never lost unseen either.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection
from dataclasses import dataclass

from reader.core.text import plural

# An entry's first line, found after a line end (the text is searched with one put before it).
_STARTS = {"bibtex": re.compile(r"\n[ \t]*@"), "ris": re.compile(r"\nTY  -")}
_TRAILING_BLANKS = re.compile(r"[ \t\r]+\n")


@dataclass(frozen=True, slots=True)
class Holdings:
    entries: int  # entries or records in the file
    foreign: int  # of them, neither written by reader as they stand nor about to be written again

    def summary(self, name: str) -> str:
        """`refs.bib: 7 entries, 1 not from reader`."""
        return f"{name}: {plural(self.entries, 'entry', 'entries', thousands=True)}, {self.foreign:,} not from reader"


def fingerprints(format: str, text: str) -> list[str]:
    """One fingerprint per entry of `text` (an export file of `format`), in file order."""
    return [hashlib.sha256(chunk.encode("utf-8", "surrogateescape")).hexdigest()[:32] for chunk in _entries(format, text)]


def holdings(format: str, existing: str, known: Collection[str], writing: str = "") -> Holdings:
    """What `existing` holds: its entries, and how many of them are the user's (not in `known`,
    the fingerprints of entries reader wrote, nor in `writing`, the text about to be written)."""
    found = fingerprints(format, existing)
    unknown = [print_ for print_ in found if print_ not in known]
    if unknown and writing:
        again = set(fingerprints(format, writing))
        unknown = [print_ for print_ in unknown if print_ not in again]
    return Holdings(len(found), len(unknown))


def _entries(format: str, text: str) -> list[str]:
    text = _TRAILING_BLANKS.sub("\n", text + "\n") if " \n" in text or "\t\n" in text or "\r" in text else text
    if format == "csl-json":
        return _csl_items(text)
    text = "\n" + text
    starts = [match.start() + 1 for match in _STARTS[format].finditer(text)]
    bounds = [0, *starts, len(text)]
    chunks = (text[start:end].strip() for start, end in zip(bounds, bounds[1:], strict=False))
    return [chunk for chunk in chunks if chunk]


def _csl_items(text: str) -> list[str]:
    """Each item of a CSL-JSON array as canonical JSON; a file that is not one array is one entry."""
    if not text.strip():
        return []
    try:
        data = json.loads(text)
    except ValueError:
        return [text.strip()]
    if not isinstance(data, list):
        return [text.strip()]
    return [json.dumps(item, sort_keys=True, ensure_ascii=False) for item in data]
