"""The model that places a text in meaning: latent semantic analysis (LSA) learned from the cache.

A paper's title and abstract become stemmed words weighed by TF-IDF (sublinear counts, the log of
how rare each word is); a truncated SVD, fitted on a sample of the cache, maps those weights onto
DIMENSIONS directions, each a family of words that occur together ("reward, agent, policy,
trajectori..."). Two texts that share no word but whose words keep the same company land close:
"agents that learn from their mistakes" near "self-reflection ... failed trajectories".

Measured against words alone and a packaged word-vector model on real papers (docs/ranking.md,
benchmarks/meaning.py): it is learned from the user's own papers, so it speaks their field's
language, needs no download and nothing beyond numpy and scikit-learn.

Pure: no files (vectors.py stores what is made here)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import chain
from typing import TYPE_CHECKING

from reader.core.stem import stem_string
from reader.core.text import word_string

if TYPE_CHECKING:
    import numpy as np
    from scipy.sparse import csr_matrix

DIMENSIONS = 256  # measured: 256 finds more known items than 128 for little more time and space
FIT_SAMPLE = 20_000  # papers the SVD is fitted on; the others are folded in (as many as it sees)
PAPERS_PER_DIMENSION = 16
MIN_PAPERS = 200  # fewer papers teach too few word families: words alone answer
MIN_DOCUMENTS = 2  # a word in fewer papers of the sample says nothing about its company
MAX_SHARE = 0.5  # a word in more than half the papers is a template word ("paper", "propos")


@cache
def stop_stems() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(stem_string(word_string(" ".join(ENGLISH_STOP_WORDS))).split())


def paper_text(title: str, abstract: str) -> str:
    """What a paper is known by in meaning: its title (twice: it is the paper's own summary) and
    its abstract."""
    return f"{title} {title} {abstract}"


UNKNOWN = -1  # the code of a token the vocabulary does not hold
_DROPPED = -2  # the code of a word that is no token (a stop word, a number)


class Words:
    """The tokens of texts: their stemmed, folded words without stop words and bare numbers.
    Each folded word's token (or None: a stop word, a number) is remembered, and its column in a
    vocabulary, so a word a build meets a million times is stemmed and filtered once; made for
    one build (or one text: `tokens`), then dropped. Texts are taken a batch at a time: the
    words a batch meets for the first time are stemmed together, in one call of the stemmer
    (one a text was most of a build's time: nearly every paper holds some word never met)."""

    def __init__(self, stop: frozenset[str]):
        self.stop = stop
        self._token: dict[str, str | None] = {}
        self._code: dict[str, int] = {}
        self._column: dict[str, int] | None = None

    def tokens(self, text: str) -> list[str]:
        """The tokens of `text`, in order."""
        return self.tokens_of([text])[0]

    def tokens_of(self, texts: Iterable[str]) -> list[list[str]]:
        """The tokens of each text, in order."""
        token = self._token.__getitem__
        return [[found for found in map(token, words) if found is not None] for words in self._split(texts)]

    def codes_of(self, texts: Iterable[str], column: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
        """The columns of the texts' tokens (UNKNOWN for a token not in `column`), one after the
        other, and the text each is of (its place in `texts`)."""
        import numpy as np

        if column is not self._column:
            self._column, self._code = column, {}
        split = self._split(texts)
        code = self._code
        token = self._token
        for word in set().union(*split).difference(code):
            stem = token[word]
            code[word] = _DROPPED if stem is None else column.get(stem, UNKNOWN)
        codes = np.fromiter(map(code.__getitem__, chain.from_iterable(split)), dtype=np.int64)
        texts_of = np.repeat(np.arange(len(split), dtype=np.int64), [len(words) for words in split])
        kept = codes != _DROPPED
        return codes[kept], texts_of[kept]

    def _split(self, texts: Iterable[str]) -> list[list[str]]:
        """Each text's folded words, every one of them known from then on."""
        split = [word_string(text).split() for text in texts]
        new = list(set().union(*split).difference(self._token))
        if new:
            stop = self.stop
            for word, stem in zip(new, stem_string(" ".join(new)).split(" "), strict=True):
                self._token[word] = None if stem in stop or stem.isdigit() or len(stem) <= 1 else stem
        return split


def tokens(text: str, stop: frozenset[str]) -> list[str]:
    """Stemmed, folded words of `text`, without stop words and bare numbers (one text's Words)."""
    return Words(stop).tokens(text)


@dataclass(frozen=True)
class Model:
    vocabulary: list[str]  # stems, in column order
    idf: np.ndarray  # float32, one per stem
    components: np.ndarray  # float32, DIMENSIONS x len(vocabulary): each direction's weight per stem
    built: str  # UTC, ISO 8601
    fitted_on: int  # papers the SVD saw
    unknown_share: float  # share of the sample's words not in the vocabulary (drift is measured from it)
    stop: frozenset[str] = frozenset()  # the stop stems it was fitted without (stored with it: a query never imports scikit-learn's list)

    @property
    def dimensions(self) -> int:
        return int(self.components.shape[0])

    def column(self) -> dict[str, int]:
        """Stem -> its column (made once: a query asks it for every hit's reasons)."""
        found = self.__dict__.get("_column")
        if found is None:
            found = {word: i for i, word in enumerate(self.vocabulary)}
            object.__setattr__(self, "_column", found)
        return found

    def weights(
        self, texts: Iterable[str], column: dict[str, int] | None = None, *, stop: frozenset[str] = frozenset(), words: Words | None = None
    ) -> tuple[csr_matrix, float]:
        """The texts' TF-IDF rows (L2-normalised) and the share of their words, `stop` words
        aside, not in the vocabulary (stop words never are: a query need not name them, and
        need not import scikit-learn's list). `words`: a build's, kept from batch to batch."""
        column = column if column is not None else self.column()
        rows, unknown, total = _weights(texts, column, self.idf, words if words is not None else Words(stop))
        return rows, unknown / total if total else 0.0

    def embed(
        self, texts: Sequence[str], column: dict[str, int] | None = None, *, stop: frozenset[str] = frozenset(), words: Words | None = None
    ) -> tuple[np.ndarray, float]:
        """Unit vectors (float32, len(texts) x dimensions) of the texts, folded into the fitted
        directions, and the share of their words the model did not know (see weights). A text
        with no known word is the zero vector (it is near nothing)."""
        vectors, unknown, total = self.embed_counted(texts, column, stop=stop, words=words)
        return vectors, unknown / total if total else 0.0

    def embed_counted(
        self, texts: Sequence[str], column: dict[str, int] | None = None, *, stop: frozenset[str] = frozenset(), words: Words | None = None
    ) -> tuple[np.ndarray, int, int]:
        """embed's vectors, with the count of the texts' words the model did not know and of
        their words (a build adds them up over its batches)."""
        import numpy as np

        column = column if column is not None else self.column()
        rows, unknown, total = _weights(texts, column, self.idf, words if words is not None else Words(stop))
        used = np.unique(rows.indices)  # a query touches a few of the stored directions' columns
        if used.size == 0:
            return np.zeros((rows.shape[0], self.dimensions), dtype=np.float32), unknown, total
        return _unit(rows[:, used] @ np.asarray(self.components[:, used], dtype=np.float32).T), unknown, total

    def embed_query(self, text: str) -> np.ndarray:
        """The unit vector of one text, as embed gives it, with numpy alone: a query's few
        words pick their columns of the directions (scipy costs a command ~0.3 s to import)."""
        import numpy as np

        column = self.column()
        counts: dict[int, int] = {}
        for word in tokens(text, frozenset()):
            i = column.get(word)
            if i is not None:
                counts[i] = counts.get(i, 0) + 1
        if not counts:
            return np.zeros(self.dimensions, dtype=np.float32)
        used = np.fromiter(counts, dtype=np.int64, count=len(counts))
        weights = (1.0 + np.log(np.fromiter(counts.values(), dtype=np.float32, count=len(counts)))) * self.idf[used]
        weights /= np.linalg.norm(weights)
        vector = np.asarray(self.components[:, used], dtype=np.float32) @ weights
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def nearest_words(self, words: Sequence[str], vector: np.ndarray, limit: int) -> list[str]:
        """Of `words` (a query's, as typed), those whose meaning is nearest the paper's `vector`:
        why a paper answers a query it may not share a word with."""
        scored: dict[str, float] = {}
        for word in words:
            found = self._direction(word)
            if found is None:
                continue
            direction, norm = found
            score = float(direction @ vector) / norm
            if score > 0.05:
                scored[word] = max(score, scored.get(word, 0.0))
        return sorted(scored, key=lambda word: -scored[word])[:limit]

    def _direction(self, word: str) -> tuple[np.ndarray, float] | None:
        """A typed word's direction in meaning and its length (None: not one known stem),
        remembered: a query's words are asked of each of its hundred hits."""
        import numpy as np

        known: dict[str, tuple[np.ndarray, float] | None] = self.__dict__.setdefault("_directions", {})
        if word not in known:
            stems = tokens(word, frozenset())
            column = self.column()
            found = None
            if len(stems) == 1 and stems[0] in column:
                direction = self.components[:, column[stems[0]]]
                norm = float(np.linalg.norm(direction))
                found = (direction, norm) if norm else None
            if len(known) > 10_000:
                known.clear()
            known[word] = found
        return known[word]


def _weights(texts: Iterable[str], column: dict[str, int], idf: np.ndarray, words: Words) -> tuple[csr_matrix, int, int]:
    """The texts' TF-IDF rows (L2-normalised), how many of their words the vocabulary does not
    hold and how many words they have."""
    texts = list(texts)
    codes, texts_of = words.codes_of(texts, column)
    return _tf_idf(codes, texts_of, len(texts), len(column), idf)


def _tf_idf(codes: np.ndarray, texts_of: np.ndarray, count: int, size: int, idf: np.ndarray) -> tuple[csr_matrix, int, int]:
    """_weights' rows of `count` texts from their tokens' columns (`codes`, UNKNOWN where the
    vocabulary of `size` stems holds none) and the text each is of, in order."""
    import numpy as np
    from scipy.sparse import csr_matrix

    # Counted per (text, column) by numpy: a Python loop per word was a build's largest cost
    # after stemming.
    known = codes >= 0
    keys = texts_of[known] * size + codes[known]
    cells, counts = np.unique(keys, return_counts=True)
    rows_of, columns = np.divmod(cells, size) if size else (cells, cells)
    indptr = np.searchsorted(rows_of, np.arange(count + 1))
    data = (1.0 + np.log(counts.astype(np.float32))) * idf[columns]
    rows = csr_matrix((data.astype(np.float32), columns, indptr), shape=(count, size))
    norms = np.sqrt(rows.multiply(rows).sum(axis=1)).A1
    norms[norms == 0] = 1.0
    rows = csr_matrix(rows.multiply(1.0 / norms[:, None]))
    total = len(codes)
    return rows, total - int(known.sum()), total


def _unit(vectors: np.ndarray) -> np.ndarray:
    import numpy as np

    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


def fit(texts: Sequence[str], built: str, *, dimensions: int = DIMENSIONS, seed: int = 0) -> Model:
    """Learn the model from `texts` (a sample of the cache's papers, paper_text's form)."""
    return fit_tokens(Words(stop_stems()).tokens_of(texts), built, dimensions=dimensions, seed=seed)


def fit_tokens(texts: Sequence[Sequence[str]], built: str, *, dimensions: int = DIMENSIONS, seed: int = 0) -> Model:
    """fit's model from the texts' tokens (Words' of stop_stems(): a build's workers make them)."""
    import numpy as np
    from sklearn.decomposition import TruncatedSVD
    from threadpoolctl import threadpool_limits

    documents: dict[str, int] = {}
    for text in texts:
        for word in set(text):
            documents[word] = documents.get(word, 0) + 1
    most = MAX_SHARE * len(texts)
    vocabulary = sorted(word for word, count in documents.items() if MIN_DOCUMENTS <= count <= most)
    idf = np.array([math.log((1 + len(texts)) / (1 + documents[word])) + 1.0 for word in vocabulary], dtype=np.float32)
    column = {word: i for i, word in enumerate(vocabulary)}
    codes = np.fromiter((column.get(word, UNKNOWN) for text in texts for word in text), dtype=np.int64)
    texts_of = np.repeat(np.arange(len(texts), dtype=np.int64), [len(text) for text in texts])
    rows, unknown, total = _tf_idf(codes, texts_of, len(texts), len(column), idf)
    # Directions must be far fewer than papers: as many as papers reproduce the words themselves
    # (a paper is near only those sharing its words); a sixteenth generalises on the tests' fields
    # and gives the 256 measured best at 4,000 real papers.
    dimensions = max(1, min(dimensions, len(texts) // PAPERS_PER_DIMENSION, len(vocabulary) - 1))
    svd = TruncatedSVD(n_components=dimensions, algorithm="randomized", n_iter=5, random_state=seed)
    # One BLAS thread: on a machine whose cores are busy, a second thread spins waiting for its
    # share (measured: more CPU for no less time), and the fit is the same whatever the machine.
    with threadpool_limits(limits=1, user_api="blas"):
        svd.fit(rows)
    return Model(vocabulary, idf, svd.components_.astype(np.float32), built, len(texts), unknown / total if total else 0.0, stop_stems())
