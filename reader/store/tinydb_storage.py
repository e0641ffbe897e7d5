"""TinyDB's storage for sync.json (sync_file.py), in a module of its own: importing tinydb costs
every command's start a few ms, and a mark or a listing never writes sync.json."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tinydb.storages import Storage

from reader.store.files import read_checked, write_json_atomic


class AtomicJSONStorage(Storage):
    """A TinyDB storage whose every write is atomic (files.py) and whose every read is checked
    by `check` (schema.py): CorruptFileError when the file has the wrong shape."""

    def __init__(self, path: str | Path, check: Callable[[dict], object] | None = None):
        self.path = Path(path)
        self._check = check

    def read(self) -> dict[str, dict[str, Any]] | None:
        return read_checked(self.path, self._check)

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        write_json_atomic(self.path, data)

    def close(self) -> None:
        pass
