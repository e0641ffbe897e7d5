"""Content-Encoding undone as the body is read, in bounded pieces, so a size cap holds on the
decoded bytes however the server stacks its encodings: a 2 KB `gzip, gzip` bomb never becomes
gigabytes in memory. We ask for gzip and deflate only; any other coding is refused."""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

from reader.errors import FeedFormatError

PIECE = 64 * 1024  # the most any one decoding step produces


class UnsupportedEncoding(FeedFormatError):
    """A coding we did not ask for and cannot undo (br, zstd, compress, ...)."""


class _Inflate:
    """gzip (`wbits` 31, members may follow one another) or deflate (zlib-wrapped as the
    standard says, or raw as some servers send it: told apart by the first two bytes)."""

    def __init__(self, gzip: bool):
        self.gzip = gzip
        self._inflater = zlib.decompressobj(zlib.MAX_WBITS | 16) if gzip else None
        self._head = b""  # deflate: bytes held until the wrapper can be recognised
        self.started = False

    def _deflate_inflater(self, head: bytes):
        zlib_wrapped = (head[0] & 0x0F) == 8 and (head[0] << 8 | head[1]) % 31 == 0
        return zlib.decompressobj(zlib.MAX_WBITS if zlib_wrapped else -zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        if not data:
            return
        self.started = True
        if self._inflater is None:
            self._head += data
            if len(self._head) < 2:
                return
            data, self._head = self._head, b""
            self._inflater = self._deflate_inflater(data)
        yield from self._inflate(data)

    def _inflate(self, data: bytes) -> Iterator[bytes]:
        assert self._inflater is not None
        while True:
            if self._inflater.eof:
                data = self._inflater.unused_data + data
                if not data:
                    return
                if not self.gzip:
                    raise zlib.error("data after the end of the deflate stream")
                self._inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)  # the next gzip member
            out = self._inflater.decompress(data, PIECE)
            if out:
                yield out
            # At a member's end what follows it is in unused_data (taken at the loop's top);
            # unconsumed_tail may still hold the same bytes: taken too, they doubled per member.
            data = b"" if self._inflater.eof else self._inflater.unconsumed_tail
            # A full piece may leave output pending inside zlib even when all input is taken.
            if not data and len(out) < PIECE and not self._inflater.eof:
                return

    def finish(self) -> None:
        if self.started and (self._inflater is None or not self._inflater.eof):
            raise zlib.error("the compressed stream is cut short")


class Decoder:
    """Undoes a Content-Encoding list (`gzip, gzip`, `deflate, identity`, ...) in reverse order."""

    def __init__(self, codings: Iterable[str]):
        self.layers: list[_Inflate] = []
        for coding in codings:
            name = coding.strip().lower()
            if name in ("gzip", "x-gzip", "deflate"):
                self.layers.insert(0, _Inflate(gzip=name != "deflate"))
            elif name not in ("identity", ""):
                raise UnsupportedEncoding(f"arXiv's response uses an encoding the reader did not ask for ({name[:20]!r}); refused")

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded bytes of `data`, in pieces of at most PIECE bytes, produced lazily: the
        caller counts them and can stop before the next piece is made."""
        pieces: Iterable[bytes] = [data]
        for layer in self.layers:
            pieces = _through(layer, pieces)
        return (piece for piece in pieces if piece)

    def finish(self) -> None:
        """zlib.error if a compressed stream stopped before its end."""
        for layer in self.layers:
            layer.finish()


def _through(layer: _Inflate, pieces: Iterable[bytes]) -> Iterator[bytes]:
    for piece in pieces:
        yield from layer.feed(piece)
