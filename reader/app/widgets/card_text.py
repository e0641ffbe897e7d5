"""What a card's lines say, fitted to their room: authors, affiliations, tags cut whole with "+N",
and a line of parts cut with an ellipsis where the room ends."""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len, set_cell_size
from rich.style import Style

from reader.search_index import Card


def author_line(card: Card, shown: int = 3) -> str:
    names = list(card.authors[:shown])
    more = card.author_count - len(names)
    return ", ".join(names) + (f" +{more}" if more > 0 else "")


def short_affiliation(affiliation: str, limit: int = 40) -> str:
    """The institution's first part (`MIT, Cambridge, MA` -> `MIT`), cut at a word if still long."""
    head = affiliation.split(",")[0].strip() or affiliation
    if len(head) <= limit:
        return head
    return head[:limit].rsplit(" ", 1)[0] + "…"


def affiliation_line(card: Card, room: int, shown: int = 2) -> str:
    """Shortened affiliations that fit `room`, whole ones only, then "+N" for the rest; nothing
    when not even a shortened first name fits (a bare "+N" would say nothing)."""
    names = list(dict.fromkeys(short_affiliation(a) for a in card.affiliations))
    total = len(names) + card.affiliation_count - len(card.affiliations)
    for count in range(min(shown, len(names)), 0, -1):
        more = total - count
        text = ", ".join(names[:count]) + (f" +{more}" if more > 0 else "")
        if len(text) <= room:
            return text
    if names:  # the first one cut at a word, rather than a bare count
        rest = f" +{total - 1}" if total > 1 else ""
        first = short_affiliation(names[0], limit=room - len(rest))
        if len(first) >= 8:
            return first + rest
    return ""


def tag_line(tags: list[str], room: int, gap: str = "  ") -> str:
    """Whole tags that fit `room`, then "+N" for the rest: a tag is never cut."""
    for count in range(len(tags), -1, -1):
        more = len(tags) - count
        text = gap.join(tags[:count] + ([f"+{more}"] if more else []))
        if len(text) <= room:
            return text
    return ""


def fit_parts(parts: tuple[tuple[str, str], ...], room: int, style: Callable[[str], Style]) -> list[tuple[str, Style]]:
    """Parts of a line in their styles, the last one cut with an ellipsis where the room ends."""
    fitted = []
    for text, part in parts:
        if room <= 1:
            break
        if cell_len(text) > room:
            text = set_cell_size(text, room - 1) + "…"
        fitted.append((text, style(part)))
        room -= cell_len(text)
    return fitted
