"""Every shard's document counts summed, in one file (papers/total.counts): a first ranking reads
it instead of ~1,000 counts files (69 MB at 1,000,000 papers), and hashes no id for the
background.

It names each shard it sums with the shard's stamp (modification time and size) when its counts
were taken, so it is trusted only while those are the shards there are now; a shard changed,
added or gone makes it stale, and the first ranking then sums the shards' own counts files and
writes it again (service/first_rank.py). A sync updates it for the shards it wrote (their old
counts taken out, the new put in: store/shard_features.py), when the file named them as they
were before.

The background (the unmarked papers whose ids hash lowest: core/ranking.py) comes from the
papers it keeps: every paper whose sample key is below `bound`, ~SAMPLED of them; when too many
of those are marked, the caller hashes every id as before.

Layout: MAGIC, a head (featurizer, bits, shards, sampled papers, bound), per shard its name
(16 bytes), stamp and papers (int64 each), the documents per column (uint32, COLUMNS of them),
the sampled papers' ids (32 bytes each) and keys (uint64), a CRC-32 of all before it."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Collection, Iterable
from typing import Any

from reader.core.features import BITS, COLUMNS, FEATURIZER
from reader.core.shard_counts import ShardCounts

MAGIC = b"reader counts total 1\n"
SAMPLED = 8_000  # papers kept for the background (of which BACKGROUND are taken): room for marked ones
_HEAD = struct.Struct("<IIIIQ")  # featurizer, bits, shards, sampled, bound
_SHARD = struct.Struct("<16sqqq")  # name, stamp (mtime ns, size), papers
_CRC = struct.Struct("<I")
_ID = 32  # bytes an id is kept in (arXiv's longest, old-style, are 17 or so)
_EVERY = (1 << 64) - 1  # the bound when every paper is kept
FILE_BYTES = 4 * COLUMNS + (1 << 24)  # the most it can hold, for the read's bound

Stamp = tuple[int, int]


class CountsTotal:
    """The shards summed (name -> (stamp, papers)), the documents per column, the sampled papers."""

    def __init__(self, shards: dict[str, tuple[Stamp, int]], documents: Any, sampled: dict[str, int], bound: int):
        self.shards, self.documents, self.sampled, self.bound = shards, documents, sampled, bound

    @classmethod
    def of(cls, parts: Iterable[tuple[str, Stamp, ShardCounts]], ids: list[str], keys: Any) -> CountsTotal:
        """Summed from every shard's counts; `ids` are every shard's papers, `keys` their sample keys."""
        import numpy as np

        shards: dict[str, tuple[Stamp, int]] = {}
        documents = np.zeros(COLUMNS, dtype=np.uint32)
        for name, stamp, counts in parts:
            shards[name] = (stamp, counts.papers)
            documents[counts.columns] += counts.counts
        if len(ids) > SAMPLED:
            bound = int(np.partition(keys, SAMPLED)[SAMPLED])  # the SAMPLED lowest keys are below it
        else:
            bound = _EVERY
        kept = np.flatnonzero(keys < np.uint64(bound))
        return cls(shards, documents, {ids[i]: int(keys[i]) for i in kept.tolist()}, bound)

    @classmethod
    def empty(cls) -> CountsTotal:
        """Of no shard yet (a sync into an empty data directory starts one)."""
        import numpy as np

        return cls({}, np.zeros(COLUMNS, dtype=np.uint32), {}, _EVERY)

    @property
    def papers(self) -> int:
        return sum(papers for _, papers in self.shards.values())

    def is_of(self, stamps: dict[str, Stamp]) -> bool:
        """Whether it sums exactly these shards as they are now."""
        return len(stamps) == len(self.shards) and all(self.shards.get(name, (None,))[0] == stamp for name, stamp in stamps.items())

    def replace(
        self,
        name: str,
        was: Stamp | None,
        old: ShardCounts | None,
        old_ids: list[str],
        now: Stamp,
        new: ShardCounts,
        ids: list[str],
        keys: Any,
    ) -> bool:
        """The shard's counts as `was` (None: a new shard; `old_ids` its papers then) replaced by
        those as `now` (`ids`, `keys`: its papers now); False, changing nothing, when this total
        did not hold it as `was`."""
        held = self.shards.get(name)
        if (held is None) != (was is None) or (held is not None and (held[0] != was or old is None or old.papers != held[1])):
            return False
        if old is not None:
            self.documents[old.columns] -= old.counts.astype(self.documents.dtype)
        self.documents[new.columns] += new.counts.astype(self.documents.dtype)
        self.shards[name] = (now, new.papers)
        for pid in (*old_ids, *ids):
            self.sampled.pop(pid, None)
        self.sampled.update((pid, int(key)) for pid, key in zip(ids, keys.tolist()) if key < self.bound)
        if len(self.sampled) > 2 * SAMPLED:  # a lower bound: every paper below it is still kept
            self.bound = sorted(self.sampled.values())[SAMPLED]
            self.sampled = {pid: key for pid, key in self.sampled.items() if key < self.bound}
        return True

    def background(self, count: int, marked: Collection[str]) -> list[str] | None:
        """The `count` unmarked papers whose keys are lowest, as ranking._training_set takes them;
        None when too few of the kept papers are unmarked to be sure of it."""
        unmarked = sorted((key, pid) for pid, key in self.sampled.items() if pid not in marked)
        if len(unmarked) < count and self.bound != _EVERY:  # (unless it keeps every paper)
            return None
        return [pid for _, pid in unmarked[:count]]


def encode(total: CountsTotal) -> bytes | None:
    """None when an id or a shard's name is too long to keep (then no total is kept: the first
    ranking sums the shards' counts files, as before)."""
    import numpy as np

    ids = list(total.sampled)
    if any(len(pid.encode()) > _ID for pid in ids) or any(len(name.encode()) > 16 for name in total.shards):
        return None
    parts = [MAGIC, _HEAD.pack(FEATURIZER, BITS, len(total.shards), len(ids), total.bound)]
    parts += [_SHARD.pack(name.encode(), stamp[0], stamp[1], papers) for name, (stamp, papers) in total.shards.items()]
    parts.append(total.documents.astype("<u4").tobytes())
    parts.append(np.array([pid.encode() for pid in ids], dtype=f"S{_ID}").tobytes())
    parts.append(np.array([total.sampled[pid] for pid in ids], dtype="<u8").tobytes())
    body = b"".join(parts)
    return body + _CRC.pack(zlib.crc32(body))


def decode(raw: bytes) -> CountsTotal | None:
    """None for anything not whole and ours (a derived file: the caller sums the shards again)."""
    import numpy as np

    at = len(MAGIC) + _HEAD.size
    if not raw.startswith(MAGIC) or len(raw) < at + _CRC.size or zlib.crc32(raw[: -_CRC.size]) != _CRC.unpack(raw[-_CRC.size :])[0]:
        return None
    featurizer, bits, count, sampled, bound = _HEAD.unpack_from(raw, len(MAGIC))
    if (featurizer, bits) != (FEATURIZER, BITS) or len(raw) != at + _SHARD.size * count + 4 * COLUMNS + (_ID + 8) * sampled + _CRC.size:
        return None
    shards: dict[str, tuple[Stamp, int]] = {}
    for name, mtime, size, papers in _SHARD.iter_unpack(raw[at : at + _SHARD.size * count]):
        try:
            shards[name.rstrip(b"\0").decode()] = ((mtime, size), papers)
        except UnicodeDecodeError:
            return None
    at += _SHARD.size * count
    documents = np.frombuffer(raw, dtype="<u4", count=COLUMNS, offset=at).astype(np.uint32)
    at += 4 * COLUMNS
    try:
        ids = [pid.decode() for pid in np.frombuffer(raw, dtype=f"S{_ID}", count=sampled, offset=at).tolist()]
    except UnicodeDecodeError:
        return None
    keys = np.frombuffer(raw, dtype="<u8", count=sampled, offset=at + _ID * sampled).tolist()
    if len(shards) != count or any(papers < 0 for _, papers in shards.values()) or any(key >= bound for key in keys):
        return None
    return CountsTotal(shards, documents, dict(zip(ids, keys)), bound)
