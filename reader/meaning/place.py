"""Reading the papers' texts and placing them in meaning: the bulk of a build (build.py), done on
every core. Reading a shard's JSON, folding and stemming its words and weighing them are Python
holding the GIL (threads would take turns), so a build of many papers hands whole shards to
worker processes, which send back the sample's tokens (a fit's) or the papers' float16 vectors. A build of
fewer papers, and each fold-in of a sync's arrivals, is done in the calling process (a worker's
start costs ~0.5 s of CPU).

A paper's vector is the same wherever it is placed: each row's TF-IDF weights and their sum over
the directions depend on that paper's words alone (tests/test_meaning_speed.py compares them)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from reader.errors import StoreError
from reader.meaning.model import Model, Words, paper_text, stop_stems
from reader.store.data_dir import shard_of

if TYPE_CHECKING:
    import numpy as np

    from reader.store import Store

BATCH = 5_000  # papers embedded at a time, and a worker's task (and a progress step)
PARALLEL_FROM = 20_000  # papers: fewer are read and placed in this process
WORKERS = 2  # the machine's cores reader is made for; fewer when it has fewer

Progress = Callable[[str, int, int], None]
Task = list[tuple[str, list[str]]]  # (shard, the ids wanted of it)
R = TypeVar("R")


def _tasks(ids: Iterable[str]) -> list[Task]:
    """The ids grouped by shard (in the order their shards first appear), cut into tasks of
    about BATCH papers of whole shards."""
    by_shard: dict[str, list[str]] = {}
    for pid in ids:
        by_shard.setdefault(shard_of(pid), []).append(pid)
    tasks: list[Task] = []
    task: Task = []
    size = 0
    for shard, wanted in by_shard.items():
        task.append((shard, wanted))
        size += len(wanted)
        if size >= BATCH:
            tasks.append(task)
            task, size = [], 0
    if task:
        tasks.append(task)
    return tasks


def _read(store: Store, task: Task) -> Iterator[tuple[str, str]]:
    """(id, paper_text) of the task's papers (ids whose record is lost are skipped). The records
    are read as stored, never made Papers: only their titles and abstracts count."""
    for shard, wanted in task:
        docs = store.shard_files.read_docs(shard)
        for pid in wanted:
            doc = docs.get(pid)
            if doc is not None:
                yield pid, paper_text(doc["title"], doc["abstract"])


def _embed(model: Model, column: dict[str, int], words: Words, batch: Sequence[tuple[str, str]]) -> tuple[list[str], bytes, int, int]:
    """The batch's ids, their float16 vectors' bytes, and how many of their words there were
    and how many the model did not know."""
    import numpy as np

    vectors, unknown, total = model.embed_counted([text for _, text in batch], column, words=words)
    return [pid for pid, _ in batch], vectors.astype(np.float16).tobytes(), total, unknown


# --- a worker process's side: its store (for reading shards) and the model it places with


_worker: dict = {}


def _start_worker(data_dir: str, parent: int, model: Model | None) -> None:
    from reader.store.store import Store

    _worker["store"] = Store(Path(data_dir), check_user_files=False)
    if model is not None:
        _worker["model"], _worker["column"], _worker["words"] = model, model.column(), Words(model.stop)
    else:  # (a fit's sample: tokens, words as the fit takes them)
        _worker["words"] = Words(stop_stems())

    def watch() -> None:  # a worker outlives no build: a parent killed (a sync cancelled) leaves none
        while os.getppid() == parent:
            threading.Event().wait(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _tokens(words: Words, batch: list[tuple[str, str]]) -> list[str]:
    """The batch's tokens, each paper's as one string (a worker sends one object a paper)."""
    return [" ".join(found) for found in words.tokens_of([text for _, text in batch])]


def _tokens_task(task: Task) -> list[str]:
    return _tokens(_worker["words"], list(_read(_worker["store"], task)))


def _place_task(task: Task) -> tuple[list[str], bytes, int, int]:
    return _embed(_worker["model"], _worker["column"], _worker["words"], list(_read(_worker["store"], task)))


@contextmanager
def _workers(store: Store, papers: int, model: Model | None) -> Iterator[ProcessPoolExecutor | None]:
    """Worker processes (spawned: the caller may hold threads, a fork would copy their locks) for
    a job of `papers` papers; None when it is small or the machine has one core. Their tasks are
    handed out by `_handed_out`. Interrupted (Ctrl+C) or failing, the tasks not started are
    dropped; a worker that died (killed, out of memory) is a StoreError, not a traceback."""
    cores = min(WORKERS, os.cpu_count() or 1)
    if papers < PARALLEL_FROM or cores < 2:
        yield None
        return
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(cores, mp_context=context, initializer=_start_worker, initargs=(str(store.data_dir), os.getpid(), model))
    try:
        yield pool
    except BrokenProcessPool:
        pool.shutdown(wait=True, cancel_futures=True)
        raise StoreError("a worker process of the meaning build stopped (killed, or out of memory?): nothing was written") from None
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)  # (the running tasks end; the others never start)
        raise
    pool.shutdown(wait=True)


def _handed_out(pool: ProcessPoolExecutor, function: Callable[[Task], R], tasks: list[Task]) -> Iterator[R]:
    """`pool.map(function, tasks)`, its workers started with Ctrl+C's signal blocked (a spawned
    process keeps the mask of the thread that started it): Ctrl+C is this process's to answer;
    a worker it reached printed its KeyboardInterrupt's traceback over the terminal."""
    blocking = hasattr(signal, "pthread_sigmask")
    mask: Any = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if blocking else None
    try:
        return pool.map(function, tasks)  # every task submitted now: the workers start in this call
    finally:
        if blocking:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def tokens(store: Store, ids: list[str]) -> list[list[str]]:
    """The tokens of these papers (Words' of stop_stems(): what fit_tokens takes), read a
    shard at a time (papers whose record is lost left out)."""
    tasks = _tasks(ids)
    with _workers(store, len(ids), None) as pool:
        if pool is None:
            words = Words(stop_stems())
            found: Iterable[list[str]] = (_tokens(words, list(_read(store, task))) for task in tasks)
        else:
            found = _handed_out(pool, _tokens_task, tasks)
        return [paper.split() for batch in found for paper in batch]


def place(model: Model, store: Store, ids: list[str], progress: Progress | None, what: str) -> tuple[list[str], np.ndarray, float]:
    """The papers' ids as placed (those whose record is lost left out), their vectors (float16,
    in that order) and the share of their words the model does not know."""
    import numpy as np

    tasks = _tasks(ids)
    vectors = np.empty((len(ids), model.dimensions), dtype=np.float16)
    done: list[str] = []
    total = unknown = 0
    with _workers(store, len(ids), model) as pool:
        if pool is None:
            column, words = model.column(), Words(model.stop)
            results: Iterable[tuple[list[str], bytes, int, int]] = (
                _embed(model, column, words, list(_read(store, task))) for task in tasks
            )
        else:
            results = _handed_out(pool, _place_task, tasks)
        for placed, blob, words_seen, words_unknown in results:
            vectors[len(done) : len(done) + len(placed)] = np.frombuffer(blob, dtype=np.float16).reshape(len(placed), model.dimensions)
            done.extend(placed)
            total += words_seen
            unknown += words_unknown
            if progress is not None:
                progress(what, len(done), len(ids))
    return done, vectors[: len(done)], unknown / total if total else 0.0
