"""The app's stylesheet is the file styles/reader.tcss, named by CSS_PATH: what `textual run --dev`
watches and reloads when it changes (a stylesheet read into CSS at import would never be)."""

from __future__ import annotations

from pathlib import Path

from reader.app import ReaderApp
from tests.helpers.app import make_app, ready

ROOT = Path(__file__).resolve().parent.parent


def test_the_app_names_its_stylesheet_file_in_the_checkout():
    assert ReaderApp.CSS_PATH == ROOT / "styles" / "reader.tcss"
    assert not ReaderApp.CSS  # the rules come from the file alone


async def test_the_running_app_reads_its_rules_from_the_stylesheet_file(store):
    app = make_app(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert app.css_path == [ROOT / "styles" / "reader.tcss"]  # what --dev watches
        assert app.query_one("#sidebar").styles.width.value == 30  # `#sidebar { width: 30; }` there
