"""Shared test helpers, first written for tests/test_export_cli.py."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run
from tests.helpers.cli import synced


@pytest.fixture
def cached(capsys, arxiv_env):  # noqa: F811
    synced(capsys, arxiv_env)
    return [row["id"] for row in json.loads(run(capsys, "list", "--json", "--limit", "6")[1])]


def entries(text: str) -> list[str]:
    return [line.split("= {")[1].rstrip("},") for line in text.splitlines() if line.startswith("  eprint = ")]
