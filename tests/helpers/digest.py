"""Shared test helpers, first written for tests/test_digest.py."""

from __future__ import annotations

HOSTILE_TITLE = '<script>alert(1)</script> [click](javascript:alert(1)) <img src="https://evil.example/x.png"> # not a heading'
