"""A researcher's library matched to papers (`reader import`): each citation of the file (see
core/import_file.py) to one arXiv paper, or a reason why not. No fuzzy matching: an id wins; a
citation without one matches only a cached paper with exactly its title (see title_key) that
shares an author's family name with it, and a title two cached papers share is reported, never
guessed. Fetching what the cache lacks is the command's (sync/fetching.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reader.cache_index import CacheIndex
from reader.core.import_file import Citation, shares_author, title_key
from reader.core.query import Or, term
from reader.core.sanitize import clean_text
from reader.core.text import word_string
from reader.errors import ReaderError
from reader.models import Paper
from reader.search_index.rows import Card
from reader.store import Store

if TYPE_CHECKING:
    from reader.service.search import CacheSearch

NO_TITLE = "no arXiv id and no title"
NOT_CACHED = "no arXiv id, and no cached paper has this title"
SEARCH_HINT = " (--search-titles looks for it on arXiv)"
LONGEST_TITLE = 200  # words: no paper's title is longer (a longer "title" is not looked up)
# Titles are looked up TITLE_BATCH a query of the search index (0.4 ms a title; one a query took
# 2 ms); when there are more than a SCAN_RATIO-th of the cached papers, every cached paper's title
# is read instead (30 us a paper), SCAN_CHUNK cards at a time.
TITLE_BATCH = 20
SCAN_RATIO = 20
SCAN_CHUNK = 20_000


@dataclass(slots=True)
class Match:
    """What became of one citation."""

    citation: Citation
    paper_id: str | None = None  # the paper it matched
    how: str | None = None  # id, link, doi, text (see bibfile.arxiv_reference), title
    cached: bool = True  # False: the paper is to be fetched from arXiv
    fetched: bool = False  # it was, by this import
    reason: str | None = None  # why it matched none
    left: bool = False  # not fetched (or not looked up) because arXiv stopped or Ctrl+C: a rerun finishes it

    def to_json(self) -> dict:
        if self.paper_id is not None:
            return {"key": clean_text(self.citation.label), "id": self.paper_id, "how": self.how}
        # The file's text as written is untrusted: no control or bidi character reaches the output.
        return {"key": clean_text(self.citation.label), "title": clean_text(self.citation.title), "reason": clean_text(self.reason)}


class TitleLookup:
    """Cached papers by exact title, through the search index (a phrase search of the title's
    words, then the titles compared exactly), TITLE_BATCH titles a query: opened at the first
    citation that needs it, so a file of ids never pays for it."""

    def __init__(self, store: Store):
        self.store = store
        self._search: CacheSearch | None = None
        self._found: dict[str, list[tuple[str, list[str]]]] = {}  # title_key -> (id, author names)

    def papers(self, title: str) -> list[tuple[str, list[str]]]:
        """(id, author names) of each cached paper whose title is exactly `title`."""
        key = title_key(title)
        if key not in self._found:
            self.look_up([Citation("", title)])
        return self._found.get(key, [])

    def look_up(self, citations: Iterable[Citation]) -> None:
        """Find the papers of many citations' titles at once (what `papers` then answers from).
        A paper's card names its first authors: its record is read (all of them read together)
        only when the card has more and a citation of its title shares none of the card's."""
        wanted: dict[str, tuple[str, ...]] = {}
        families: dict[str, list[tuple[tuple[str, ...], ...]]] = {}
        for citation in citations:
            key = title_key(citation.title)
            families.setdefault(key, []).append(citation.families)
            words = tuple(word_string(key).split())
            if key not in self._found and words and len(words) <= LONGEST_TITLE:
                wanted[key] = words
            self._found.setdefault(key, [])
        if not wanted:
            return
        cached = self.store.index().ids
        same = self._every_title(wanted, cached) if len(wanted) * SCAN_RATIO >= len(cached) else self._phrase_searches(wanted)
        more = []
        for pid, card in same.items():
            key = title_key(card.title)
            if card.author_count <= len(card.authors) or all(shares_author(f, card.authors) for f in families[key]):
                self._found[key].append((pid, list(card.authors)))
            else:
                more.append(pid)
        for pid, paper in self.store.papers_by_id(sorted(more)).items():  # names beyond the card's: each shard read once
            self._found[title_key(paper.title)].append((pid, [a.name for a in paper.authors]))

    def _phrase_searches(self, wanted: dict[str, tuple[str, ...]]) -> dict[str, Card]:
        """The cards of the papers with a wanted title, by id: TITLE_BATCH phrase searches a query."""
        search, same = self._opened(), dict[str, Card]()
        batches = list(wanted.items())
        for start in range(0, len(batches), TITLE_BATCH):
            batch = dict(batches[start : start + TITLE_BATCH])
            query = Or(tuple(term("ti", words) for words in batch.values()))
            cards = search.cards(search.matching(query))
            same.update((pid, card) for pid, card in cards.items() if title_key(card.title) in batch)
        return same

    def _every_title(self, wanted: dict[str, tuple[str, ...]], cached: Sequence[str]) -> dict[str, Card]:
        """The same, by reading every cached paper's title (SCAN_CHUNK cards at a time)."""
        search, same = self._opened(), dict[str, Card]()
        for start in range(0, len(cached), SCAN_CHUNK):
            cards = search.cards(cached[start : start + SCAN_CHUNK])
            same.update((pid, card) for pid, card in cards.items() if title_key(card.title) in wanted)
        return same

    def _opened(self):
        if self._search is None:
            from reader.service.search import CacheSearch  # the search index: only when a title is looked up

            self._search = CacheSearch(self.store)
            try:
                self._search.refresh()
            except ReaderError:
                pass  # the index cannot be written: the scan of the shards answers instead
        return self._search

    def close(self) -> None:
        if self._search is not None:
            self._search.close()


def match_cached(store: Store, index: CacheIndex, citations: Iterable[Citation]) -> list[Match]:
    """Each citation matched against the cache: by its id (a paper the cache lacks is marked to
    be fetched), else by its exact title."""
    citations = list(citations)
    titles = TitleLookup(store)
    try:
        titles.look_up(c for c in citations if c.problem is None and c.arxiv_id is None and c.title.strip())
        return [_match(citation, index, titles) for citation in citations]
    finally:
        titles.close()


def _match(citation: Citation, index: CacheIndex, titles: TitleLookup) -> Match:
    if citation.problem is not None:
        return Match(citation, reason=citation.problem)
    if citation.arxiv_id is not None:
        return Match(citation, citation.arxiv_id, citation.how, cached=citation.arxiv_id in index)
    if not citation.title.strip():
        return Match(citation, reason=NO_TITLE)
    found = [(pid, names) for pid, names in titles.papers(citation.title) if pid in index]
    if not found:
        return Match(citation, reason=NOT_CACHED)
    return _by_title(citation, found)


def match_fetched(matches: Iterable[Match], papers: Iterable[Paper]) -> None:
    """The citations no cached title matched, matched again against the papers this import
    fetched by id: an id-less duplicate of one of them is found now, not on the next run."""
    by_title: dict[str, list[tuple[str, list[str]]]] = {}
    for paper in papers:
        by_title.setdefault(title_key(paper.title), []).append((paper.id, [a.name for a in paper.authors]))
    for match in matches:
        if match.reason == NOT_CACHED and (found := by_title.get(title_key(match.citation.title))):
            again = _by_title(match.citation, found)
            match.paper_id, match.how, match.reason = again.paper_id, again.how, again.reason


def _by_title(citation: Citation, found: list[tuple[str, list[str]]]) -> Match:
    """The match of a citation whose title these cached papers (id, author names) have."""
    if len(found) > 1:
        shown = ", ".join(pid for pid, _ in found[:5]) + (" ..." if len(found) > 5 else "")
        return Match(citation, reason=f"{len(found)} cached papers have this title ({shown}): give its arXiv id")
    ((pid, names),) = found
    if not shares_author(citation.families, names):
        names_given = "names no author" if not any(citation.families) else "shares no author's family name with it"
        return Match(citation, reason=f"the cached paper with this title ({pid}) {names_given}: give its arXiv id")
    return Match(citation, pid, "title")
