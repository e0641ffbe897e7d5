"""The meaning vectors beside the cache (`meaning/` in the data directory), derived from the shards.

One build's files carry its stamp in their names: `model-STAMP.npz` (the fitted model: its
vocabulary as one string, IDF, directions as float16), `vectors-STAMP.npy` (one unit vector per
paper as 16-bit codes and a scale: quantized.py; memory-mapped when read; float16 in format 2,
still read, written anew by the next update) and `ids-STAMP.txt` (the papers in row order, one a
line, read as packed ids: no string object per paper until one is asked for). `meta.json`,
written last, names the stamp and the row count: the files of a build killed half-way are never
named, so the index read is always one build's whole set (the previous one until the new one is
done), and files of other stamps are swept away once a build's meta is written.

Kept current by build.py (`update`): new papers folded in, the model fitted again when the words
drift. One process builds at a time (a lock beside the files; `building` says whether one is at it).
Search is exact: every vector is compared with the query's (numpy, in blocks)."""

from __future__ import annotations

import json
import mmap
import re
import zipfile
from bisect import bisect_left
from collections.abc import Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reader.errors import StoreError, StoreLockedError
from reader.meaning.model import MIN_PAPERS, Model
from reader.meaning.quantized import Quantized, row_type
from reader.packed_ids import PackedIds
from reader.store.files import file_lock

if TYPE_CHECKING:
    import numpy as np

    from reader.store import Store

FORMAT = 3  # 3: vectors as codes and scales (quantized.py); 2: float16; both: files named by their build's stamp, ids one a line
READ_FORMATS = (2, FORMAT)
DIRECTORY = "meaning"
BLOCK = 16_384  # vectors compared with a query at a time
THREADS = 2  # the blocks compared at once
SEARCHED = 64  # rows found by a search of the ids before a table of them is made

_STAMP = re.compile(r"[0-9a-f]{16}")  # a build's, in its files' names
LOCK = ".build.lock"
BUILDING_NOTE = "being built by another reader process (a sync's): the index as stored answers until it is done"


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


def _consistent(meta: dict, ids: PackedIds, vectors: np.ndarray, model: Model) -> bool:
    """Whether the files read are of the shapes and types search relies on (a file damaged makes
    the index absent, never a crash in a query)."""
    import numpy as np

    rows, words = len(ids), len(model.vocabulary)
    stored = (
        vectors.shape == (rows,) and vectors.dtype == row_type(model.dimensions)
        if meta["format"] == FORMAT
        else vectors.shape == (rows, model.dimensions) and vectors.dtype == np.float16
    )
    return (
        meta.get("rows") == rows
        and stored
        and model.components.ndim == 2
        and model.components.shape[1] == words
        and model.idf.shape == (words,)
    )


def files(directory: Path, stamp: str) -> tuple[Path, Path, Path]:
    """A build's model, vectors and ids files."""
    return directory / f"model-{stamp}.npz", directory / f"vectors-{stamp}.npy", directory / f"ids-{stamp}.txt"


def _packed(blob: bytes) -> PackedIds | None:
    """The ids of an ids file (one a line), packed; None when it is no such list."""
    blob.decode("utf-8")  # (UnicodeDecodeError, a ValueError, when damaged: asked later, it would stop a query)
    return PackedIds.lines(blob) if blob else None


class MeaningVectors:
    """The stored vectors and model, read-only; `update` makes a new one."""

    def __init__(
        self, directory: Path, model: Model, ids: PackedIds, vectors: np.ndarray | Quantized, meta: dict, mapping: mmap.mmap | None = None
    ):
        self.directory = directory
        self._mapping = mapping  # the vectors file's, when `vectors` is read through it
        self.model = model
        self.ids = ids
        self.vectors = vectors  # row order; float32 where asked (np.asarray, astype)
        self.meta = meta
        self._rows: dict[str, int] | None = None
        self._searched = 0  # rows found by searching the ids' bytes, before a table is made

    @classmethod
    def open(cls, data_dir: Path) -> MeaningVectors | None:
        """The stored index, or None when there is none whole (never built, damaged, another format)."""
        import numpy as np

        directory = data_dir / DIRECTORY
        try:
            meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
            if not isinstance(meta, dict) or meta.get("format") not in READ_FORMATS or not _STAMP.fullmatch(str(meta.get("stamp"))):
                return None
            model_file, vectors_file, ids_file = files(directory, meta["stamp"])
            ids = _packed(ids_file.read_bytes())
            vectors, mapping = _mapped(vectors_file)
            with np.load(model_file, allow_pickle=False) as stored:
                vocabulary = stored["vocabulary"]
                if vocabulary.shape != () or vocabulary.dtype.kind != "U":
                    return None
                model = Model(
                    vocabulary=str(vocabulary).split("\n"),
                    idf=stored["idf"],
                    components=stored["components"],
                    built=meta["built"],
                    fitted_on=meta["fitted_on"],
                    unknown_share=meta["unknown_share"],
                    stop=frozenset(str(stored["stop"]).split("\n")),
                )
            whole = ids is not None and _consistent(meta, ids, vectors, model)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError, zipfile.BadZipFile):
            return None
        if not whole or ids is None:
            return None
        return cls(directory, model, ids, Quantized.of(vectors) if meta["format"] == FORMAT else vectors, meta, mapping)

    def row(self, paper_id: str) -> int | None:
        """The paper's row (None: it has no vector). Ids stored in order are found by a binary
        search (~20 ids decoded, at 1,000,000 papers too). Ids of an index written before they
        were (meta "sorted" absent): the first few by a search of the ids' bytes (a query's hits:
        ~0.2 ms each at 100,000 papers, where a table of every id takes ~100 ms to make); more,
        from the table."""
        if self.meta.get("sorted") is True:
            at = bisect_left(self.ids, paper_id)
            return at if at < len(self.ids) and self.ids[at] == paper_id else None
        if self._rows is not None or self._searched >= SEARCHED:
            return self._table().get(paper_id)
        self._searched += 1
        blob, wanted = self.ids.blob.obj, paper_id.encode()
        assert isinstance(blob, bytes)
        if b"\n" in wanted:
            return None
        if blob.startswith(wanted + b"\n") or blob == wanted:
            return 0
        at = blob.find(b"\n" + wanted + b"\n")
        if at < 0:
            return len(self.ids) - 1 if blob.endswith(b"\n" + wanted) else None
        return blob.count(b"\n", 0, at + 1)

    def holding(self, paper_ids: Collection[str]) -> np.ndarray:
        """Which rows are of these papers (a bool per row): a few are found one by one, many by
        one pass over the ids (a topic of 100,000 papers: no table of every id kept)."""
        import numpy as np

        if len(paper_ids) <= SEARCHED or self.meta.get("sorted") is True and len(paper_ids) * 64 < len(self.ids):
            keep = np.zeros(len(self.ids), dtype=bool)
            keep[[row for pid in paper_ids if (row := self.row(pid)) is not None]] = True
            return keep
        wanted = paper_ids if isinstance(paper_ids, (set, frozenset, dict)) else set(paper_ids)
        return np.fromiter(map(wanted.__contains__, self.ids), dtype=bool, count=len(self.ids))

    def _table(self) -> dict[str, int]:
        # A dict, not packed_ids' IdTable: made ~5x faster, and a topic's 100,000 ids are looked up in a few ms.
        if self._rows is None:
            self._rows = {pid: i for i, pid in enumerate(self.ids)}
        return self._rows

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Cosine of every stored paper with the unit vector `query` (float32, row order): blocks
        compared in two threads (numpy lets go of the GIL), summed in float32 as read (an older
        index's float16 rows too: no block made float32 first)."""
        import numpy as np

        out = np.empty(len(self.ids), dtype=np.float32)
        vectors = self.vectors

        def compare(start: int) -> None:
            block = vectors[start : start + BLOCK]
            out[start : start + BLOCK] = (
                block.dot(query) if isinstance(block, Quantized) else np.einsum("ij,j->i", block, query, dtype=np.float32)
            )

        starts = range(0, len(self.ids), BLOCK)
        if len(starts) < 2:
            for start in starts:
                compare(start)
        else:
            with ThreadPoolExecutor(THREADS) as pool:
                list(pool.map(compare, starts))
        self._release()
        return out

    def _release(self) -> None:
        """Let go of the vectors' pages a scan mapped in (Linux): they stay in the page cache,
        read again by the next scan in a few ms, but leave the process's resident memory (512 MB
        at 1,000,000 papers, which a long-lived app would otherwise show as its own)."""
        if self._mapping is not None and hasattr(mmap, "MADV_DONTNEED"):
            try:
                self._mapping.madvise(mmap.MADV_DONTNEED)
            except (OSError, ValueError):  # (a closed map, a system without it: the pages stay)
                pass

    def nearest(
        self, query: np.ndarray, limit: int, *, among: Collection[str] | None = None, leave_out: Collection[str] = ()
    ) -> list[tuple[str, float]]:
        """The `limit` papers nearest `query`, best first (ties by id): of `among` when given,
        never those in `leave_out`."""
        import numpy as np

        scores = self.scores(query)
        if among is not None:
            scores[~self.holding(among)] = -np.inf
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
        size = _size(self.directory)
        meta, model = self.meta, self.model
        return Status(len(self.ids), cached, meta["updated"], model.fitted_on, len(model.vocabulary), model.dimensions, size, "")


def _mapped(path: Path) -> tuple[np.ndarray, mmap.mmap]:
    """The .npy file's array, read-only through a map of the file kept for `_release`."""
    import numpy as np

    with open(path, "rb") as handle:
        version = np.lib.format.read_magic(handle)
        if version not in ((1, 0), (2, 0)):
            raise ValueError(f"npy version {version}")
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran_order, dtype = read_header(handle)
        offset = handle.tell()
        if fortran_order or dtype.hasobject:
            raise ValueError("not a C-ordered array of numbers")
        mapping = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    return np.ndarray(shape, dtype=dtype, buffer=mapping, offset=offset), mapping


def _size(directory: Path) -> int:
    """The bytes of the index's files, those a build sweeps away meanwhile left out."""
    total = 0
    try:
        for path in directory.iterdir():
            try:
                total += path.stat().st_size if path.is_file() else 0
            except OSError:
                continue
    except OSError:
        return 0
    return total


def stored(data_dir: Path) -> Status:
    """What the stored index says of itself (its meta.json alone: nothing else is read, and no
    cache is opened); `cached` is unknown (0)."""
    directory = data_dir / DIRECTORY
    try:
        meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
        size = _size(directory)
        return Status(meta["rows"], 0, meta["updated"], meta["fitted_on"], meta["vocabulary"], meta["dimensions"], size, "")
    except (OSError, ValueError, KeyError, TypeError):
        return Status(0, 0, None, 0, 0, 0, 0, "not built: words answer `reader find` until a sync or `reader index --rebuild` builds it")


def status(store: Store) -> Status:
    cached = len(store.index_order().ids)
    index = MeaningVectors.open(store.data_dir)
    if index is None:
        if cached < MIN_PAPERS:
            note = too_small_note(cached)
        elif building(store.data_dir):
            note = "being built now (after a sync, in the background): words answer until it is done"
        else:
            note = "not built yet: `reader index --rebuild` builds it (a sync does too)"
        return Status(0, cached, None, 0, 0, 0, 0, note)
    return index.status(cached)


def building(data_dir: Path) -> bool:
    """Whether a process is building the meaning index now (it holds the build lock)."""
    if not (data_dir / DIRECTORY / LOCK).exists():
        return False
    try:
        with file_lock(data_dir / DIRECTORY / LOCK, wait=0, what="meaning"):
            return False
    except StoreLockedError:
        return True
    except StoreError:
        return False
