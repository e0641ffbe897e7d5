"""The scan evaluator: a query evaluated over many papers at once, by scanning their texts.

For a group of papers (a cache shard), each field's words are joined into one string across the
group's papers. A term is a run of `str.find` calls over its field's string, each hit mapped to
its paper by bisection, then on to the next paper; boolean operators are set operations. Work
grows with the number of matching papers, not with papers times query size, and memory holds
a few strings per group instead of one object per paper.

Words are matched by their stems (core/stem.py), as the search index matches them: each word
field's string is stemmed once, as the block is made, and a term's phrase holds stems. Codes
(`cat:`, `id:`) are matched whole. Stemming is most of a block's making (4x a block's time without
it), so a shard's texts are stemmed once (`stemmed_texts`) and saved beside it for the scan."""

from __future__ import annotations

from array import array
from bisect import bisect_right

from reader.core.query import (
    CODE_FIELDS,
    FIELD_MARK,
    TEXT_FIELDS,
    And,
    DateRange,
    Node,
    Or,
    SearchText,
    Term,
)
from reader.core.stem import stem_string
from reader.core.text import word_string

_DATE_CHARS = 12  # the v1 time closing each search text: YYYYMMDDHHMM


class _Field:
    __slots__ = ("starts", "text")

    def __init__(self, parts: list[str], stemmed: bool = True):
        """`parts`: each paper's word string (` w1 w2 `); `stemmed`: its words matched by stem."""
        text = "\n".join(parts)
        if stemmed and parts:  # one pass over the whole field (a newline stays a newline: it is no word)
            text = stem_string(text)
            parts = text.split("\n")
        self.starts = array("q")
        position = 0
        for part in parts:
            self.starts.append(position)
            position += len(part) + 1
        self.starts.append(position)  # a sentinel: starts[i + 1] always exists
        self.text = text

    def papers_with(self, phrase: str) -> set[int]:
        find, starts, hits = self.text.find, self.starts, []
        position = find(phrase)
        while position != -1:
            i = bisect_right(starts, position) - 1
            hits.append(i)
            position = find(phrase, starts[i + 1])  # on to the next paper
        return set(hits)

    def which_have(self, phrase: str, candidates: set[int]) -> set[int]:
        """The candidates whose text holds `phrase`: one bounded find each, no full scan."""
        find, starts = self.text.find, self.starts
        return {i for i in candidates if find(phrase, starts[i], starts[i + 1]) != -1}


def stemmed_texts(texts: dict[str, SearchText]) -> dict[str, SearchText]:
    """The texts with every word field's words stemmed (codes and the date as they are): a block
    made from them with `stemmed=True` answers as one made from `texts`."""
    if not texts:
        return {}
    columns = list(zip(*(text.split(FIELD_MARK) for text in texts.values())))
    for i, name in enumerate(TEXT_FIELDS):
        if name not in CODE_FIELDS:  # one pass over the whole field, as _Field makes it
            columns[i] = tuple(stem_string("\n".join(columns[i])).split("\n"))
    return dict(zip(texts, map(FIELD_MARK.join, zip(*columns))))


class SearchBlock:
    """The papers of one group, searchable. `notes` (paper id -> the user's note) are searched by
    `note:` and by `all:`; they live beside the papers' own fields because they change apart.
    `bodies` (paper id -> the words of its stored full text, fulltext/text_index.body_words) are
    searched by `text:` alone. `stemmed`: the texts' words are stems already (`stemmed_texts`)."""

    __slots__ = ("dates", "fields", "ids")

    def __init__(
        self,
        texts: dict[str, SearchText],
        notes: dict[str, str] | None = None,
        bodies: dict[str, str] | None = None,
        *,
        stemmed: bool = False,
    ):
        self.ids = list(texts)
        columns = list(zip(*(text.split(FIELD_MARK) for text in texts.values()))) or [()] * (len(TEXT_FIELDS) + 1)
        self.fields = {name: _Field(list(columns[i]), not stemmed and name not in CODE_FIELDS) for i, name in enumerate(TEXT_FIELDS)}
        if notes:
            self.fields["note"] = _Field([word_string(notes.get(pid, "")) for pid in self.ids])
        if bodies:
            self.fields["text"] = _Field([bodies.get(pid, " ") for pid in self.ids])
        self.dates = "".join(columns[len(TEXT_FIELDS)])  # fixed width: paper i at i * _DATE_CHARS

    def matching(self, node: Node) -> set[str]:
        """Ids of this block's papers that satisfy the query."""
        return {self.ids[i] for i in self._evaluate(node, None)}

    def _evaluate(self, node: Node, candidates: set[int] | None) -> set[int]:
        """Papers satisfying `node`, among `candidates` when given (each part of an AND only needs
        to look at what the parts before it let through: a few bounded finds instead of a scan).
        Recursion follows parentheses only, which the parser bounds (query.MAX_DEPTH)."""
        if isinstance(node, Term):
            return self._term(node, candidates)
        if isinstance(node, DateRange):
            dates, width = self.dates, _DATE_CHARS
            papers = range(len(self.ids)) if candidates is None else candidates
            return {i for i in papers if node.start <= dates[i * width : (i + 1) * width] <= node.end}
        if isinstance(node, And):
            found = candidates
            for part in node.required:
                found = self._evaluate(part, found)
                if not found:
                    return set()
            assert found is not None
            for part in node.excluded:
                found = found - self._evaluate(part, found)
                if not found:
                    break
            return found
        assert isinstance(node, Or)
        return set().union(*(self._evaluate(part, candidates) for part in node.parts))

    def _term(self, term: Term, candidates: set[int] | None) -> set[int]:
        if term.field == "rn":
            return set()  # report numbers are not cached
        if term.field == "all":
            fields = [field for name, field in self.fields.items() if name != "text"]
        else:
            field = self.fields.get(term.field)  # `note:` without notes finds nothing
            fields = [field] if field is not None else []
        # A bounded find per candidate beats a scan while candidates are few.
        found: set[int] = set()
        if candidates is not None and len(candidates) * 8 < len(self.ids):
            for field in fields:
                found |= field.which_have(term.phrase, candidates - found)
            return found
        for field in fields:
            found |= field.papers_with(term.phrase)
        return found if candidates is None else found & candidates
