"""Shared test helpers, first written for tests/test_import.py."""

from __future__ import annotations

import json

import pytest

from reader.models import Author, Paper
from reader.store import Store
from tests.conftest import run
from tests.corpus import TODAY, stamp


def paper(pid: str, title: str, authors: list[str], day: int = 0) -> Paper:
    version = 2
    return Paper(
        id=pid,
        version=version,
        title=title,
        abstract=f"An abstract about {title.lower()}.",
        authors=tuple(Author(name) for name in authors),
        categories=("cs.LG",),
        primary_category="cs.LG",
        published=stamp(TODAY, -day * 3600),
        updated=stamp(TODAY, -day * 3600),
        abs_url=f"https://arxiv.org/abs/{pid}v{version}",
        pdf_url=f"https://arxiv.org/pdf/{pid}v{version}",
    )


CACHED = [
    paper("2611.01001", "Attention Is All You Need", ["Ashish Vaswani", "Noam Shazeer"], 1),
    paper("2611.01002", "Deep Residual Learning for Image Recognition", ["Kaiming He", "Xiangyu Zhang"], 2),
    paper(
        "2611.01003",
        'Schr\\"odinger Bridges Beat Diffusion Models on Text-to-Speech Synthesis',
        ["Zehua Chen", "Guande He", "Kaiwen Zheng"],
        3,
    ),
    paper("2611.01004", "Learning to Reason -- Step by Step", ["Jörg Müller", "Ana Souza"], 4),
    paper("2611.01006", "A Survey of Reinforcement Learning from Human Feedback", ["Kim Lee", "Sam Park"], 6),
    paper("2611.01007", "A Survey of Reinforcement Learning from Human Feedback", ["Lee Kim"], 7),
    paper("2611.01008", "Graph Neural Networks for Molecules", ["Rosa Diaz"], 8),
    paper("hep-th/9711200", "The Large N Limit of Superconformal Field Theories and Supergravity", ["Juan Maldacena"], 9),
]


ON_ARXIV_ONLY = paper("2612.02001", "Scaling Laws for Neural Language Models", ["Jared Kaplan", "Sam McCandlish"], 0)


@pytest.fixture
def library(data_dir) -> Store:
    store = Store(data_dir)
    store.save_papers(CACHED, None, news=False)
    return store


@pytest.fixture
def arxiv(arxiv_env):
    arxiv_env.by_id[ON_ARXIV_ONLY.id] = ON_ARXIV_ONLY
    return arxiv_env


def id_requests(fake) -> list:
    return [r for r in fake.requests if r.params.get("id_list")]


def imported(capsys, *args) -> tuple[int, dict, str]:
    code, out, err = run(capsys, "import", *args, "--json")
    return code, json.loads(out) if out else {}, err


def by_key(result: dict) -> dict:
    return {row["key"]: row.get("id") or row.get("reason") for row in result["matched"] + result["unmatched"]}
