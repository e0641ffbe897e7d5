"""Shared test helpers, first written for tests/test_export_ownership.py."""

from __future__ import annotations

BOOK = "@book{sutton2018,\n  title = {Reinforcement Learning: An Introduction},\n  author = {Sutton, Richard and Barto, Andrew},\n  year = {2018},\n}\n"


def edited(text: str, paper_id: str) -> str:
    """The file with the title of `paper_id`'s entry changed by hand."""
    entries_ = text.split("\n@")
    at = next(i for i, e in enumerate(entries_) if f"eprint = {{{paper_id}}}" in e)
    lines = entries_[at].splitlines()
    lines = [("  title = {Fixed by hand}," if line.startswith("  title = ") else line) for line in lines]
    entries_[at] = "\n".join(lines) + ("\n" if entries_[at].endswith("\n") else "")
    return "\n@".join(entries_)
