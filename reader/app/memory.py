"""The garbage collector and the app's large, long-lived data.

A full pass of Python's collector walks every tracked object: with a 100,000-paper cache loaded
(lists of 100,000 ids, a ranking of as many), one pass held the UI's thread 40-90 ms, at moments
no one chose (a key, an opening of the detail view). Once such data is in place, the app freezes
what it holds (gc.freeze): full passes skip it from then on. Frozen objects are still freed by
reference counting when replaced; only reference cycles among them stay (a few closed widgets
per freeze), so the garbage made before a reload is collected first (`collect_before_reload`:
what is frozen is not walked, so that pass is short)."""

from __future__ import annotations

import gc


def keep_loaded() -> None:
    """Call once large data the app keeps has been put in place (the cache loaded or reloaded,
    a ranking taken in)."""
    gc.freeze()


def collect_before_reload() -> None:
    """Call before reading the cache again: the garbage made since goes now, not frozen."""
    gc.collect()


def give_back_freed() -> None:
    """Call in a worker after a large passing job (an export of thousands of records): the C
    allocator keeps what Python freed for reuse, and an export of 15,000 papers left the app
    130 MB larger for good. Asks it to give that back to the system (glibc only; ~10 ms)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # another C library: nothing to ask
        pass


M_ARENA_MAX = -8  # glibc's mallopt parameter
ARENAS = 2


def share_arenas() -> None:
    """Call once as the app starts, before its threads: glibc gives a thread that meets another
    in the allocator an arena of its own, and what the search threads free in theirs (numpy's
    arrays of a million ids, mapping the search rows) malloc_trim cannot give back: ~50 MB of the
    app's memory at 1,000,000 papers. Two arenas, shared by every thread, are trimmed whole."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(M_ARENA_MAX, ARENAS)
    except (OSError, AttributeError):  # another C library: nothing to ask
        pass
