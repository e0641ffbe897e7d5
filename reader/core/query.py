"""arXiv's search syntax, parsed and checked locally, and evaluated over cached papers.

    ti: au: abs: co: jr: cat: rn: id: all:   field prefixes (a bare word means all:)
    note:                                     the user's own notes (local filtering only)
    text:                                     papers' stored full texts (local filtering only)
    AND  OR  ANDNOT                           upper case; AND and ANDNOT bind tighter than OR
    ( )   "quoted phrase"                     grouping; consecutive words
    submittedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM]

Matching is case-insensitive on whole words, each word with its inflections (English stems, as
arXiv's search takes them: `agents` finds `agent`, see core/stem.py); a phrase matches
consecutive words; `au:` matches
the words of any one author's name (`au:del_maestro` = the words "del maestro"); `cat:` matches
any of the paper's categories (`cat:cs` matches every cs.* category). For arXiv, words must be
joined by an operator; for local filtering, `implicit_and=True` reads `a b` as `a AND b`, and
`all:` (so a bare word) covers the user's notes too.

A query may nest parentheses MAX_DEPTH deep and hold MAX_TERMS terms: chains of AND or OR are
kept as one node with many parts, so only parentheses make the tree deeper, and nothing that
walks it (parsing, evaluation, printing) can run out of stack.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass

from reader.core.stem import stem
from reader.core.text import fold, word_string
from reader.errors import QueryError
from reader.models import Paper

FIELDS = ("ti", "au", "abs", "co", "jr", "cat", "rn", "id", "all")
LOCAL_FIELDS = FIELDS + ("note", "text")  # fields only the local filter knows
# What the local fields search, for the error an arXiv query using one gets.
LOCAL_MEANING = {"note": "searches your own notes", "text": "searches the full texts stored here"}
# The fields `all:` covers, in the order SearchText stores them (notes are kept apart, see
# core/scan.py: they are user state, not part of a paper's record).
TEXT_FIELDS = ("ti", "abs", "au", "co", "jr", "cat", "id")
CODE_FIELDS = ("cat", "id")  # matched as whole codes (`cs.AI`, `2609.12345`), not as words
OPERATORS = ("AND", "OR", "ANDNOT")
MAX_DEPTH = 50
MAX_TERMS = 1000
_DATE = re.compile(r"\d{4}(\d{2}(\d{2}(\d{4})?)?)?$")


# --- syntax tree ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Term:
    field: str
    words: tuple[str, ...]  # folded, as they appear in a field's word string (see search_text)
    phrase: str  # ` w1 w2 `: what the scan looks for in a field's stemmed word string (see term)

    def __str__(self) -> str:
        text = " ".join(self.words)
        return f'{self.field}:"{text}"' if len(self.words) > 1 else f"{self.field}:{text}"


@dataclass(frozen=True, slots=True)
class DateRange:
    start: str  # YYYYMMDDHHMM, inclusive
    end: str

    def __str__(self) -> str:
        return f"submittedDate:[{self.start} TO {self.end}]"


@dataclass(frozen=True, slots=True)
class And:
    """Every one of `required` and none of `excluded`. AND and ANDNOT chain left to right at the
    same precedence, so `a AND b ANDNOT c AND d` is a, b and d without c: one node."""

    required: tuple[Node, ...]
    excluded: tuple[Node, ...] = ()

    def __str__(self) -> str:
        parts = [str(n) for n in self.required]
        return "(" + " AND ".join(parts) + "".join(f" ANDNOT {n}" for n in self.excluded) + ")"


@dataclass(frozen=True, slots=True)
class Or:
    """Any one of `parts`."""

    parts: tuple[Node, ...]

    def __str__(self) -> str:
        return "(" + " OR ".join(str(n) for n in self.parts) + ")"


Node = Term | DateRange | And | Or


# --- tokens --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "(", ")", "op", "term", "date"
    value: object
    position: int


_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<date>submittedDate:\[(?P<from>[^\]\s]*)\s+TO\s+(?P<to>[^\]\s]*)\])
  | (?P<field>[A-Za-z]+):(?=\S)
  | (?P<phrase>"[^"]*")
  | (?P<quote>")
  | (?P<word>[^\s()"]+)
    """,
    re.VERBOSE,
)


_DATE_PARTS = ((4, 6, 1, 12, "month"), (6, 8, 1, 31, "day"), (8, 10, 0, 23, "hour"), (10, 12, 0, 59, "minute"))


def _date_bound(text: str, query: str, position: int, end: bool) -> str:
    if not _DATE.match(text):
        raise QueryError(f"submittedDate needs dates like 202601010000 (YYYYMMDDHHMM), not {text!r}", query, position)
    for start, stop, low, high, name in _DATE_PARTS:  # (a bound matching nothing would say nothing)
        if len(text) >= stop and not low <= int(text[start:stop]) <= high:
            raise QueryError(f"{text!r} has no {name} {text[start:stop]} (YYYYMMDDHHMM)", query, position)
    if len(text) >= 8 and int(text[6:8]) > calendar.monthrange(int(text[:4]), int(text[4:6]))[1]:
        raise QueryError(f"{text!r} has no day {text[6:8]}: that month is shorter", query, position)
    pad = "12312359" if end else "01010000"
    padded = text + pad[len(text) - 4 :]
    return padded


def _tokens(query: str, fields: tuple[str, ...]) -> list[_Token]:  # noqa: C901 (a tokenizer: one branch per kind of token)
    tokens: list[_Token] = []
    pending_field: tuple[str, int] | None = None
    pos = 0
    while pos < len(query):
        match = _TOKEN.match(query, pos)
        assert match is not None  # the last alternative matches any non-space, non-special character
        kind = match.lastgroup if match.lastgroup not in ("from", "to") else "date"
        start = match.start()
        pos = match.end()
        if kind == "space":
            continue
        if kind == "quote":
            raise QueryError("this quote is never closed", query, start)
        if pending_field is not None and kind not in ("phrase", "word"):
            field, field_pos = pending_field
            if kind == "open":
                raise QueryError(f"{field}:( ... ) is not arXiv syntax: write (ti:a OR ti:b) instead", query, field_pos)
            raise QueryError(f"nothing to search for after {field}:", query, field_pos)
        if kind == "open":
            tokens.append(_Token("(", None, start))
        elif kind == "close":
            tokens.append(_Token(")", None, start))
        elif kind == "date":
            low = _date_bound(match.group("from"), query, start, end=False)
            high = _date_bound(match.group("to"), query, start, end=True)
            if low > high:
                raise QueryError("this date range ends before it starts: write the earlier date first", query, start)
            tokens.append(_Token("date", DateRange(low, high), start))
        elif kind == "field":
            field = match.group("field")
            if field not in fields:
                if field.lower() == "submitteddate":
                    raise QueryError("write dates as submittedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM]", query, start)
                if field in LOCAL_FIELDS:
                    raise QueryError(f"{field}: {LOCAL_MEANING[field]}: it works in the filter, not in an arXiv query", query, start)
                raise QueryError(f"unknown field {field + ':'!r}: use one of {', '.join(f + ':' for f in fields)}", query, start)
            pending_field = (field, start)
        elif kind in ("phrase", "word"):
            text = match.group(kind)
            if kind == "word" and text.endswith(":") and text[:-1] in fields:
                raise QueryError(f"nothing to search for after {text}", query, start)
            if kind == "word" and text in OPERATORS and pending_field is None:
                tokens.append(_Token("op", text, start))
                continue
            field, field_pos = pending_field or ("all", start)
            pending_field = None
            tokens.append(_Token("term", _make_term(field, text.strip('"'), query, field_pos), field_pos))
    if pending_field is not None:
        raise QueryError(f"nothing to search for after {pending_field[0]}:", query, pending_field[1])
    return tokens


def _make_term(field: str, text: str, query: str, position: int) -> Term:
    if field in CODE_FIELDS:  # matched whole: `cs.AI`, `2609.12345`, `hep-th/9901001`
        found = tuple(fold(text).split())
        if field == "id":
            found = tuple(re.sub(r"v\d+$", "", code) for code in found)
        if not found:
            raise QueryError(f"{text!r} has nothing to search for", query, position)
    else:
        # The same function that made the papers' word strings, so every script matches alike.
        found = tuple(word_string(text).split())
        if not found:
            raise QueryError(f"{text!r} has no letters or digits to search for", query, position)
    return term(field, found)


def term(field: str, words: Iterable[str]) -> Term:
    """A term for folded `words`. Its phrase, what the scan looks for, holds their stems (codes
    are matched whole); the search indexes stem `words` themselves (FTS5's porter tokenizer)."""
    words = tuple(words)
    stems = words if field in CODE_FIELDS else tuple(map(stem, words))
    return Term(field, words, " " + " ".join(stems) + " ")


# --- parser --------------------------------------------------------------------------------------


def _and(required: list[Node], excluded: list[Node]) -> Node:
    if len(required) == 1 and not excluded:
        return required[0]
    return And(tuple(required), tuple(excluded))


class _Parser:
    def __init__(self, query: str, implicit_and: bool):
        self.query = query
        self.tokens = _tokens(query, LOCAL_FIELDS if implicit_and else FIELDS)
        terms = sum(1 for t in self.tokens if t.kind in ("term", "date"))
        if terms > MAX_TERMS:
            raise QueryError(f"the query has {terms:,} terms: at most {MAX_TERMS:,} are allowed", query, None)
        self.i = 0
        self.depth = 0
        self.implicit_and = implicit_and

    def error(self, message: str, token: _Token | None = None) -> QueryError:
        position = token.position if token else len(self.query)
        return QueryError(message, self.query, position)

    def peek(self) -> _Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def parse(self) -> Node:
        if not self.tokens:
            raise self.error("the query is empty")
        node = self.parse_or()
        token = self.peek()
        if token is not None:
            raise self.error("this closing parenthesis has no opening one" if token.kind == ")" else "unexpected text", token)
        return node

    def parse_or(self) -> Node:
        parts = [self.parse_and()]
        while (token := self.peek()) is not None and token.kind == "op" and token.value == "OR":
            self.take()
            parts.append(self.parse_and())
        if len(parts) == 1:
            return parts[0]
        # `(a OR b) OR c` is one node: parentheses that change nothing add no depth.
        flat = [p for part in parts for p in (part.parts if isinstance(part, Or) else (part,))]
        return Or(tuple(flat))

    def parse_and(self) -> Node:
        required: list[Node] = []
        excluded: list[Node] = []

        def require(node: Node) -> None:
            if isinstance(node, And):  # `(a ANDNOT b) AND c`: the same conditions, flat
                required.extend(node.required)
                excluded.extend(node.excluded)
            else:
                required.append(node)

        require(self.parse_unary())
        while (token := self.peek()) is not None:
            if token.kind == "op" and token.value in ("AND", "ANDNOT"):
                self.take()
                right = self.parse_unary()
                if token.value == "AND":
                    require(right)
                else:
                    excluded.append(right)
            elif token.kind in ("term", "date", "("):
                if not self.implicit_and:
                    raise self.error("two terms need an operator between them: AND, OR or ANDNOT, in capitals", token)
                require(self.parse_unary())
            else:
                break
        return _and(required, excluded)

    def parse_unary(self) -> Node:
        token = self.peek()
        if token is None:
            raise self.error("the query ends where a term was expected")
        if token.kind == "(":
            if self.depth >= MAX_DEPTH:
                raise self.error(f"parentheses nest too deep here: at most {MAX_DEPTH} levels are allowed", token)
            self.take()
            self.depth += 1
            node = self.parse_or()
            self.depth -= 1
            closing = self.peek()
            if closing is None or closing.kind != ")":
                raise self.error("this parenthesis is never closed", token)
            self.take()
            return node
        if token.kind in ("term", "date"):
            self.take()
            return token.value  # type: ignore[return-value]
        if token.kind == "op":
            raise self.error(f"{token.value} needs a term on each side", token)
        raise self.error("a closing parenthesis where a term was expected", token)


def lowercase_operators(query: str) -> list[str]:
    """The operators written in lower or mixed case (`and`, `Or`), each once, as typed: they are
    searched as words (by arXiv too), which is rarely what was meant. Quoted words and words after
    a field (`ti:and`) are meant as words."""
    found: list[str] = []
    after_field = False
    for match in _TOKEN.finditer(query):
        kind = match.lastgroup
        if kind == "space":
            continue
        word = match.group("word") if kind == "word" else None
        if word is not None and not after_field and word.upper() in OPERATORS and word not in OPERATORS and word not in found:
            found.append(word)
        after_field = kind == "field"
    return found


def operator_note(query: str) -> str | None:
    """One line saying that the query's lower-case operators are searched as words, or None."""
    words = lowercase_operators(query)
    if not words:
        return None
    named = ", ".join(f'"{word}"' for word in words)
    return f"{named} {'is' if len(words) == 1 else 'are'} searched as {'a word' if len(words) == 1 else 'words'}: operators are AND, OR, ANDNOT in capitals"


def parse(query: str, *, implicit_and: bool = False) -> Node:
    """Parse and check a query; QueryError points at the first problem. `implicit_and` is the
    local filter's reading (`a b` = `a AND b`, `note:` allowed); without it, arXiv's syntax."""
    return _Parser(query, implicit_and).parse()


# --- what matching looks at ----------------------------------------------------------------------

# Built once per paper (see core/scan.py): each field's words in TEXT_FIELDS order, then the v1
# time as YYYYMMDDHHMM, separated by FIELD_MARK.
SearchText = str
FIELD_MARK = "\x1f"
AUTHOR_MARK = "|"  # between authors: a phrase never runs from one name into the next


def text_terms(node: Node) -> list[Term]:
    """The query's `text:` terms (walked with a stack: no recursion)."""
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Term):
            if current.field == "text":
                found.append(current)
        elif isinstance(current, And):
            stack.extend(current.required + current.excluded)
        elif isinstance(current, Or):
            stack.extend(current.parts)
    return found


def code_tokens(categories: Iterable[str]) -> list[str]:
    """The whole codes `cat:` matches: each category folded, then its archive (`cs.ai`, `cs`)."""
    tokens: dict[str, None] = {}
    for category in categories:
        for code in fold(category).split():
            tokens[code] = None
            archive = code.split(".", 1)[0]
            if "." in code and archive:
                tokens[archive] = None
    return list(tokens)


def date_key(published: str) -> str:
    """`2026-09-27T17:59:59Z` -> `202609271759`, what submittedDate ranges compare."""
    return published[:16].replace("-", "").replace("T", "").replace(":", "")


def has_every_field(text: SearchText) -> bool:
    """A saved text in the form `search_text` gives (one written by another version may not be)."""
    return text.count(FIELD_MARK) == len(TEXT_FIELDS)


def search_text(paper: Paper) -> SearchText:
    """The paper's words, folded (see core/text.py), field by field."""
    return FIELD_MARK.join(
        (
            word_string(paper.title),
            word_string(paper.abstract),
            " " + f" {AUTHOR_MARK} ".join(word_string(a.name).strip() for a in paper.authors) + " ",
            word_string(paper.comment or ""),
            word_string(paper.journal_ref or ""),
            " " + " ".join(code_tokens(paper.categories)) + " ",
            " " + " ".join(fold(paper.id).split()) + " ",
            date_key(paper.published),
        )
    )
