"""Shared test helpers, first written for tests/test_sync.py."""

from __future__ import annotations

from reader.config import Settings
from reader.sync.syncer import Syncer, client_for
from tests.corpus import TODAY


def settings_for(fake, **overrides) -> Settings:
    values = {
        "api_url": fake.api_url,
        "rss_url": fake.rss_url,
        "delay": 0.05,
        "timeout": 2.0,
        "retries": 3,
        "backoff": 0.05,
        "today_override": TODAY,
        "sync_weeks": 16,
        "sync_interval_hours": 6,
        "data_dir": None,
    }
    values.update(overrides)
    return Settings(**values)


async def run_sync(store, fake, topics, **overrides):
    settings = settings_for(fake, **overrides)
    async with client_for(settings) as client:
        syncer = Syncer(store, client, today=TODAY, horizon_weeks=settings.sync_weeks)
        return await syncer.run(topics)
