"""Shared test helpers, first written for tests/test_export_formats.py."""

from __future__ import annotations

from pathlib import Path

SCHEMA = Path(__file__).parents[1] / "schemas" / "csl-data.json"
