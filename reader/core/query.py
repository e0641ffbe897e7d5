"""arXiv's search syntax, parsed and checked locally, and evaluated over cached papers.

    ti: au: abs: co: jr: cat: rn: id: all:   field prefixes (a bare word means all:)
    AND  OR  ANDNOT                           upper case; AND and ANDNOT bind tighter than OR
    ( )   "quoted phrase"                     grouping; consecutive words
    submittedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM]

Matching is case-insensitive on whole words; a phrase matches consecutive words; `au:` matches
the words of any one author's name (`au:del_maestro` = the words "del maestro"); `cat:` matches
any of the paper's categories (`cat:cs` matches every cs.* category). For arXiv, words must be
joined by an operator; for local filtering, `implicit_and=True` reads `a b` as `a AND b`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

from reader.core.text import fold, word_string, words
from reader.errors import QueryError
from reader.models import Paper

FIELDS = ("ti", "au", "abs", "co", "jr", "cat", "rn", "id", "all")
# The fields `all:` covers, in the order SearchText stores them.
TEXT_FIELDS = ("ti", "abs", "au", "co", "jr", "cat", "id")
OPERATORS = ("AND", "OR", "ANDNOT")
_DATE = re.compile(r"\d{4}(\d{2}(\d{2}(\d{4})?)?)?$")


# --- syntax tree ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Term:
    field: str
    words: tuple[str, ...]
    phrase: str  # ` w1 w2 `: what we look for in a field's word string

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
    left: Node
    right: Node

    def __str__(self) -> str:
        return f"({self.left} AND {self.right})"


@dataclass(frozen=True, slots=True)
class AndNot:
    left: Node
    right: Node

    def __str__(self) -> str:
        return f"({self.left} ANDNOT {self.right})"


@dataclass(frozen=True, slots=True)
class Or:
    left: Node
    right: Node

    def __str__(self) -> str:
        return f"({self.left} OR {self.right})"


Node = Union[Term, DateRange, And, AndNot, Or]


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
    re.X,
)


def _date_bound(text: str, query: str, position: int, end: bool) -> str:
    if not _DATE.match(text):
        raise QueryError(f"submittedDate needs dates like 202601010000 (YYYYMMDDHHMM), not {text!r}", query, position)
    pad = "12312359" if end else "01010000"
    padded = text + pad[len(text) - 4 :]
    return padded


def _tokens(query: str) -> list[_Token]:
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
                raise QueryError(
                    f"{field}:( ... ) is not arXiv syntax: write (ti:a OR ti:b) instead", query, field_pos
                )
            raise QueryError(f"nothing to search for after {field}:", query, field_pos)
        if kind == "open":
            tokens.append(_Token("(", None, start))
        elif kind == "close":
            tokens.append(_Token(")", None, start))
        elif kind == "date":
            low = _date_bound(match.group("from"), query, start, end=False)
            high = _date_bound(match.group("to"), query, start, end=True)
            tokens.append(_Token("date", DateRange(low, high), start))
        elif kind == "field":
            field = match.group("field")
            if field.lower() not in FIELDS or field != field.lower():
                if field.lower() == "submitteddate":
                    raise QueryError("write dates as submittedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM]", query, start)
                raise QueryError(
                    f"unknown field {field + ':'!r}: use one of {', '.join(f + ':' for f in FIELDS)}", query, start
                )
            pending_field = (field, start)
        elif kind in ("phrase", "word"):
            text = match.group(kind)
            if kind == "word" and text.endswith(":") and text[:-1] in FIELDS:
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
    if field in ("cat", "id"):  # matched whole: `cs.AI`, `2609.12345`, `hep-th/9901001`
        value = fold(text.strip())
        if field == "id":
            value = re.sub(r"v\d+$", "", value)
        return Term(field, (value,), f" {value} ")
    found = tuple(words(text))
    if not found:
        raise QueryError(f"{text!r} has no letters or digits to search for", query, position)
    return Term(field, found, " " + " ".join(found) + " ")


# --- parser --------------------------------------------------------------------------------------


class _Parser:
    def __init__(self, query: str, implicit_and: bool):
        self.query = query
        self.tokens = _tokens(query)
        self.i = 0
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
        node = self.parse_and()
        while (token := self.peek()) is not None and token.kind == "op" and token.value == "OR":
            self.take()
            node = Or(node, self.parse_and())
        return node

    def parse_and(self) -> Node:
        node = self.parse_unary()
        while (token := self.peek()) is not None:
            if token.kind == "op" and token.value in ("AND", "ANDNOT"):
                self.take()
                right = self.parse_unary()
                node = And(node, right) if token.value == "AND" else AndNot(node, right)
            elif token.kind in ("term", "date", "("):
                if not self.implicit_and:
                    raise self.error("two terms need an operator between them: AND, OR or ANDNOT", token)
                node = And(node, self.parse_unary())
            else:
                break
        return node

    def parse_unary(self) -> Node:
        token = self.peek()
        if token is None:
            raise self.error("the query ends where a term was expected")
        if token.kind == "(":
            self.take()
            node = self.parse_or()
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


def parse(query: str, *, implicit_and: bool = False) -> Node:
    """Parse and check a query; QueryError points at the first problem."""
    return _Parser(query, implicit_and).parse()


# --- evaluation ----------------------------------------------------------------------------------

# What matching looks at (see core/search.py), built once per paper: each field's words in
# TEXT_FIELDS order, then the v1 time as YYYYMMDDHHMM, separated by FIELD_MARK.
SearchText = str
FIELD_MARK = "\x1f"


def search_text(paper: Paper) -> SearchText:
    """The paper's words, folded (see core/text.py), field by field."""
    categories = []
    for category in paper.categories:
        folded = fold(category)
        categories.append(folded)
        if "." in folded:
            categories.append(folded.split(".", 1)[0])
    return FIELD_MARK.join(
        (
            word_string(paper.title),
            word_string(paper.abstract),
            # " | " between authors: a phrase never runs from one name into the next.
            " " + " | ".join(word_string(a.name).strip() for a in paper.authors) + " ",
            word_string(paper.comment or ""),
            word_string(paper.journal_ref or ""),
            " " + " ".join(dict.fromkeys(categories)) + " ",
            f" {fold(paper.id)} ",
            paper.published[:16].replace("-", "").replace("T", "").replace(":", ""),
        )
    )
