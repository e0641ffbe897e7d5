"""Shared test helpers, first written for tests/test_cli.py."""

from __future__ import annotations

from tests.conftest import run
from tests.corpus import recent_papers

QUERY = "ti:agent AND cat:cs.LG"


def serve_agents(fake, n=30) -> None:
    """The loopback arXiv answers QUERY with `n` recent papers, of 20,000 submitted in the horizon."""
    fake.queries[QUERY] = recent_papers(n)
    fake.totals["submittedDate:[202611050000 TO 202612022359]"] = 20000


def synced(capsys, fake, n=30):
    serve_agents(fake, n)
    assert run(capsys, "topics", "remove", "RL for LLM Agents")[0] == 0
    assert run(capsys, "topics", "add", "Agents", QUERY)[0] == 0
    return run(capsys, "sync", "--topic", "agents")
