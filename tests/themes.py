"""Papers on two clearly separated themes, written from word lists with a fixed seed: agents
learning by reinforcement, and proteins. Both share the words every abstract uses."""

from __future__ import annotations

import random
from datetime import date, timedelta

from reader.models import Author, Paper
from tests.corpus import TODAY, stamp

THEMES = {
    "agents": (
        (
            "reward shaping",
            "policy gradient",
            "tool use",
            "language agents",
            "environment",
            "planning",
            "trajectories",
            "exploration",
            "actor critic",
            "value function",
            "multi turn dialogue",
            "verifiable rewards",
            "rollouts",
            "web navigation",
            "credit assignment",
            "preference optimisation",
        ),
        ("S. Levine", "C. Finn", "P. Abbeel", "Y. Du", "A. Kumar"),
        ("cs.LG", "cs.AI"),
    ),
    "proteins": (
        (
            "protein folding",
            "structure prediction",
            "amino acid sequences",
            "molecular dynamics",
            "binding affinity",
            "enzymes",
            "ligand docking",
            "residue contacts",
            "cryo electron microscopy",
            "antibody design",
            "side chains",
            "backbone conformations",
            "free energy",
            "mutations",
            "stability",
        ),
        ("D. Baker", "J. Jumper", "M. AlQuraishi", "B. Rost", "A. Rives"),
        ("q-bio.BM", "physics.bio-ph"),
    ),
}
# Words every abstract uses, whatever its theme.
COMMON = (
    "we",
    "propose",
    "a",
    "model",
    "that",
    "improves",
    "performance",
    "on",
    "the",
    "benchmark",
    "data",
    "and",
    "results",
    "show",
    "learning",
    "with",
    "large",
    "scale",
    "evaluation",
    "of",
    "this",
    "framework",
    "is",
    "efficient",
)


def theme_papers(per_theme: int, *, seed: int = 7, today: date = TODAY) -> dict[str, list[Paper]]:
    """`per_theme` papers of each theme, ids interleaved so neither theme sorts first by id."""
    rng = random.Random(seed)
    papers: dict[str, list[Paper]] = {name: [] for name in THEMES}
    for i in range(per_theme * len(THEMES)):
        name = list(THEMES)[i % len(THEMES)]
        vocabulary, people, categories = THEMES[name]
        words = [rng.choice(vocabulary) if rng.random() < 0.5 else rng.choice(COMMON) for _ in range(40)]
        paper_id = f"2611.{10000 + i:05d}"
        moment = stamp(today - timedelta(days=i % 50), -i)
        papers[name].append(
            Paper(
                id=paper_id,
                version=1,
                title=" ".join(rng.sample(vocabulary, 3)).capitalize(),
                abstract=" ".join(words).capitalize() + ".",
                authors=tuple(Author(person) for person in rng.sample(people, 2)),
                categories=categories,
                primary_category=categories[0],
                published=moment,
                updated=moment,
                abs_url=f"https://arxiv.org/abs/{paper_id}v1",
                pdf_url=f"https://arxiv.org/pdf/{paper_id}v1",
            )
        )
    return papers


def rising_papers(today: date = TODAY) -> list[Paper]:
    """Twenty papers in the four weeks up to `today` and forty in the eight before, all about
    language models. `process reward` is in six recent papers and none before; `agent memory`
    and `tool use` in five recent and four earlier ones; `grpo` in two recent ones only;
    `diffusion` in three recent and thirty earlier; `we propose` (stop words) only recently.
    Ten papers older than twelve weeks and one from tomorrow say `ancient` and `future`."""
    texts: list[tuple[int, str]] = []
    for i in range(20):
        extra = ["process reward"] * (i < 6) + ["agent memory"] * (6 <= i < 11) + ["tool use"] * (11 <= i < 16)
        extra += ["grpo"] * (i in (16, 17)) + ["diffusion"] * (i < 3)
        texts.append((i % 28, " and ".join(["we propose language models", *extra])))
    for i in range(40):
        extra = ["agent memory"] * (i < 4) + ["tool use"] * (4 <= i < 8) + ["diffusion"] * (i < 30)
        texts.append((28 + i % 56, " and ".join(["language models", *extra])))
    texts += [(84 + i, "ancient language models") for i in range(10)] + [(-1, "future language models")]
    papers = []
    for i, (days_ago, text) in enumerate(texts):
        paper_id = f"2610.{20000 + i:05d}"
        moment = stamp(today - timedelta(days=days_ago), -i)
        papers.append(
            Paper(
                id=paper_id,
                version=1,
                title=f"Study {i}",
                abstract=text.capitalize() + ".",
                authors=(Author("R. Searcher"),),
                categories=("cs.CL",),
                primary_category="cs.CL",
                published=moment,
                updated=moment,
                abs_url=f"https://arxiv.org/abs/{paper_id}v1",
                pdf_url=f"https://arxiv.org/pdf/{paper_id}v1",
            )
        )
    return papers
