"""The fingerprints of the entries reader wrote into the user's files (`written.json`), so that a
later export onto one of them tells reader's entries from the user's (core/ownership.py).

A damaged or missing record only makes reader see more entries as the user's, which keeps them:
it is never repaired from a copy, only written again. It keeps the newest LIMIT fingerprints.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from reader.errors import StoreError
from reader.safe_files import UnsafeFileError, read_regular
from reader.store.files import file_lock, write_json_atomic

WRITTEN_FILE = "written.json"
LIMIT = 200_000  # fingerprints: about 7 MB, some years of exports
_MAX_BYTES = 64 * LIMIT


def written_fingerprints(data_dir: Path) -> set[str]:
    """Every entry fingerprint recorded; none when the record is missing or damaged."""
    return set(_read(data_dir / WRITTEN_FILE))


def record_written(data_dir: Path, fingerprints: Iterable[str], *, lock_wait: float = 10.0) -> None:
    """Add what was just written (newest last), under a lock: two exports at once lose nothing."""
    new = list(fingerprints)
    if not new:
        return
    path = data_dir / WRITTEN_FILE
    with file_lock(data_dir / ".written.lock", wait=lock_wait, what="recording an export"):
        kept = dict.fromkeys(_read(path))
        for print_ in new:
            kept.pop(print_, None)
            kept[print_] = None
        write_json_atomic(path, {"fingerprints": list(kept)[-LIMIT:]})


def _read(path: Path) -> list[str]:
    try:
        raw = read_regular(path, _MAX_BYTES)
    except (FileNotFoundError, UnsafeFileError):
        return []  # missing, or not a file to read (a pipe, a device, far too large): no record
    except OSError as error:
        raise StoreError(f"cannot read {path}: {error.strerror}") from None
    try:
        found = json.loads(raw)["fingerprints"]
    except (ValueError, TypeError, KeyError):
        return []
    return [item for item in found if isinstance(item, str)] if isinstance(found, list) else []
