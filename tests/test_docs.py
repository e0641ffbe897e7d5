"""The documentation: the README stays a short front page, the manual lives in docs/, and every
relative link between the pages points at a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MANUAL = [
    "keys",
    "queries",
    "topics-and-sync",
    "full-text",
    "import-export",
    "ranking",
    "configuration",
    "data-and-safety",
    "command-line",
    "architecture",
]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "benchmarks" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
ISSUE = re.compile(r"\bissues? #?\d+", re.I)
# A commit hash: 7 to 40 hex digits with at least one letter and one digit (ids such as
# `hep-th/9901001` are digits only).
COMMIT = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b")


def relative_links(page: Path) -> list[str]:
    """The targets of a page's markdown links outside code blocks, less web and mail links."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target) and not target.startswith("#")]


def test_the_manual_has_every_page():
    assert [name for name in MANUAL if not (ROOT / "docs" / f"{name}.md").is_file()] == []


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_points_at_a_file(page):
    broken = [target for target in relative_links(page) if not (page.parent / target.split("#", 1)[0]).exists()]
    assert broken == []


def test_the_readme_links_every_page_of_the_manual():
    linked = {(ROOT / target.split("#", 1)[0]).resolve() for target in relative_links(ROOT / "README.md")}
    pages = [ROOT / "docs" / f"{name}.md" for name in MANUAL] + [ROOT / "benchmarks" / "README.md", ROOT / "CONTRIBUTING.md"]
    assert [str(page.relative_to(ROOT)) for page in pages if page.resolve() not in linked] == []


def test_the_readme_is_a_front_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    # CI and users run these two commands as written.
    assert "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/reader" in readme
    assert "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && .venv/bin/python -m pytest -q -n auto" in readme


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_no_issue_number_or_commit_hash_in_user_facing_text(page):
    text = page.read_text(encoding="utf-8")
    assert ISSUE.findall(text) == []
    assert COMMIT.findall(text) == []


def _section(page: Path, title: str) -> str:
    text = page.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def test_the_messages_the_architecture_page_names_are_the_apps():
    """A message moved into a part (or renamed) is named as the code names it now."""
    import ast

    classes: set[str] = set()
    for path in (ROOT / "reader" / "app").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for outer in ast.walk(tree):
            if isinstance(outer, ast.ClassDef):
                classes.add(outer.name)
                classes.update(f"{outer.name}.{inner.name}" for inner in outer.body if isinstance(inner, ast.ClassDef))
    section = _section(ROOT / "docs" / "architecture.md", "How a worker reports back")
    # `TextLaidOut`, `Triage.Ranked`: a class name of two words or more, or one in its part
    named = {
        name for name in re.findall(r"`([A-Z][A-Za-z]+(?:\.[A-Z][A-Za-z]+)?)`", section) if "." in name or re.search(r"[a-z][A-Z]", name)
    }
    assert named and sorted(named - classes) == []


def test_the_files_on_disk_name_the_derived_files_of_the_shards():
    from types import SimpleNamespace

    from reader.store.shard_features import counts_path, features_path, total_path

    store = SimpleNamespace(data_dir=ROOT, shard_file=lambda shard: ROOT / "papers" / f"{shard}.json")
    section = _section(ROOT / "docs" / "architecture.md", "Files on disk")
    for path in (features_path(store, "YYMM.NN"), counts_path(store, "YYMM.NN"), total_path(store)):
        assert f"`papers/{path.name}`" in section
