"""The meaning index kept open by a long-lived holder (the app's service, For you's ranking
process): opened once (its vectors memory-mapped), opened again only when its meta.json changes,
which an update writes last."""

from __future__ import annotations

import threading
from pathlib import Path

from reader.meaning.vectors import DIRECTORY, MeaningVectors

Stamp = tuple[int, int] | None  # meta.json's modification time and size (None: there is none)


class KeptVectors:
    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self._kept: tuple[Stamp, MeaningVectors | None] | None = None
        self._lock = threading.Lock()

    def get(self) -> MeaningVectors | None:
        """The index as stored now (None: not built, or damaged)."""
        try:
            info = (self.data_dir / DIRECTORY / "meta.json").stat()
            stamp: Stamp = (info.st_mtime_ns, info.st_size)
        except OSError:
            stamp = None
        with self._lock:
            if self._kept is None or self._kept[0] != stamp:
                self._kept = (stamp, MeaningVectors.open(self.data_dir) if stamp is not None else None)
            return self._kept[1]
