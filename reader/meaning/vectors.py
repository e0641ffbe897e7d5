"""The meaning vectors beside the cache (`meaning/` in the data directory), derived from the shards.

Files, each written atomically: `model.npz` (the fitted model: vocabulary, IDF, directions as
float16), `vectors.npy` (one float16 unit vector per paper, memory-mapped when read), `ids.json`
(the papers in row order) and `meta.json` (when built, from how many papers, the row count the
other files must agree with: a file cut short or of another build makes the whole index absent,
and the next update builds it again).

Kept current by `update`: the papers that arrived since are folded into the fitted directions (a
few seconds for 10,000); the model is fitted again when the papers' words have drifted from the
vocabulary it learned, or when the cache has doubled since a fit on fewer than FIT_SAMPLE papers.
Search is exact: every vector is compared with the query's (numpy, in blocks)."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from reader.errors import StoreError
from reader.meaning.model import FIT_SAMPLE, MIN_PAPERS, Model, fit, paper_text, stop_stems
from reader.store.files import write_atomic
from reader.store.store import shard_of

if TYPE_CHECKING:
    import numpy as np

    from reader.store import Store

FORMAT = 1
DIRECTORY = "meaning"
DRIFT = 0.10  # new papers with this much more unknown words than the fit's sample: fit again
BATCH = 5_000  # papers embedded at a time (and a progress step)
BLOCK = 65_536  # vectors compared with a query at a time (float16 made float32 a block at a time)

Progress = Callable[[str, int, int], None]  # (what, done, total)


@dataclass(frozen=True, slots=True)
class Status:
    """What `reader config` and `reader index` say of the meaning index."""

    papers: int  # vectors stored (0: none)
    cached: int  # papers in the cache
    built: str | None
    fitted_on: int
    vocabulary: int
    dimensions: int
    size: int  # bytes on disk
    note: str  # why words alone answer, when they do ("" when meaning answers)

    @property
    def ready(self) -> bool:
        return self.papers > 0


def too_small_note(cached: int) -> str:
    return f"the cache has {cached:,} papers, too few to learn meaning from ({MIN_PAPERS:,} needed): words alone answer"


def _consistent(meta: object, ids: object, vectors: np.ndarray, model: Model) -> bool:
    """Whether the files read are one build's, of the shapes and types search relies on (a file
    damaged or of another build makes the index absent, never a crash in a query)."""
    import numpy as np

    if not isinstance(meta, dict) or not isinstance(ids, list) or not all(isinstance(pid, str) for pid in ids):
        return False
    rows, words = len(ids), len(model.vocabulary)
    return (
        meta.get("rows") == rows
        and vectors.ndim == 2
        and vectors.shape == (rows, model.dimensions)
        and vectors.dtype == np.float16
        and model.components.ndim == 2
        and model.components.shape[1] == words
        and model.idf.shape == (words,)
        and all(isinstance(word, str) for word in model.vocabulary)
    )


class MeaningIndex:
    """The stored vectors and model, read-only; `update` makes a new one."""

    def __init__(self, directory: Path, model: Model, ids: list[str], vectors: np.ndarray, meta: dict):
        self.directory = directory
        self.model = model
        self.ids = ids
        self.vectors = vectors
        self.meta = meta
        self._rows: dict[str, int] | None = None

    @classmethod
    def open(cls, data_dir: Path) -> MeaningIndex | None:
        """The stored index, or None when there is none whole (never built, damaged, another format)."""
        import numpy as np

        directory = data_dir / DIRECTORY
        try:
            meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
            if meta.get("format") != FORMAT:
                return None
            ids = json.loads((directory / "ids.json").read_text(encoding="utf-8"))
            vectors = np.load(directory / "vectors.npy", mmap_mode="r", allow_pickle=False)
            with np.load(directory / "model.npz", allow_pickle=False) as stored:
                model = Model(
                    vocabulary=stored["vocabulary"].tolist(),
                    idf=stored["idf"],
                    components=stored["components"],
                    built=meta["built"],
                    fitted_on=meta["fitted_on"],
                    unknown_share=meta["unknown_share"],
                )
            whole = _consistent(meta, ids, vectors, model)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
            return None
        return cls(directory, model, ids, vectors, meta) if whole else None

    def row(self, paper_id: str) -> int | None:
        if self._rows is None:
            self._rows = {pid: i for i, pid in enumerate(self.ids)}
        return self._rows.get(paper_id)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Cosine of every stored paper with the unit vector `query` (float32, row order)."""
        import numpy as np

        out = np.empty(len(self.ids), dtype=np.float32)
        for start in range(0, len(self.ids), BLOCK):
            out[start : start + BLOCK] = self.vectors[start : start + BLOCK].astype(np.float32) @ query
        return out

    def nearest(
        self, query: np.ndarray, limit: int, *, among: Collection[str] | None = None, leave_out: Collection[str] = ()
    ) -> list[tuple[str, float]]:
        """The `limit` papers nearest `query`, best first (ties by id): of `among` when given,
        never those in `leave_out`."""
        import numpy as np

        scores = self.scores(query)
        if among is not None:
            keep = np.zeros(len(self.ids), dtype=bool)
            keep[[row for pid in among if (row := self.row(pid)) is not None]] = True
            scores[~keep] = -np.inf
        for pid in leave_out:
            row = self.row(pid)
            if row is not None:
                scores[row] = -np.inf
        wanted = min(limit + len(leave_out), len(scores))
        if wanted <= 0:
            return []
        top = np.argpartition(-scores, wanted - 1)[:wanted] if wanted < len(scores) else np.arange(len(scores))
        ranked = sorted(((float(scores[row]), self.ids[row]) for row in top if scores[row] > -np.inf), key=lambda hit: (-hit[0], hit[1]))
        return [(pid, score) for score, pid in ranked[:limit]]

    def vector(self, paper_id: str) -> np.ndarray | None:
        import numpy as np

        row = self.row(paper_id)
        return None if row is None else np.asarray(self.vectors[row], dtype=np.float32)

    def embed(self, text: str) -> np.ndarray:
        return self.model.embed_query(text)

    def status(self, cached: int) -> Status:
        size = sum(path.stat().st_size for path in self.directory.iterdir() if path.is_file())
        meta, model = self.meta, self.model
        return Status(len(self.ids), cached, meta["updated"], model.fitted_on, len(model.vocabulary), model.dimensions, size, "")


def stored(data_dir: Path) -> Status:
    """What the stored index says of itself (its meta.json alone: nothing else is read, and no
    cache is opened); `cached` is unknown (0)."""
    directory = data_dir / DIRECTORY
    try:
        meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
        size = sum(path.stat().st_size for path in directory.iterdir() if path.is_file())
        return Status(meta["rows"], 0, meta["updated"], meta["fitted_on"], meta["vocabulary"], meta["dimensions"], size, "")
    except (OSError, ValueError, KeyError, TypeError):
        return Status(0, 0, None, 0, 0, 0, 0, "not built: words answer `reader find` until a sync or `reader index --rebuild` builds it")


def status(store: Store) -> Status:
    cached = len(store.index_order().ids)
    index = MeaningIndex.open(store.data_dir)
    if index is None:
        note = too_small_note(cached) if cached < MIN_PAPERS else "not built yet: `reader index --rebuild` builds it (a sync does too)"
        return Status(0, cached, None, 0, 0, 0, 0, note)
    return index.status(cached)


def update(store: Store, *, rebuild: bool = False, progress: Progress | None = None, now: datetime | None = None) -> Status:
    """Bring the meaning index up to date with the cache: fold in the papers that arrived, or
    build it whole (`rebuild`, none yet, or the words drifted). A cache of fewer than MIN_PAPERS
    papers gets none (Status.note says so)."""
    return current(store, rebuild=rebuild, progress=progress, now=now)[0]


def current(
    store: Store, *, rebuild: bool = False, progress: Progress | None = None, now: datetime | None = None
) -> tuple[Status, MeaningIndex | None]:
    """update's Status and the index as it left it (None: words answer), opened once."""
    cached = list(store.index_order().ids)
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    if len(cached) < MIN_PAPERS:
        return Status(0, len(cached), None, 0, 0, 0, 0, too_small_note(len(cached))), None
    index = None if rebuild else MeaningIndex.open(store.data_dir)
    if index is not None:
        present = set(cached)
        have = set(index.ids)
        arrived = [pid for pid in cached if pid not in have]
        if not arrived and have <= present:
            return index.status(len(cached)), index
        folded = None
        if index.model.fitted_on >= min(FIT_SAMPLE, len(cached) / 2):
            folded = _fold_in(store, index, arrived, present, when, progress)
        if folded is None:
            _build(store, cached, when, progress)
    else:
        _build(store, cached, when, progress)
    index = MeaningIndex.open(store.data_dir)
    return (
        (status(store), index)
        if index is not None
        else (Status(0, len(cached), None, 0, 0, 0, 0, "was written but cannot be read back: words answer"), None)
    )


def _texts(store: Store, ids: list[str]) -> Iterable[tuple[str, str]]:
    """(id, paper_text) of these papers, a shard at a time (ids whose record is lost are skipped)."""
    by_shard: dict[str, list[str]] = {}
    for pid in ids:
        by_shard.setdefault(shard_of(pid), []).append(pid)
    for shard, wanted in by_shard.items():
        papers = store.load_papers([shard])
        for pid in wanted:
            paper = papers.get(pid)
            if paper is not None:
                yield pid, paper_text(paper.title, paper.abstract)


def _embed_all(model: Model, store: Store, ids: list[str], progress: Progress | None, what: str) -> tuple[list[str], np.ndarray, float]:
    import numpy as np

    column = model.column()
    stop = stop_stems()
    done_ids: list[str] = []
    parts: list[np.ndarray] = []
    unknown_words = 0.0
    batch: list[tuple[str, str]] = []

    def flush() -> None:
        nonlocal unknown_words
        vectors, unknown = model.embed([text for _, text in batch], column, stop=stop)
        parts.append(vectors.astype(np.float16))
        done_ids.extend(pid for pid, _ in batch)
        unknown_words += unknown * len(batch)
        batch.clear()
        if progress is not None:
            progress(what, len(done_ids), len(ids))

    for item in _texts(store, ids):
        batch.append(item)
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    vectors = np.concatenate(parts) if parts else np.zeros((0, model.dimensions), dtype=np.float16)
    return done_ids, vectors, unknown_words / len(done_ids) if done_ids else 0.0


def _build(store: Store, cached: list[str], when: str, progress: Progress | None) -> None:
    ids = sorted(cached)
    sample = ids if len(ids) <= FIT_SAMPLE else sorted(random.Random(0).sample(ids, FIT_SAMPLE))
    if progress is not None:
        progress("learning meaning from a sample of papers", 0, len(sample))
    model = fit([text for _, text in _texts(store, sample)], when)
    done, vectors, _ = _embed_all(model, store, ids, progress, "placing papers in meaning")
    _save(store.data_dir / DIRECTORY, model, done, vectors, when)


def _fold_in(store: Store, index: MeaningIndex, arrived: list[str], present: set[str], when: str, progress: Progress | None) -> bool | None:
    """Add the arrived papers' vectors (and drop those of papers no longer cached); None when
    their words have drifted from the model's (a fit is due)."""
    import numpy as np

    done, vectors, unknown = _embed_all(index.model, store, arrived, progress, "placing new papers in meaning")
    if len(done) >= 1_000 and unknown > index.model.unknown_share + DRIFT:
        return None
    kept = [row for row, pid in enumerate(index.ids) if pid in present]
    ids = [index.ids[row] for row in kept] + done
    kept_vectors = np.asarray(index.vectors[kept] if len(kept) < len(index.ids) else index.vectors, dtype=np.float16)
    _save(index.directory, index.model, ids, np.concatenate([kept_vectors, vectors]), index.meta["built"], updated=when)
    return True


def _save(directory: Path, model: Model, ids: list[str], vectors: np.ndarray, built: str, *, updated: str | None = None) -> None:
    import numpy as np

    try:
        directory.mkdir(parents=True, exist_ok=True)
        # meta.json goes last and names the row count: until it is written, the old meta (or none)
        # disagrees with the new files and the index reads as absent, never as a mix.
        (directory / "meta.json").unlink(missing_ok=True)
        model_bytes = io.BytesIO()
        np.savez(
            model_bytes,
            vocabulary=np.array(model.vocabulary),
            idf=np.asarray(model.idf, dtype=np.float32),
            components=np.asarray(model.components, dtype=np.float16),
        )
        write_atomic(directory / "model.npz", model_bytes.getvalue())
        vector_bytes = io.BytesIO()
        np.save(vector_bytes, np.ascontiguousarray(vectors, dtype=np.float16))
        write_atomic(directory / "vectors.npy", vector_bytes.getvalue())
        write_atomic(directory / "ids.json", json.dumps(ids).encode())
        meta = {
            "format": FORMAT,
            "model": "lsa",
            "built": built,
            "updated": updated or built,
            "rows": len(ids),
            "fitted_on": model.fitted_on,
            "unknown_share": model.unknown_share,
            "dimensions": model.dimensions,
            "vocabulary": len(model.vocabulary),
        }
        write_atomic(directory / "meta.json", json.dumps(meta, indent=1).encode())
    except OSError as error:
        raise StoreError(f"cannot write the meaning index in {directory}: {error.strerror or error}") from None


def keep_current(store: Store, progress: Progress | None = None) -> Status | None:
    """After a sync: fold the new papers in (or build the index), in the sync's own process. A
    failure is logged, never the sync's: the vectors are derived and the next sync tries again."""
    from reader import logs

    try:
        return update(store, progress=progress)
    except StoreError as error:
        logs.log.warning("meaning index not updated: %s", error)
        return None
