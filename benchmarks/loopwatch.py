"""The longest time an asyncio event loop was kept from running while something happened."""

from __future__ import annotations

import asyncio
import time

STEP = 0.005  # seconds the watcher asks to sleep: anything longer was a block


class LoopWatch:
    """`async with LoopWatch() as watch: ...` then `watch.worst_ms`: the longest block meanwhile."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._running = False
        self._task: asyncio.Task | None = None

    async def __aenter__(self) -> LoopWatch:
        self._running = True
        self._task = asyncio.create_task(self._watch())
        return self

    async def __aexit__(self, *exc_info) -> None:
        self._running = False
        if self._task is not None:
            await self._task

    async def _watch(self) -> None:
        while self._running:
            started = time.perf_counter()
            await asyncio.sleep(STEP)
            self.worst = max(self.worst, time.perf_counter() - started - STEP)

    @property
    def worst_ms(self) -> float:
        return self.worst * 1000
