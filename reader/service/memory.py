"""Giving the heap's free memory back to the system after a burst of large, short-lived
allocations (a start reading the index and mapping the search index's rows): glibc keeps large
freed blocks in the process once its threshold for handing them back has grown, ~40-60 MB of
a start's resident memory at 1,000,000 papers, held for nothing."""

from __future__ import annotations

import ctypes
import ctypes.util

_trim = None  # libc's malloc_trim, looked up at the first call (None: there is none)
_looked = False


def give_back_free_memory() -> None:
    """Return the heap's free pages to the system where the C library can (glibc); else nothing."""
    global _trim, _looked
    if not _looked:
        _looked = True
        name = ctypes.util.find_library("c")
        try:
            _trim = ctypes.CDLL(name).malloc_trim if name else None
        except (OSError, AttributeError):
            _trim = None
    if _trim is not None:
        _trim(0)
