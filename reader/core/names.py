"""The names a user gives topics, watches and tags: tidied, and checked before anything keeps
them (the store, the app's dialogs and the command line alike)."""

from __future__ import annotations

from reader.core.sanitize import clean_text
from reader.errors import StoreError

LONGEST_TAG = 60
NAME_LIMIT = 100  # characters of a topic's or a watch's name


class NameTaken(StoreError):
    """Another topic (or watch) has the name, ignoring case: maybe added by another process."""


def checked_name(name: str, what: str, longest: int = NAME_LIMIT) -> str:
    """A name the user gave (topic, tag, watch) with its spaces tidied, or a one-line error: it
    is shown in lists, the sidebar and exports, so no control characters and no empty names."""
    tidy = " ".join(name.split())
    if not tidy:
        raise StoreError(f"a {what} needs a name")
    if clean_text(tidy) != tidy:
        if any("\ud800" <= ch <= "\udfff" for ch in tidy):  # bytes that were not UTF-8 (a raw argv)
            raise StoreError(f"a {what} name is not valid Unicode: {tidy!r}")
        raise StoreError(f"a {what} name cannot contain control characters: {tidy!r}")
    if len(tidy) > longest:
        raise StoreError(f"a {what} name can be at most {longest} characters long (this one has {len(tidy):,})")
    return tidy


def tag_name(name: str) -> str:
    """A tag as the user typed it, tidied, or a one-line error. A tag is a word or short phrase;
    exports list tags separated by commas, so a tag cannot hold one."""
    tidy = checked_name(name, "tag", LONGEST_TAG)
    if "," in tidy:
        raise StoreError(f"a tag name cannot contain a comma (exports separate tags with commas): {tidy!r}")
    return tidy
