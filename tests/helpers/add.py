"""Shared test helpers, first written for tests/test_add.py."""

from __future__ import annotations

from reader.models import Author, Paper
from tests.corpus import TODAY, stamp


def paper(pid: str, title: str, version: int = 2) -> Paper:
    return Paper(
        id=pid,
        version=version,
        title=title,
        abstract=f"An abstract about {title.lower()}.",
        authors=(Author("Ada Lovelace"),),
        categories=("cs.LG",),
        primary_category="cs.LG",
        published=stamp(TODAY, -3600),
        updated=stamp(TODAY, -3600),
        abs_url=f"https://arxiv.org/abs/{pid}v{version}",
        pdf_url=f"https://arxiv.org/pdf/{pid}v{version}",
    )


SENT = paper("2609.10042", "Scaling Laws for Neural Language Models")


OTHER = paper("2609.10043", "Process Reward Models", version=1)
