"""Shared test helpers, first written for tests/test_deep_queries.py."""

from __future__ import annotations


def alternating(depth: int, leaf: str = "ti:agents") -> str:
    """`(ti:agents AND (ti:agents OR (...)))`: every level a real node, nothing to flatten."""
    query = leaf
    for level in range(depth):
        query = f"({leaf} {'AND' if level % 2 else 'OR'} {query})"
    return query
