"""The app's "Add a paper" (the library service's `adding`): one paper fetched by id as `reader add` fetches it
(sync/adding.py), in a child process, so that the app never loads the network stack."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reader.errors import ReaderError

if TYPE_CHECKING:
    from reader.arxiv.options import ClientOptions
    from reader.config import Settings
    from reader.store import Store


class Adding:
    def __init__(self, store: Store, settings: Settings):
        self._store = store
        self._settings = settings

    def add_paper(self, paper_id: str, version: int | None, options: ClientOptions | None) -> bool:
        """In a worker: True once the paper is fetched and kept, False when the cache holds it
        already (at the version asked: no request); else ReaderError, one sentence for the
        user. `options`: the arXiv to ask (None: the settings')."""
        from reader.sync.adding import add_in_child, add_job
        from reader.sync.types import client_options

        cached = self._store.cached_versions([paper_id]).get(paper_id)
        if cached is not None and (version or 0) <= cached:
            return False
        job = add_job(self._store.data_dir, [(paper_id, version)], self._settings.today(), options or client_options(self._settings))
        added = add_in_child(job)
        if added.saved:
            return True
        if added.missing:
            raise ReaderError(f"arXiv has no paper {paper_id}: check the id")
        if added.refused:
            raise ReaderError(f"arXiv refuses {paper_id} as malformed: check the id")
        raise ReaderError(f"not added: {added.error}")
