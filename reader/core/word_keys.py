"""Stable 64-bit keys of words and names, for For you's hashed columns (core/features.py): one at
a time in plain Python (`word_key`, the reference), or a whole block's words at once in numpy
(`block_word_keys`: a dict lookup per word cost ~55 ms per 1,000 papers, a third of a sync's
counting).

A key mixes the text's UTF-8 bytes eight at a time (little-endian, the last eight padded with
zeros) into a seed holding the length, each step by splitmix64's finalizer: a bijection of 64
bits, so distinct texts collide about as often as random keys. Python's own `hash` changes from
run to run; these never do (saved features depend on them: FEATURIZER names this scheme).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from reader.core.stop_words import STOP_WORDS

_MASK = (1 << 64) - 1
_SEED = 0x452821E638D01377
STOP_SLOT_BITS = 14
STOP_SLOTS = 1 << STOP_SLOT_BITS  # 128 KB: a table the few hundred stop words rarely share a slot of


def word_key(text: str) -> int:
    """The key of one word or name (what `block_word_keys` computes for each word of a block)."""
    data = text.encode()
    key = _SEED ^ len(data)
    for at in range(0, len(data), 8):
        key = _mixed_int(key ^ int.from_bytes(data[at : at + 8], "little"))
    return key


def _mixed_int(key: int) -> int:
    key = ((key ^ (key >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    key = ((key ^ (key >> 27)) * 0x94D049BB133111EB) & _MASK
    return key ^ (key >> 31)


def mixed(keys: Any) -> Any:
    """splitmix64's finalizer over a numpy uint64 array: every bit of the input moves about half
    the output's (call under `np.errstate(over="ignore")`: it multiplies modulo 2**64)."""
    import numpy as np

    keys = (keys ^ (keys >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    keys = (keys ^ (keys >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return keys ^ (keys >> np.uint64(31))


def block_word_keys(texts: Sequence[str]) -> tuple[Any, Any, Any] | None:
    """Each word of `texts` (words separated by spaces) in order: its key, whether it counts (not
    a stop word: core/terms.py's `is_stop`) and the index of its text, as numpy arrays. None when
    a text holds other than ASCII words and spaces (the caller keys its words one at a time)."""
    import numpy as np

    joined = " ".join(texts)
    if not joined.isascii():
        return None
    size = len(joined)
    raw = np.frombuffer(joined.encode("ascii") + bytes(8), dtype=np.uint8)  # padded: every word's last 8 bytes readable
    if size and raw[:size].min() < 32:  # a control character (tabs and line ends among them): not words and spaces
        return None
    letters = raw[:size] != 32
    edges = np.diff(np.concatenate(([False], letters, [False])).astype(np.int8))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    lengths = ends - starts
    keys = np.uint64(_SEED) ^ lengths.astype(np.uint64)
    windows = np.lib.stride_tricks.sliding_window_view(raw, 8)
    with np.errstate(over="ignore"):
        for at in range(0, int(lengths.max(initial=0)), 8):
            live = np.flatnonzero(lengths > at) if at else np.arange(len(starts))
            chunks = np.ascontiguousarray(windows[starts[live] + at]).view("<u8").ravel()
            chunks &= _tail_masks()[np.minimum(lengths[live] - at, 8)]
            keys[live] = mixed(keys[live] ^ chunks)
    # Stop words: single characters, bare numbers and the listed words (by key).
    not_digits = np.zeros(size + 1, dtype=np.int32)
    np.cumsum((raw[:size] < 48) | (raw[:size] > 57), out=not_digits[1:])
    slots, shift = _stop_slots()
    stop = (lengths < 2) | (not_digits[ends] == not_digits[starts])
    stop |= slots[(keys >> np.uint64(shift)) & np.uint64(len(slots) - 1)] == keys
    text_starts = np.cumsum([0] + [len(text) + 1 for text in texts[:-1]])
    owner = np.searchsorted(text_starts, starts, side="right") - 1
    return keys, ~stop, owner.astype(np.int64)


@cache
def _tail_masks() -> Any:
    """The mask keeping a chunk's first n bytes, for n from 0 to 8."""
    import numpy as np

    return np.array([(1 << (8 * n)) - 1 for n in range(8)] + [_MASK], dtype=np.uint64)


@cache
def _stop_slots() -> tuple[Any, int]:
    """The stop words' keys in a table of STOP_SLOTS, each at the slot some bits of it name (the
    first bits, from the lowest up, that give every stop word a slot of its own), the others 0:
    a word is a stop word when its slot holds its key. (A sorted search took ~10 ms per 1,000
    papers, a third of the keying.)"""
    import numpy as np

    keys = [word_key(word) for word in sorted(STOP_WORDS)]
    for shift in range(64 - STOP_SLOT_BITS + 1):
        at = [(key >> shift) & (STOP_SLOTS - 1) for key in keys]
        if len(set(at)) == len(at):
            slots = np.zeros(STOP_SLOTS, dtype=np.uint64)
            slots[at] = keys
            return slots, shift
    raise AssertionError("no bits of the stop words' keys tell them apart")
