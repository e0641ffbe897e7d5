"""`reader` with no command: the app."""

from __future__ import annotations

from reader.commands.common import open_store


def cmd_app(args, settings) -> int:
    from reader.app import run_app

    store = open_store(args, settings, report=False)  # the app shows what was repaired
    return run_app(store, settings)
