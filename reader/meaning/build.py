"""Building the meaning vectors (meaning/vectors.py says what they are): `update` folds the
papers that arrived since into the fitted directions (a few seconds for 10,000), or fits the model
again when the papers' words have drifted from the vocabulary it learned, or when the cache has
doubled since a fit on fewer than FIT_SAMPLE papers. One process builds at a time (the lock
beside the files); a build's files are written under a new stamp and named by meta.json last."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import random
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from reader.errors import StoreError, StoreLockedError
from reader.meaning.model import FIT_SAMPLE, MIN_PAPERS, Model, fit
from reader.meaning.quantized import Quantized, quantize, row_type
from reader.meaning.vectors import BUILDING_NOTE, DIRECTORY, FORMAT, LOCK, MeaningVectors, Status, files, too_small_note
from reader.packed_ids import PackedIds, gather
from reader.store.files import file_lock, write_atomic

if TYPE_CHECKING:
    import numpy as np

    from reader.meaning.place import Progress
    from reader.store import Store

WRITE_ROWS = 65_536  # vectors written at a time (34 MB)
DRIFT = 0.10  # new papers with this much more unknown words than the fit's sample: fit again
BUILD_WAIT = 3600.0  # seconds a sync's update waits for another process's build (a first one at 1,000,000 papers)


def update(
    store: Store,
    *,
    rebuild: bool = False,
    progress: Progress | None = None,
    now: datetime | None = None,
    wait: float = 0,
) -> tuple[Status, MeaningVectors | None]:
    """Bring the meaning index up to date with the cache: fold in the papers that arrived, or
    build it whole (`rebuild`, none yet, or the words drifted). A cache of fewer than MIN_PAPERS
    papers gets none (Status.note says so). Returns the Status and the index as it left it
    (None: words answer), opened once. When another process is building (its lock held longer
    than `wait` seconds), the index as stored answers, and the Status says so."""
    cached_ids = store.index_order().ids
    cached = len(cached_ids)
    if cached < MIN_PAPERS:
        return Status(0, cached, None, 0, 0, 0, 0, too_small_note(cached)), None
    fingerprint = _fingerprint(cached_ids)
    index = None if rebuild else MeaningVectors.open(store.data_dir)
    if index is not None and index.meta.get("cache") == fingerprint:  # made from these very papers: no set of ids needed
        return index.status(cached), index
    try:
        with _build_lock(store.data_dir, wait):
            index = None if rebuild else MeaningVectors.open(store.data_dir)  # (another process may have just built it)
            _bring_up_to_date(
                store, index, list(cached_ids), fingerprint, (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ"), progress
            )
    except StoreLockedError:
        if index is None:
            return Status(0, cached, None, 0, 0, 0, 0, BUILDING_NOTE), None
        return dataclasses.replace(index.status(cached), note=BUILDING_NOTE), index
    index = MeaningVectors.open(store.data_dir)
    return (
        (index.status(cached), index)
        if index is not None
        else (Status(0, cached, None, 0, 0, 0, 0, "was written but cannot be read back: words answer"), None)
    )


def _bring_up_to_date(
    store: Store, index: MeaningVectors | None, cached: list[str], fingerprint: str, when: str, progress: Progress | None
) -> None:
    if index is None:
        _build(store, cached, fingerprint, when, progress)
        return
    present = set(cached)
    have = set(index.ids)
    arrived = [pid for pid in cached if pid not in have]
    if not arrived and have <= present:
        return
    folded = None
    if index.model.fitted_on >= min(FIT_SAMPLE, len(cached) / 2):
        folded = _fold_in(store, index, arrived, present, fingerprint, when, progress)
    if folded is None:
        _build(store, cached, fingerprint, when, progress)


def _fingerprint(ids: Sequence[str]) -> str:
    """The cache's ids as the index was made from them: their count and a checksum of them in
    order (a few milliseconds for 100,000 packed ids)."""
    blob = bytes(ids.blob) if isinstance(ids, PackedIds) else "\n".join(ids).encode()
    return f"{len(ids)}:{zlib.crc32(blob):08x}"


@contextmanager
def _build_lock(data_dir: Path, wait: float) -> Iterator[None]:
    directory = data_dir / DIRECTORY
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(f"cannot write the meaning index in {directory}: {error.strerror or error}") from None
    with file_lock(directory / LOCK, wait=wait, what="cannot build the meaning index"):
        yield


def _build(store: Store, cached: list[str], fingerprint: str, when: str, progress: Progress | None) -> None:
    from reader.meaning import place  # (its worker processes' imports: never a query's, which only reads the index)

    ids = sorted(cached)
    sample = ids if len(ids) <= FIT_SAMPLE else sorted(random.Random(0).sample(ids, FIT_SAMPLE))
    if progress is not None:
        progress("learning meaning from a sample of papers", 0, len(sample))
    model = fit([text for _, text in place.texts(store, sample)], when)
    done, vectors, _ = place.place(model, store, ids, progress, "placing papers in meaning")
    _save(store.data_dir / DIRECTORY, model, done, [vectors], fingerprint, when)


def _fold_in(
    store: Store, index: MeaningVectors, arrived: list[str], present: set[str], fingerprint: str, when: str, progress: Progress | None
) -> bool | None:
    """Add the arrived papers' vectors (and drop those of papers no longer cached); None when
    their words have drifted from the model's (a fit is due)."""
    from reader.meaning import place

    done, vectors, unknown = place.place(index.model, store, arrived, progress, "placing new papers in meaning")
    if len(done) >= 1_000 and unknown > index.model.unknown_share + DRIFT:
        return None
    kept = [row for row, pid in enumerate(index.ids) if pid in present]
    ids = gather(index.ids, kept) + done
    kept_vectors = index.vectors[kept] if len(kept) < len(index.ids) else index.vectors  # (all kept: read from the map as written)
    _save(index.directory, index.model, ids, [kept_vectors, vectors], fingerprint, index.meta["built"], updated=when)
    return True


def _save(
    directory: Path,
    model: Model,
    ids: list[str],
    vectors: Sequence[np.ndarray | Quantized],
    fingerprint: str,
    built: str,
    *,
    updated: str | None = None,
) -> None:
    """Write a build's files under a new stamp, then the meta naming it (the build is whole from
    that moment), then sweep away every other build's files and what a killed write left.
    `vectors`: parts, rows one after the other (float16 or float32, or stored rows: written as
    they are coded), written a block at a time (at 1,000,000 papers they are 516 MB)."""
    import numpy as np

    order = _id_order(ids)
    if order is not None:
        ids = gather(ids, order.tolist())
    stamp = os.urandom(8).hex()  # (secrets would cost a query ~30 ms to import)
    model_file, vectors_file, ids_file = files(directory, stamp)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        model_bytes = io.BytesIO()
        np.savez(
            model_bytes,
            vocabulary=np.array("\n".join(model.vocabulary)),  # one string: read back by one split, not 12,000 objects
            idf=np.asarray(model.idf, dtype=np.float32),
            stop=np.array("\n".join(sorted(model.stop))),
            components=np.asarray(model.components, dtype=np.float16),
        )
        write_atomic(model_file, model_bytes.getvalue())
        write_atomic(vectors_file, _npy_parts(vectors, model.dimensions, order))
        write_atomic(ids_file, "\n".join(ids).encode())
        meta = {
            "format": FORMAT,
            "stamp": stamp,
            "model": "lsa",
            "built": built,
            "updated": updated or built,
            "rows": len(ids),
            "sorted": True,  # the ids in order: a paper's row is found by a binary search (vectors.py)
            "cache": fingerprint,
            "fitted_on": model.fitted_on,
            "unknown_share": model.unknown_share,
            "dimensions": model.dimensions,
            "vocabulary": len(model.vocabulary),
        }
        write_atomic(directory / "meta.json", json.dumps(meta, indent=1).encode())
    except OSError as error:
        raise StoreError(f"cannot write the meaning index in {directory}: {error.strerror or error}") from None
    keep = {"meta.json", LOCK, model_file.name, vectors_file.name, ids_file.name}
    try:
        for path in directory.iterdir():
            if path.name not in keep and not path.is_dir():
                path.unlink(missing_ok=True)  # (a reader holding the old vectors mapped keeps reading them)
    except OSError as error:  # the build is whole; what is left is swept by the next one
        from reader import logs

        logs.log.warning("meaning index: old files not removed from %s: %s", directory, error.strerror or error)


def _id_order(ids: list[str]) -> np.ndarray | None:
    """The rows of `ids` in the ids' sorted order (None: they are in order already)."""
    import numpy as np

    keys = np.array([pid.encode() for pid in ids], dtype=bytes)  # (UTF-8 bytes sort as their strings do)
    if len(keys) < 2 or bool(np.all(keys[:-1] <= keys[1:])):
        return None
    return np.argsort(keys, kind="stable")


def _coded(rows: np.ndarray | Quantized) -> tuple[np.ndarray, np.ndarray]:
    """Rows' codes and scales: those of rows stored so (kept bit for bit), or of vectors."""
    return (rows.codes, rows.scales) if isinstance(rows, Quantized) else quantize(rows)


def _npy_parts(parts: Sequence[np.ndarray | Quantized], dimensions: int, order: np.ndarray | None) -> Iterator[bytes | memoryview]:
    """An .npy file of the parts' rows (codes and scales, quantized.py), one part after the other,
    or taken in `order` (rows of the parts as one): its header, then a block of rows at a time."""
    import numpy as np

    header = io.BytesIO()
    rows = sum(len(part) for part in parts)
    stored = row_type(dimensions)
    np.lib.format.write_array_header_1_0(header, {"descr": np.lib.format.dtype_to_descr(stored), "fortran_order": False, "shape": (rows,)})
    yield header.getvalue()
    if order is None:
        for part in parts:
            for start in range(0, len(part), WRITE_ROWS):
                block = np.empty(min(WRITE_ROWS, len(part) - start), dtype=stored)
                block["codes"], block["scale"] = _coded(part[start : start + WRITE_ROWS])
                yield block.data.cast("B")
        return
    firsts = np.cumsum([0] + [len(part) for part in parts])
    for start in range(0, rows, WRITE_ROWS):
        wanted = order[start : start + WRITE_ROWS]
        block = np.empty(len(wanted), dtype=stored)
        which = np.searchsorted(firsts, wanted, side="right") - 1
        for i, part in enumerate(parts):
            places = np.flatnonzero(which == i)
            local = wanted[places] - firsts[i]
            ascending = np.argsort(local)  # a part's rows read in file order (a mapped file's pages once)
            block["codes"][places[ascending]], block["scale"][places[ascending]] = _coded(part[local[ascending]])
        yield block.data.cast("B")


def keep_current(store: Store, progress: Progress | None = None, *, wait: float = BUILD_WAIT) -> Status | None:
    """After a sync: fold the new papers in (or build the index), in the sync's own process,
    after any build another process is at (waited for up to `wait` seconds; then its Status's
    note says so). A failure is logged, never the sync's: the vectors are derived and the next
    sync tries again."""
    from reader import logs

    try:
        return update(store, progress=progress, wait=wait)[0]
    except StoreError as error:
        logs.log.warning("meaning index not updated: %s", error)
        return None
