"""Reading a researcher's library for `reader import`: BibTeX (as Google Scholar, arXiv, Zotero
and Better BibTeX, JabRef and Mendeley write it), RIS, CSL-JSON, or a list of arXiv ids, told
apart by their content. Each entry becomes a `Citation`: its key, title, authors' family names,
and the arXiv id it names (with how that was found), if it names one. Matching citations to
papers (the cache, arXiv) is the service's (service/import_matching.py); this module reads text only.

The file is untrusted: anything that is not text (NULs, bytes that are no encoding's text) is
refused as a whole, and a malformed entry costs only itself. RIS is read here, not by rispy, which
merges the record after one missing its ER line into it without a word (its authors become the
broken one's) and counts no lines, though it is faster (80,000 records in 4.1 s, ours 8.5 s with
the citations made). BibTeX is read by bibfile.py (see there why not by bibtexparser)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reader.core import bibfile, citedids
from reader.core.tex_decode import decode_tex
from reader.core.text import fold, words
from reader.errors import ReaderError
from reader.ids import PaperIdError, parse_paper_id

FORMATS = ("bibtex", "ris", "csl-json", "ids")
SUFFIXES = {".bib": "bibtex", ".bibtex": "bibtex", ".ris": "ris", ".json": "csl-json", ".txt": "ids"}
MAX_AUTHORS = 500  # names read per entry: enough for any byline a title check needs


class ImportFileError(ReaderError):
    """The file cannot be imported at all (not text, no entry): nothing is changed."""


@dataclass(frozen=True, slots=True)
class Citation:
    """One entry of the file."""

    key: str  # the entry's own key (BibTeX key, RIS `ID`, CSL `id`), or "line N"
    title: str  # as written (TeX and all), "" when it has none
    families: tuple[tuple[str, ...], ...] = ()  # each author's family name as folded words
    arxiv_id: str | None = None  # the paper it names, unversioned
    how: str | None = None  # where that id was found: id, link, doi, text
    line: int = 1  # where the entry starts in the file
    problem: str | None = None  # why the entry cannot be read (then nothing else is set)

    @property
    def label(self) -> str:
        return self.key or f"line {self.line}"


# --- text ----------------------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def decode(raw: bytes, name: str) -> str:
    """The file's text: UTF-16 when it starts with its mark, else UTF-8 (a byte order mark
    allowed), else Windows-1252 or Latin-1 as older JabRef files are. A control character (NUL
    above all) means it is not a text file."""
    encodings = ("utf-16",) if raw.startswith((b"\xff\xfe", b"\xfe\xff")) else ("utf-8-sig", "cp1252", "latin-1")
    for encoding in encodings:
        try:
            text = raw.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        raise ImportFileError(f"{name} is not a text file (it starts as UTF-16 but is not): nothing was changed")
    bad = _CONTROL.search(text)
    if bad is not None:
        line = text.count("\n", 0, bad.start()) + 1
        raise ImportFileError(f"{name} is not a text file (a control character, {bad.group()!r}, on line {line}): nothing was changed")
    return text


_DASHES = re.compile("-{2,3}|[\u2010-\u2015\u2212]")
_MATH_MARKS = str.maketrans("$\\", "  ")


def title_key(title: str) -> str:
    """A title as titles are compared: braces and LaTeX accent commands gone (`{\\"o}` is ö),
    every dash a hyphen (`--`, en dash), math as its words whether written (`$\\Lambda$`) or
    escaped as Zotero does (`\\$\\textbackslash{Lambda}\\$`), case, accents and spaces folded."""
    text = title.replace("\\textbackslash", "").replace("\\$", "$")
    text = decode_tex(_DASHES.sub("-", text))
    text = fold(text.replace("{", "").replace("}", "")).translate(_MATH_MARKS)
    return " ".join(text.split())


def plain_title(title: str) -> str:
    """A title as read, for the summary: TeX accents read and braces gone (`{B}ayesian` is Bayesian)."""
    return " ".join(decode_tex(title).replace("{", "").replace("}", "").split())


def family_words(name: str) -> tuple[str, ...]:
    return tuple(words(decode_tex(name).replace("{", "").replace("}", "")))


def shares_author(families: Iterable[tuple[str, ...]], author_names: Iterable[str]) -> bool:
    """Whether some author's family name (its words) is among one of the paper's author's words."""
    names = [set(family_words(name)) for name in author_names]
    return any(family and any(set(family) <= name for name in names) for family in families)


# --- formats -------------------------------------------------------------------------------------

_RIS_LINE = re.compile(r"^([A-Z][A-Z0-9])  ?-(?: (.*)|)$")
_BIB_ENTRY = re.compile(r"@\s*[A-Za-z]+\s*[{(]")


def detect(text: str, suffix: str = "") -> str | None:
    """The format of `text` by its content, the file's suffix breaking a tie; None when it is
    none of them (an ids list is what is left: the caller finds whether it holds ids)."""
    stripped = text.lstrip()
    if stripped[:1] in ("[", "{"):
        return "csl-json"
    first = stripped.split("\n", 1)[0].rstrip()
    if _RIS_LINE.match(first) and first.startswith("TY"):
        return "ris"
    if _BIB_ENTRY.search(text):
        return "bibtex"
    return SUFFIXES.get(suffix.lower())


def read(raw: bytes, name: str, *, format: str | None = None, suffix: str = "") -> tuple[str, list[Citation]]:
    """(the format, its entries) of a file's bytes; ImportFileError when it is not text or holds
    no entry. `format` overrides what the content says."""
    text = decode(raw, name)
    if not text.strip():
        raise ImportFileError(f"{name} is empty: nothing was changed")
    kind = format or detect(text, suffix) or "ids"
    citations = {"bibtex": bibtex_citations, "ris": ris_citations, "csl-json": csl_citations, "ids": id_citations}[kind](text, name)
    if kind == "ids" and not any(c.arxiv_id for c in citations):
        what = "an arXiv id" if format else "a BibTeX entry, an RIS record, CSL-JSON or an arXiv id"
        raise ImportFileError(f"{name} holds no entry (no line is {what}): nothing was changed")
    if not citations:
        raise ImportFileError(f"{name} holds no {_NAMES[kind]}: nothing was changed")
    return kind, citations


_NAMES = {"bibtex": "BibTeX entry", "ris": "RIS record (TY  - ... ER  -)", "csl-json": "CSL-JSON item", "ids": "arXiv id"}


def _cut_off(key: str, line: int, what: str, cut_at: int = 0, closing: str = "a } is missing") -> Citation:
    """A broken entry: cut off by the next one starting on line `cut_at` (reading went on there),
    or by the end of the file (0)."""
    if cut_at:
        why = (
            f"broken: the {what} starting on line {line} is not closed before the next one on line {cut_at} ({closing}), so it was not read"
        )
    else:
        why = f"cut off: the {what} starting on line {line} never ends, so it was not read"
    return Citation(key, "", line=line, problem=why)


# --- BibTeX --------------------------------------------------------------------------------------

_AND = re.compile(r"\s+and\s+", re.IGNORECASE)


def bibtex_names(field: str) -> list[str]:
    """The names of an author field, split at ` and ` outside braces."""
    names, depth, start = [], 0, 0
    for i, ch in enumerate(field):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0 and ch.isspace():
            match = _AND.match(field, i)
            if match is not None:
                names.append(field[start:i])
                start = match.end()
                if len(names) >= MAX_AUTHORS:
                    return names
    names.append(field[start:])
    return [name.strip() for name in names if name.strip() and name.strip().casefold() != "others"]


def bibtex_family(name: str) -> str:
    """`Vaswani, Ashish` and `Ashish Vaswani` -> `Vaswani`; `{ATLAS Collaboration}` whole."""
    if name.startswith("{") and name.endswith("}") and _braced_whole(name):
        return name
    if "," in name:
        return name.split(",", 1)[0]
    parts = name.split()
    return parts[-1] if parts else ""


def _braced_whole(name: str) -> bool:
    """`{ATLAS Collaboration}`, not `{A} and {B}`: the first brace closes at the end."""
    depth = 0
    for i, ch in enumerate(name):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth == 0:
            return i == len(name) - 1
    return False


def bibtex_citations(text: str, name: str = "") -> list[Citation]:
    citations = []
    for entry in bibfile.parse(text):
        if not entry.closed:  # a broken @string or @preamble too: it is why entries may be missing
            citations.append(_cut_off(entry.key, entry.line, f"entry @{entry.kind}{{{entry.key}", entry.cut_at))
            continue
        if entry.kind in ("comment", "preamble", "string"):
            continue
        reference = bibfile.arxiv_reference(entry)
        families = tuple(family_words(bibtex_family(n)) for n in bibtex_names(entry.fields.get("author", "")))
        citations.append(
            Citation(
                entry.key,
                entry.fields.get("title", ""),
                families,
                reference[0] if reference else None,
                reference[1] if reference else None,
                entry.line,
            )
        )
    return citations


# --- RIS ------------------------------------------------------------------------------------------

RIS_TITLES = ("TI", "T1", "CT", "BT")
RIS_AUTHORS = ("AU", "A1")
RIS_LINKS = ("UR", "L1", "L2", "LK", "N1")
RIS_TEXT = ("N1", "JO", "JF", "T2", "M1", "M3")


def ris_citations(text: str, name: str = "") -> list[Citation]:
    citations = []
    record: dict[str, list[str]] | None = None
    start = 0
    for number, line in enumerate(text.splitlines(), 1):
        match = _RIS_LINE.match(line.rstrip())
        if match is None:
            continue  # a wrapped value or text between records
        tag, value = match.group(1), (match.group(2) or "").strip()
        if tag == "TY":
            if record is not None:  # a record without its `ER  -`: reading goes on at this one
                citations.append(_cut_off(_first(record, "ID"), start, "record", number, "its ER line is missing"))
            record, start = {}, number
        elif record is not None and tag == "ER":
            citations.append(_ris_citation(record, start))
            record = None
        elif record is not None:
            record.setdefault(tag, []).append(value)
    if record is not None:
        citations.append(_cut_off(_first(record, "ID"), start, "record"))
    return citations


def _first(record: dict[str, list[str]], *tags: str) -> str:
    return next((value for tag in tags for value in record.get(tag, ()) if value), "")


def _ris_citation(record: dict[str, list[str]], line: int) -> Citation:
    def values(tags: Sequence[str]) -> str:
        return "\n".join(value for tag in tags for value in record.get(tag, ()))

    reference = _reference(
        ids=[value.removeprefix("arXiv:").removeprefix("arxiv:").strip() for value in record.get("AN", ())],
        links=values(RIS_LINKS),
        dois=values(("DO", *RIS_LINKS)),
        text=values(RIS_TEXT),
    )
    names = [value for tag in RIS_AUTHORS for value in record.get(tag, ())][:MAX_AUTHORS]
    families = tuple(family_words(n.split(",", 1)[0] if "," in n else (n.split() or [""])[-1]) for n in names)
    return Citation(_first(record, "ID"), _first(record, *RIS_TITLES), families, *reference, line)


def _reference(*, ids: Iterable[str], links: str, dois: str, text: str) -> tuple[str | None, str | None]:
    """(id, how) from the values of a record's id, link, DOI and text fields, first hit wins."""
    for value in ids:
        found = citedids.arxiv_id(value)
        if found:
            return found, "id"
    for how, found in (
        ("link", citedids.found_id(citedids.LINK_PATTERN, links)),
        ("doi", citedids.found_id(citedids.DOI_PATTERN, dois)),
        ("text", citedids.found_id(citedids.TEXT_PATTERN, text)),
    ):
        if found:
            return found, how
    return None, None


# --- CSL-JSON -------------------------------------------------------------------------------------


def csl_citations(text: str, name: str = "") -> list[Citation]:
    try:
        data = json.loads(text)
    except ValueError as error:
        where = f" (line {error.lineno}, column {error.colno})" if isinstance(error, json.JSONDecodeError) else ""
        raise ImportFileError(f"{name} is not valid CSL-JSON{where}: nothing was changed") from None
    except RecursionError:
        raise ImportFileError(f"{name} is nested too deeply to be CSL-JSON: nothing was changed") from None
    items = data if isinstance(data, list) else [data] if _csl_item(data) else None
    if items is None:
        raise ImportFileError(f"{name} is not CSL-JSON (an array of items): nothing was changed")
    citations = []
    for number, item in enumerate(items, 1):
        if not _csl_item(item):
            citations.append(Citation(f"item {number}", "", problem="not a CSL-JSON item (an object with a title, id, URL...)"))
            continue
        citations.append(_csl_citation(item, number))
    return citations


CSL_KEYS = frozenset({"id", "type", "title", "author", "URL", "DOI", "number", "citation-key"})


def _csl_item(value: object) -> bool:
    return isinstance(value, dict) and not CSL_KEYS.isdisjoint(value)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # JSON's \\ud800 unpaired: no UTF-8 can print it


def _csl_text(value: object) -> str:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else ""


def _csl_citation(item: dict, number: int) -> Citation:
    key = _csl_text(item.get("id")) or _csl_text(item.get("citation-key")) or f"item {number}"
    # `number` is arXiv's id (`arXiv:2511.02810`) for Zotero's preprints; a bare id there only
    # when arXiv is the publisher (else it is an issue or report number).
    arxiv_number = _csl_text(item.get("number"))
    published_by_arxiv = "arxiv" in (_csl_text(item.get("publisher")) + _csl_text(item.get("container-title"))).casefold()
    ids = [arxiv_number] if arxiv_number.casefold().startswith("arxiv:") or published_by_arxiv else []
    fields = {name: _csl_text(item.get(name)) for name in ("URL", "DOI", "note", "container-title", "archive_location")}
    reference = _reference(
        ids=ids,
        links=fields["URL"] + "\n" + fields["note"],
        dois=fields["DOI"] + "\n" + fields["URL"],
        text="\n".join((fields["note"], fields["container-title"], fields["archive_location"], arxiv_number)),
    )
    authors = item.get("author")
    families = tuple(
        family_words(_csl_text(person.get("family")) or (_csl_text(person.get("literal")).split() or [""])[-1])
        for person in (authors[:MAX_AUTHORS] if isinstance(authors, list) else [])
        if isinstance(person, dict)
    )
    return Citation(key, _csl_text(item.get("title")), families, *reference, number)


# --- a list of ids --------------------------------------------------------------------------------


def id_citations(text: str, name: str = "") -> list[Citation]:
    """One id a line, in any form reader/ids.py reads; blank lines and `#` lines skipped."""
    citations = []
    for number, line in enumerate(text.splitlines(), 1):
        value = line.strip()
        if not value or value.startswith("#"):
            continue
        try:
            paper_id, _ = parse_paper_id(value)
        except PaperIdError:
            citations.append(Citation(f"line {number}", value[:200], line=number, problem="not an arXiv id"))
            continue
        citations.append(Citation(f"line {number}", "", arxiv_id=paper_id, how="id", line=number))
    return citations
