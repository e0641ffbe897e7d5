"""What a brand-new data directory starts with: a few example topics to sync or replace."""

from __future__ import annotations

from reader.store import Store

EXAMPLE_TOPICS = [
    (
        "RL for LLM Agents",
        '(ti:"reinforcement learning" OR abs:"reinforcement learning") AND '
        '(abs:LLM OR abs:LLMs OR abs:"language model" OR abs:"language models") AND '
        "(ti:agent OR ti:agents OR ti:agentic OR abs:agent OR abs:agents OR abs:agentic)",
    ),
    ("Mechanistic Interpretability", 'ti:"mechanistic interpretability" OR abs:"mechanistic interpretability"'),
    ("Diffusion Policies for Robots", "cat:cs.RO AND (ti:diffusion OR abs:diffusion)"),
]


def ensure_example_topics(store: Store) -> bool:
    """Add the example topics once per data directory; a user who removes them keeps them removed."""
    if store.setting("examples_added"):
        return False
    if not store.topics():
        for name, query in EXAMPLE_TOPICS:
            store.add_topic(name, query)
    store.set_setting("examples_added", True)
    return True
