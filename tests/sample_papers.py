"""Hand-written papers for UI tests and snapshots: they need no shared fixtures, so these tests
run (and look the same) everywhere."""

from __future__ import annotations

from datetime import date, timedelta

from reader.models import Author, Paper
from tests.corpus import TODAY, stamp

MODELS = [
    (
        "Testing Agents in the Wild: A Benchmark for Long-Horizon Tool Use",
        "We introduce a benchmark of 412 long-horizon tasks in which language-model agents call tools, read documents and "
        "recover from their own mistakes. Agents trained with reinforcement learning outperform prompted baselines by a wide "
        "margin, yet still fail on tasks that need more than forty steps. We release the tasks and an evaluation harness.",
        [
            ("Mira Okafor", ["University of Lagos"]),
            ("Tomás Quintero", ["ETH Zurich"]),
            ("Wei Zhang", ["Tsinghua University"]),
            ("Ana Souza", ["USP"]),
            ("Lars Berg", []),
        ],
        ("cs.AI", "cs.CL"),
        "10.1000/example.1",
    ),
    (
        "Credit Assignment for Multi-Turn Reinforcement Learning with Verifiable Rewards",
        "Sparse rewards at the end of a dialogue make it hard to tell which turn helped. We estimate step-level advantages "
        "from a learned value model and show consistent gains on math and coding agents. The method adds little compute and "
        "needs no human labels.",
        [("Priya Natarajan", ["Carnegie Mellon University"]), ("Jonas Weber", ["Max Planck Institute for Intelligent Systems"])],
        ("cs.LG",),
        None,
    ),
    (
        "Testing the Limits of World Models for Web Agents",
        "Do agents that learn to predict the next page act better? We replace prediction targets with mismatched pages and "
        "find that most of the gain survives, pointing to optimisation effects rather than world knowledge.",
        [
            ("Hana Kobayashi", ["University of Tokyo"]),
            ("Oliver Smith", ["University of Oxford"]),
            ("Ines Moreau", ["Inria"]),
            ("Dmitri Volkov", []),
        ],
        ("cs.CL",),
        None,
    ),
    (
        "Off-Policy Distillation of Reasoning Traces into Small Models",
        "We distil reasoning traces from a large teacher into models of one to eight billion parameters and study when "
        "on-policy data is worth its cost. Mixed schedules match on-policy quality at a third of the price.",
        [("Sara Lindqvist", ["KTH Royal Institute of Technology"])],
        ("cs.LG", "stat.ML"),
        "10.1000/example.4",
    ),
]


def sample_papers(count: int, *, today: date = TODAY, per_day: int = 5, id_base: int = 20000) -> list[Paper]:
    """`count` distinct papers, newest first, `per_day` a day going back from `today`."""
    papers = []
    for i in range(count):
        day = today - timedelta(days=i // per_day)
        title, abstract, authors, categories, doi = MODELS[i % len(MODELS)]
        paper_id = f"{day:%y%m}.{id_base + count - i:05d}"
        version = 1 + i % 3
        papers.append(
            Paper(
                id=paper_id,
                version=version,
                title=f"{title}" if i < len(MODELS) else f"{title} ({i})",
                abstract=abstract,
                authors=tuple(Author(n, tuple(a)) for n, a in authors),
                categories=categories,
                primary_category=categories[0],
                published=stamp(day, -i),
                updated=stamp(day, -i),
                doi=doi,
                comment="12 pages" if i % 2 else None,
                abs_url=f"https://arxiv.org/abs/{paper_id}v{version}",
                pdf_url=f"https://arxiv.org/pdf/{paper_id}v{version}",
            )
        )
    return papers
