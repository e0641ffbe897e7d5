"""The Textual app. Imported only when the app runs: the CLI stays fast without Textual."""

from reader.app.app import ReaderApp, run_app

__all__ = ["ReaderApp", "run_app"]
