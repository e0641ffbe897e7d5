"""The meaning vectors as stored since format 3: each unit vector as 16-bit integer codes and one
float32 scale (its largest component over 32,767), a row of the .npy file (`row_type`). A scan
reads the codes straight into numpy's sum of products (`einsum`, float32 sums) where float16
rows had to be made float32 a block at a time first: at 100,000 papers ~15 ms of CPU where that
took ~170 ms. A row takes 4 bytes more than float16's 512, and is closer to the float32 vector
(a cosine within ~1e-5, where float16's is within ~1e-4). 8-bit codes (260 bytes, ~11 ms) were
measured and not kept: cosines off by up to ~0.003 reorder papers whose cosines are that close
(a field's, the top 200 of a query 96% the same; benchmarks/README.md, "Search by meaning")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

LEVELS = 32_767  # codes run from -32,767 to 32,767


def row_type(dimensions: int) -> np.dtype:
    """A stored row: the scale, then the codes."""
    import numpy as np

    return np.dtype([("scale", "<f4"), ("codes", "<i2", (dimensions,))])


def quantize(vectors: Any) -> tuple[np.ndarray, np.ndarray]:
    """The rows' codes (int16) and scales (float32): a row is codes * scale, to within half a step."""
    import numpy as np

    rows = np.asarray(vectors, dtype=np.float32)
    scales = np.abs(rows).max(axis=1) / np.float32(LEVELS)
    steps = np.where(scales > 0, scales, np.float32(1))  # (a zero vector: codes of 0)
    return np.rint(rows / steps[:, None]).astype(np.int16), scales.astype(np.float32)


class Quantized:
    """Stored rows (a .npy file's, or some of them) read as float32 vectors where one is asked:
    indexing gives the rows asked, still coded; numpy (np.asarray) and `astype` give them as
    float32. So the code that reads float16 rows of an older index reads these alike."""

    def __init__(self, codes: np.ndarray, scales: np.ndarray):
        self.codes = codes
        self.scales = scales

    @classmethod
    def of(cls, stored: np.ndarray) -> Quantized:
        return cls(stored["codes"], stored["scale"])

    @property
    def shape(self) -> tuple[int, ...]:
        return self.codes.shape

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, key: Any) -> Quantized:
        return Quantized(self.codes[key], self.scales[key])

    def astype(self, dtype: Any) -> np.ndarray:
        import numpy as np

        return (self.codes.astype(np.float32) * np.asarray(self.scales, dtype=np.float32)[..., None]).astype(dtype, copy=False)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        import numpy as np

        return self.astype(dtype or np.float32)

    def dot(self, query: np.ndarray) -> np.ndarray:
        """Each row's dot product with the float32 `query` (numpy lets go of the GIL meanwhile)."""
        import numpy as np

        return np.einsum("ij,j->i", self.codes, query, dtype=np.float32) * self.scales
