"""Shared test helpers, first written for tests/test_cli.py."""

from __future__ import annotations

from tests.conftest import run
from tests.corpus import recent_papers

QUERY = "ti:agent AND cat:cs.LG"


def synced(capsys, fake, n=30):
    fake.queries[QUERY] = recent_papers(n)
    fake.totals["submittedDate:[202611050000 TO 202612022359]"] = 20000
    assert run(capsys, "topics", "remove", "RL for LLM Agents")[0] == 0
    assert run(capsys, "topics", "add", "Agents", QUERY)[0] == 0
    return run(capsys, "sync", "--topic", "agents")
