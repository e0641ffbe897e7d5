"""Papers as term counts for the "For you" ranking (core/ranking.py).

Turning text into counts is the slow part of ranking (every word folded, keyed, counted), so it is done
once per paper, block by block (`featurize`, e.g. one cache shard at a time), and kept; a
`Corpus` of blocks weighs them by IDF once, again only when blocks change. Counts live in 2**22
hashed columns: no vocabulary to grow or store, at the price of rare collisions that add a
little noise to scores (the ranking's reasons are checked against real terms). The papers'
words are not kept with their counts: a ranking names reasons for the few papers it shows, from
their records (a corpus's `texts`).

Plain data in and out, with no shared state beyond caches of word and name keys, so it can all run in
a worker thread. numpy and scipy are imported inside functions, never at start-up.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from threading import Lock
from typing import TYPE_CHECKING, Any

from reader.core.query import FIELD_MARK
from reader.core.terms import is_stop, terms
from reader.core.text import fold, word_string
from reader.core.word_keys import block_word_keys, mixed, word_key

if TYPE_CHECKING:
    from reader.models import Paper

BITS = 22
COLUMNS = 1 << BITS
KEPT_TEXTS = 256  # rows of papers kept by a corpus once read (the stars' and the last shown)
# Bump when `featurize` counts a row differently: saved features (features_format.py) then expire.
# 2: words keyed by core/word_keys.py (in numpy, a block at once) where blake2b keyed each alone.
FEATURIZER = 2
_MASK = (1 << 64) - 1
_PAIR = 0x9E3779B97F4A7C15  # combines two word hashes into a phrase's (odd: no information lost)
_SPREAD = 0xD6E8FEB86659FD93  # multiplicative hashing: the top bits of key * _SPREAD pick the column
_SAMPLE_SEED = 0x243F6A8885A308D3


@dataclass(frozen=True, slots=True)
class Row:
    """One paper as the ranking sees it."""

    id: str
    words: str  # title and abstract as folded words separated by spaces
    authors: tuple[str, ...] = ()  # as they are shown
    categories: tuple[str, ...] = ()


def row_of_paper(paper: Paper) -> Row:
    return row_of_texts(paper.id, paper.title, paper.abstract, tuple(author.name for author in paper.authors), tuple(paper.categories))


def row_of_texts(paper_id: str, title: str, abstract: str, authors: tuple[str, ...], categories: tuple[str, ...]) -> Row:
    """A paper's row from its fields as written (what `row_of_paper` reads of its record)."""
    return Row(paper_id, word_string(title) + word_string(abstract), authors, categories)


def rows_of_search_texts(texts: Mapping[str, str], papers: Mapping[str, Paper] | None = None) -> list[Row]:
    """Rows from search texts (core/query.py's `search_text`), which hold whole abstracts. Author
    and category names come from `papers` when given (as written), else from the texts (folded)."""
    rows = []
    for paper_id, text in texts.items():
        title, abstract, authors, _comment, _journal, categories, *_ = text.split(FIELD_MARK)
        paper = papers.get(paper_id) if papers is not None else None
        if paper is not None:
            names, cats = tuple(a.name for a in paper.authors), tuple(paper.categories)
        else:
            names = tuple(name for name in (n.strip() for n in authors.split(" | ")) if name)
            listed = categories.split()
            # The search text adds each category's archive (`cs` for `cs.lg`): not a category.
            cats = tuple(c for c in listed if not any(other.startswith(c + ".") for other in listed))
        rows.append(Row(paper_id, title + abstract, names, cats))
    return rows


# --- counting -------------------------------------------------------------------------------------


class _Hashes(dict):
    """Keys of words and names (core/word_keys.py), kept as they are asked one at a time (a
    block's words are keyed together); 0 for stop words, which count for nothing."""

    def __missing__(self, word: str) -> int:
        if len(self) > 2_000_000:  # a vocabulary this large is mostly one-off words: start again
            self.clear()
        value = 0 if is_stop(word) else word_key(word)
        self[word] = value
        return value


_HASHES = _Hashes()


class _NameKeys(dict):
    """Keys of names as written (an author's, a category's), kept: a name's folding took as long
    as keying the words of its paper, and names recur."""

    def __init__(self, key_text: Callable[[str], str]):
        super().__init__()
        self._key_text = key_text

    def __missing__(self, name: str) -> int:
        if len(self) > 1_000_000:
            self.clear()
        value = self[name] = _HASHES[self._key_text(name)]
        return value


def _author_key(name: str) -> str:
    return "au:" + word_string(name).strip()  # no word holds a colon: names never meet words


def _category_key(category: str) -> str:
    return "cat:" + fold(category)


_AUTHOR_KEYS, _CATEGORY_KEYS = _NameKeys(_author_key), _NameKeys(_category_key)


def _phrase_key(first: int, second: int) -> int:
    return (first * _PAIR + second) & _MASK


def column_of(key: int) -> int:
    return ((key * _SPREAD) & _MASK) >> (64 - BITS)


@dataclass(frozen=True, slots=True)
class FeatureBlock:
    """Term counts of some papers (one cache shard, say): a sparse matrix with one row per paper
    holding 1 + log(count) per hashed column. Built once per paper; a corpus reuses it."""

    ids: list[str]
    matrix: Any  # scipy.sparse.csr_matrix, float32
    sample_keys: Any  # numpy uint64 per paper: the order in which papers join the background


Texts = Callable[[Sequence[str]], Mapping[str, Row]]  # rows of the papers asked for (those it has)


def featurize(rows: Sequence[Row]) -> FeatureBlock:
    """Count the terms of `rows`. About 0.5 µs a word: run it off the UI thread."""
    import numpy as np
    from scipy import sparse  # type: ignore[import-untyped, unused-ignore]

    words, kept, owner = _word_keys(rows)
    named, named_rows = array("Q"), array("q")
    authors, categories = _AUTHOR_KEYS.__getitem__, _CATEGORY_KEYS.__getitem__
    for i, row in enumerate(rows):
        named.extend([*map(authors, row.authors), *map(categories, row.categories)])
        named_rows.extend([i] * (len(row.authors) + len(row.categories)))
    # Phrases: two adjacent kept words of one paper (a stop word between them breaks the phrase).
    pairs = kept[:-1] & kept[1:] & (owner[:-1] == owner[1:])
    with np.errstate(over="ignore"):  # the hashes multiply modulo 2**64 on purpose
        phrases = words[:-1][pairs] * np.uint64(_PAIR) + words[1:][pairs]
        keys = np.concatenate([words[kept], phrases, np.frombuffer(named, dtype=np.uint64) if named else np.zeros(0, np.uint64)])
        columns = (keys * np.uint64(_SPREAD)) >> np.uint64(64 - BITS)
    owners = np.concatenate(
        [owner[kept], owner[:-1][pairs], np.frombuffer(named_rows, dtype=np.int64) if named_rows else np.zeros(0, np.int64)]
    )
    # Each (row, column) once with its count, rows then columns ascending: one sort of both as
    # one number (SciPy's conversion from pairs and its per-row sort took twice as long).
    entries = np.sort((owners << BITS) | columns.astype(np.int64))
    first = np.ones(len(entries), dtype=bool)
    np.not_equal(entries[1:], entries[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    distinct = entries[starts]
    counts = np.diff(np.append(starts, len(entries))).astype(np.float32)
    indptr = np.zeros(len(rows) + 1, dtype=np.int32)
    np.cumsum(np.bincount(distinct >> BITS, minlength=len(rows)), out=indptr[1:])
    weights = np.log(counts) + np.float32(1)
    matrix = sparse.csr_matrix((weights, (distinct & (COLUMNS - 1)).astype(np.int32), indptr), shape=(len(rows), COLUMNS))
    return FeatureBlock([row.id for row in rows], matrix, sample_keys_of([row.id for row in rows]))


def _word_keys(rows: Sequence[Row]) -> tuple[Any, Any, Any]:
    """Each word of the rows in order: its key, whether it counts (not a stop word), its row. All
    at once in numpy; one at a time (through the cache of keys) when a row holds other than ASCII
    words and single spaces, which `row_of_paper` never leaves."""
    import numpy as np

    keyed = block_word_keys([row.words for row in rows])
    if keyed is not None:
        return keyed
    hashes, lengths = array("Q"), array("q")
    for row in rows:
        before = len(hashes)
        hashes.extend(map(_HASHES.__getitem__, row.words.split()))
        lengths.append(len(hashes) - before)
    words = np.frombuffer(hashes, dtype=np.uint64) if hashes else np.zeros(0, np.uint64)
    owner = np.repeat(np.arange(len(rows), dtype=np.int64), np.frombuffer(lengths, dtype=np.int64) if lengths else 0)
    return words, words != 0, owner


def extended(old: FeatureBlock, keep: Collection[str], rows: Sequence[Row]) -> FeatureBlock:
    """`old`'s rows of the papers in `keep` (in their order), then `rows` counted: a shard's
    block after a save, counting only the papers written."""
    import numpy as np
    from scipy import sparse  # type: ignore[import-untyped, unused-ignore]

    new = featurize(rows)
    positions = [i for i, pid in enumerate(old.ids) if pid in keep]
    matrix = sparse.vstack([old.matrix[positions], new.matrix], format="csr")
    matrix.indices = matrix.indices.astype(np.int32)
    ids = [old.ids[i] for i in positions] + new.ids
    return FeatureBlock(ids, matrix, np.concatenate([old.sample_keys[positions], new.sample_keys]))


def sample_keys_of(ids: Sequence[str]) -> Any:
    """Where each paper stands in the order in which papers join the background (numpy uint64):
    a hash of its id, mixed eight bytes at a time by numpy (a hash call per id took ~1 s of a
    first ranking at 1,000,000 papers)."""
    import numpy as np

    if not ids:
        return np.zeros(0, np.uint64)
    raw = np.array([pid.encode() for pid in ids])
    width = -(-raw.dtype.itemsize // 8) * 8
    words = raw.astype(f"S{width}").view("<u8").reshape(len(ids), width // 8)
    keys = np.full(len(ids), _SAMPLE_SEED, np.uint64)
    with np.errstate(over="ignore"):  # multiplying modulo 2**64 on purpose
        for column in words.T:
            keys = mixed(keys ^ column)
    return keys


class Corpus:
    """Feature blocks with IDF weights and row norms: build it again when blocks change (a sync),
    not when marks do. Rows are numbered through the blocks in the order given."""

    def __init__(self, blocks: Iterable[FeatureBlock], documents: tuple[int, Any] | None = None, texts: Texts | None = None):
        """`documents`: the whole cache's papers and papers holding each column, when the blocks
        are only some of its papers (a first ranking from candidates); else counted here.
        `texts`: where the rows of the papers a ranking names reasons for are read (their
        records): without it, or for a paper it lacks, no reasons."""
        import numpy as np

        self.blocks = [block for block in blocks if block.ids]
        self.ids: list[str] = [pid for block in self.blocks for pid in block.ids]
        self._position: dict[str, int] | None = None
        self._starts = list(accumulate((len(block.ids) for block in self.blocks), initial=0))
        self.sample_keys = np.concatenate([block.sample_keys for block in self.blocks] or [np.zeros(0, np.uint64)])
        # Each column appears at most once per row, so counting its entries counts its papers.
        papers, counts = (len(self.ids), _document_counts(self.blocks)) if documents is None else documents
        self.idf = np.log((1 + papers) / (1 + counts)) + 1  # scikit-learn's smoothed IDF
        squared_idf = self.idf**2
        norms = np.concatenate([_squared(block.matrix) @ squared_idf for block in self.blocks] or [np.zeros(0)])
        np.sqrt(norms, out=norms)
        norms[norms == 0] = 1  # a paper without terms scores by the intercept alone
        self.norms = norms
        self._texts = texts
        self._lock = Lock()
        self._kept: dict[str, Row] = {}  # the rows last read, KEPT_TEXTS at most
        self._term_keys: dict[int, set[int]] = {}  # row -> keys of its terms, for starred rows

    @classmethod
    def of_rows(cls, rows: Sequence[Row], block_size: int = 1000) -> Corpus:
        by_id = {row.id: row for row in rows}
        blocks = (featurize(rows[start : start + block_size]) for start in range(0, len(rows), block_size))
        return cls(blocks, texts=lambda ids: {pid: by_id[pid] for pid in ids if pid in by_id})

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def position(self) -> dict[str, int]:
        """Paper id -> row number, made at the first call (half a second at 1,000,000 papers:
        a one-off ranking finds its few marked rows with `rows_of` instead)."""
        if self._position is None:
            self._position = {pid: i for i, pid in enumerate(self.ids)}
        return self._position

    def rows_of(self, ids: Collection[str]) -> list[int]:
        """Row numbers of the papers among `ids` that are in the corpus, in order of id."""
        if self._position is not None:
            found = {pid: self._position[pid] for pid in ids if pid in self._position}
        else:
            wanted = set(ids)
            found = {pid: i for i, pid in enumerate(self.ids) if pid in wanted} if wanted else {}
        return [found[pid] for pid in sorted(found)]

    def weighted_rows(self, rows: list[int]) -> Any:
        """TF-IDF rows (a csr_matrix) of the given row numbers, in that order."""
        import numpy as np
        from scipy import sparse  # type: ignore[import-untyped, unused-ignore]

        by_block: dict[int, list[int]] = {}
        for i in rows:
            by_block.setdefault(bisect_right(self._starts, i) - 1, []).append(i)
        pieces, order = [], []
        for b, members in sorted(by_block.items()):
            pieces.append(self.blocks[b].matrix[[i - self._starts[b] for i in members]])
            order += members
        where = {i: k for k, i in enumerate(order)}
        stacked = sparse.vstack(pieces, format="csr")[[where[i] for i in rows]]
        stacked.data = stacked.data * self.idf[stacked.indices] / np.repeat(self.norms[rows], np.diff(stacked.indptr))
        return stacked

    def decisions(self, weights: Any) -> Any:
        """Each row's TF-IDF vector times `weights` (one value per column)."""
        import numpy as np

        raw = np.concatenate([block.matrix @ weights for block in self.blocks] or [np.zeros(0)])
        return raw / self.norms

    def texts_of(self, ids: Sequence[str]) -> dict[str, Row]:
        """The rows (words, authors, categories) of these papers, read together from `texts`
        when not kept from an earlier call; a paper without one gets a row without words."""
        with self._lock:
            found = {pid: row for pid in ids if (row := self._kept.get(pid)) is not None}
        missing = [pid for pid in dict.fromkeys(ids) if pid not in found]
        if missing:
            read = dict(self._texts(missing)) if self._texts is not None else {}
            fresh = {pid: read.get(pid) or Row(pid, "") for pid in missing}
            found.update(fresh)
            with self._lock:
                self._kept.update(fresh)
                for pid in list(self._kept)[: max(len(self._kept) - KEPT_TEXTS, 0)]:
                    del self._kept[pid]
        return found

    def term_keys(self, rows: Sequence[int]) -> set[int]:
        """Keys of the terms of these rows, kept: the starred rows' are asked for at every ranking."""
        with self._lock:
            known = {i: keys for i in rows if (keys := self._term_keys.get(i)) is not None}
        missing = [i for i in rows if i not in known]
        if missing:
            texts = self.texts_of([self.ids[i] for i in missing])
            for i in missing:
                known[i] = {key for _, key, _, _ in named_terms(texts[self.ids[i]])}
            with self._lock:
                self._term_keys.update((i, known[i]) for i in missing)
        return set().union(*known.values())


COUNTED_TOGETHER = 1 << 24  # column entries counted by one bincount (its int64 copy: 128 MB)


def _document_counts(blocks: Sequence[FeatureBlock]) -> Any:
    """Papers holding each column: each column appears at most once per row, so counting its
    entries counts its papers. Blocks are counted some at a time, as machine-word indices
    (numpy's bincount of int32 indices converts them slowly: 2.4 s at 1,000,000 papers, 0.6 s
    so), without one copy of every index at once."""
    import numpy as np

    documents = np.zeros(COLUMNS, dtype=np.intp)
    group: list[Any] = []
    size = 0
    for block in [*blocks, None]:
        if block is None or size + block.matrix.nnz > COUNTED_TOGETHER:
            if group:
                documents += np.bincount(np.concatenate(group, dtype=np.intp), minlength=COLUMNS)
            group, size = [], 0
        if block is not None:
            group.append(block.matrix.indices)
            size += block.matrix.nnz
    return documents


def _squared(matrix: Any) -> Any:
    from scipy import sparse  # type: ignore[import-untyped, unused-ignore]

    return sparse.csr_matrix((matrix.data.astype("float64") ** 2, matrix.indices, matrix.indptr), shape=matrix.shape)


def named_terms(row: Row) -> Iterator[tuple[str, int, int, tuple[str, ...]]]:
    """(shown name, key, count, words of a term or () for a name) of each term of the row, keyed
    as `featurize` keys them."""
    counts: dict[str, int] = {}
    for term in terms(row.words):
        counts[term] = counts.get(term, 0) + 1
    for term, count in counts.items():
        words = tuple(term.split())
        key = _phrase_key(_HASHES[words[0]], _HASHES[words[1]]) if len(words) == 2 else _HASHES[term]
        yield term, key, count, words
    for name in row.authors:
        yield name, _AUTHOR_KEYS[name], 1, ()
    for category in row.categories:
        yield category, _CATEGORY_KEYS[category], 1, ()
