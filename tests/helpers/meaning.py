"""A cache of real papers large enough to learn meaning from: titles and abstracts of the
benchmark's real arXiv papers (benchmarks/data/meaning-papers.jsonl.gz, CC0 metadata), a few
research areas of them, with the meaning index built by the engine's own update."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from reader.meaning import build as meaning_build
from reader.models import Author, Paper
from reader.store import Store

PAPERS = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "meaning-papers.jsonl.gz"
# Areas near each other (agents, RL, language models) and far (segmentation, speech, quantum).
AREAS = (
    "Agentic_AI",
    "Multi-Agent_System",
    "RLVR",
    "Imitation_Learning",
    "Semantic_Segmentation",
    "Speech_Recognition",
    "Quantum_Computation",
)
TOPIC = "Learning"


def real_papers(count: int) -> list[Paper]:
    """`count` real papers of AREAS (in the file's order), as the cache keeps them."""
    papers: list[Paper] = []
    with gzip.open(PAPERS, "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            pid = row["id"]
            if "/" in pid or not set(row["labels"]) & set(AREAS) or not row["abstract"].strip():
                continue
            stamp = f"20{pid[:2]}-{pid[2:4]}-15T12:00:00Z"
            papers.append(
                Paper(
                    id=pid,
                    version=1,
                    title=row["title"],
                    abstract=row["abstract"],
                    authors=(Author(f"Author {pid}"),),
                    categories=("cs.LG",),
                    primary_category="cs.LG",
                    published=stamp,
                    updated=stamp,
                    abs_url=f"https://arxiv.org/abs/{pid}v1",
                    pdf_url=f"https://arxiv.org/pdf/{pid}v1",
                )
            )
            if len(papers) == count:
                break
    return papers


def meaning_store(data_dir: Path, count: int = 400, *, build: bool = True) -> Store:
    """A cache of `count` real papers in one topic; its meaning index built when `build`."""
    store = Store(data_dir)
    store.add_topic(TOPIC, "cat:cs.LG")
    store.set_setting("examples_added", True)
    store.save_papers(real_papers(count), TOPIC)
    if build:
        assert meaning_build.update(store)[0].ready
    return store
