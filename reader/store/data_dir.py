"""What a data directory is: the shard file each paper id lives in, and the names that mark a
directory as one (a directory holding other files and none of these is refused)."""

from __future__ import annotations

import os
from pathlib import Path

from reader.errors import StoreError
from reader.store.library_state import LIBRARY_FILES


def shard_of(arxiv_id: str) -> str:
    """The id's month and thousand: `2609.12345` -> `2609.12`, `hep-th/9901001` -> `9901.0`."""
    if "/" in arxiv_id:
        number = arxiv_id.split("/", 1)[1]
        return f"{number[:4]}.{number[4]}"
    month, _, number = arxiv_id.partition(".")
    return f"{month}.{number[:-3]}"


# What a data directory holds: a directory with other files and none of these is not one.
OWN_NAMES = (
    frozenset(
        {
            "user.json",
            "user.json.bak",
            "sync.json",
            "index.json",
            "index.log",
            "index.columns",
            "papers",
            "keymap.toml",
            ".lock",
            ".user.lock",
            ".sync.lock",
        }
    )
    | LIBRARY_FILES
)


def refuse_foreign_directory(data_dir: Path) -> None:
    """A mistyped --data-dir (`/`, a home or project folder) must not fill it with cache files."""
    try:
        names = {entry.name for entry in os.scandir(data_dir)}
    except (FileNotFoundError, NotADirectoryError):
        return  # Store creates it (or reports the system's reason it cannot)
    except OSError as error:
        raise StoreError(f"cannot read the data directory {data_dir}: {error.strerror}") from None
    if names and not names & OWN_NAMES:
        raise StoreError(f"{data_dir} is not a reader data directory (it holds other files): give a new or empty directory")
