"""Where a figure's image is: its `src` as the page writes it, made an absolute address against
the page's final URL (after redirects), as a browser would. arXiv writes `x1.png` (relative to the
versioned page), `2308.06222v1/x1.png`, `extracted/...`, `/html/ID/assets/...` or a whole
address; only http(s) addresses are kept (never `data:`, `javascript:` or a file), and whether
their host may be asked is the arXiv client's rule, checked when the image is fetched."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urljoin, urlsplit

from reader.fulltext.document import Block

MAX_ADDRESS = 2048  # characters of an image's address; a longer one is no figure of a paper
MAX_FIGURE_IMAGES = 1000  # images of one figure (a grid of panels has dozens)
MAX_IMAGES = 10_000  # images of one paper, every figure's together


def is_image_address(url: str) -> bool:
    """An absolute http(s) address of printable ASCII, of a bounded length."""
    if not (0 < len(url) <= MAX_ADDRESS and url.isascii() and url.isprintable()) or " " in url:
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def resolve(src: str, base: str) -> str | None:
    """`src` as an absolute address against `base` (the page's final URL); None when it is not an
    http(s) address or cannot be one."""
    src = src.strip()
    if not src or len(src) > MAX_ADDRESS:
        return None
    try:
        url = urljoin(base, src)
    except ValueError:
        return None
    return url if is_image_address(url) else None


def resolved(figure: Block, base_url: str | None) -> Block:
    """A figure with its images' `src` made absolute against `base_url` (those that cannot be
    are dropped; no base: all are)."""
    found = (resolve(src, base_url) for src in figure.images) if base_url else ()
    return replace(figure, images=tuple(url for url in found if url is not None))  # its caption's formulas kept
