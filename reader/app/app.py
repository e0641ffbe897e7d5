"""ReaderApp: what is app-wide. The theme, the keymap, help, the command palette and the library
service; the main screen does the rest."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen

from reader.app.keys import key, keys_of
from reader.app.memory import share_arenas
from reader.app.paper_actions import TAG, PaperScreen, ShowSimilar
from reader.app.screens.detail import DetailScreen
from reader.app.screens.full_text import FullTextScreen
from reader.app.screens.help import HelpScreen, binding_rows
from reader.app.screens.main import MainScreen
from reader.app.screens.pdf_pages import PdfPagesScreen
from reader.app.screens.references import PaperLinksScreen
from reader.app.screens.similar import SimilarScreen
from reader.app.widgets.notice_line import NoticeLine
from reader.app.widgets.paper_list import PaperList
from reader.app.widgets.rising import RisingTable
from reader.app.widgets.sidebar import TopicSidebar
from reader.config import Settings, config_dir
from reader.keymap import key_clashes, load_keymap
from reader.service import LibraryService, open_service
from reader.service.library import QUIT_SECONDS
from reader.setting_values import theme_problem
from reader.store import Store

if TYPE_CHECKING:
    from reader.arxiv.options import ClientOptions


def stylesheet_path() -> Path:
    """styles/reader.tcss, the app's stylesheet: inside the package when installed from the wheel
    (pyproject.toml puts styles/ there), else in the checkout, where styles/ is its source. A
    path, not its text: `textual run --dev` watches CSS_PATH and reloads it when it changes."""
    package = Path(__file__).resolve().parent.parent
    installed = package / "styles" / "reader.tcss"
    return installed if installed.is_file() else package.parent / "styles" / "reader.tcss"


@cache
def known_bindings() -> dict[str, Binding]:
    """Every binding with an id (what a keymap may name), of each screen and widget with keys."""
    from reader.app.screens import detail, dialogs, export, full_text, help, main, pdf_pages, references, similar, tags
    from reader.app.widgets import filter_box, note, paper_list, rising, sidebar

    found: dict[str, Binding] = {}
    screens = (detail, dialogs, export, full_text, help, main, pdf_pages, references, similar, tags)
    for module in (*screens, filter_box, note, paper_list, rising, sidebar):
        for value in vars(module).values():
            for binding in getattr(value, "BINDINGS", []) if isinstance(value, type) else []:
                if isinstance(binding, Binding) and binding.id:
                    found.setdefault(binding.id, binding)
    return found


def known_binding_ids() -> set[str]:
    return set(known_bindings())


def binding_groups() -> list[list[tuple[str, str, str]]]:
    """(id, name, default keys) of the bindings active together: a screen's, its base classes',
    and those of the widget that may have focus on it."""

    def bindings_of(*classes: type) -> list[tuple[str, str, str]]:
        found = [b for c in classes for k in c.__mro__ for b in vars(k).get("BINDINGS", []) if isinstance(b, Binding) and b.id]
        return list({b.id: (b.id, b.description, b.key) for b in found if b.id}.values())

    focusable = (PaperList, TopicSidebar, RisingTable)
    return [bindings_of(MainScreen, widget) for widget in focusable] + [
        bindings_of(DetailScreen),
        bindings_of(FullTextScreen),
        bindings_of(SimilarScreen, PaperList),
        bindings_of(PaperLinksScreen),
        bindings_of(PdfPagesScreen),
    ]


class ReaderApp(App):
    CSS_PATH = stylesheet_path()
    TITLE = "reader"

    def __init__(
        self,
        store: Store,
        settings: Settings,
        *,
        client_options: ClientOptions | None = None,  # the tests' loopback arXiv
        sync_on_start: bool = True,
    ):
        super().__init__()
        self.store = store
        self.settings = settings
        # What reader/app/keys.py asks to name the key bound now in a text (see key()).
        self.known_bindings = known_bindings()
        self.active_together = binding_groups()
        self.service: LibraryService = open_service(store, settings)
        self.client_options = client_options
        self.sync_on_start = sync_on_start
        self._saved_theme = store.setting("theme")
        self.message_log: deque[str] = deque(maxlen=200)  # every notification, newest last

    def get_default_screen(self) -> Screen:
        return MainScreen(self.service, sync_on_start=self.sync_on_start, client_options=self.client_options)

    @property
    def main(self) -> MainScreen:
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    def on_mount(self) -> None:
        self.service.start_search()  # a first build of the index runs meanwhile the app starts
        loop = asyncio.get_running_loop()

        def run_on_ui(function: Callable[[], None]) -> None:
            loop.call_soon_threadsafe(function)

        self.service.run_on_ui = run_on_ui
        self.service.marks.tell = self._tell_marks
        for unknown in self.settings.unknown:  # a typo in config.toml: said, and the app starts without it
            self.notify(unknown.message, title="config.toml", severity="warning", timeout=20)
        self._apply_theme()
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        self._apply_keymap()

    class Noticed(Message):
        def __init__(self, message: str, title: str, severity: SeverityLevel, timeout: float | None):
            super().__init__()
            self.message, self.title, self.severity, self.timeout = message, title, severity, timeout

    def notify(
        self, message: str, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None, markup: bool = True
    ) -> None:
        """Every notification is plain text: messages quote feed and server text, which must never
        be read as markup (a `[@click=...]` in an arXiv error would otherwise be an action).
        Thread-safe, as Textual's: it is handed to the UI's thread as a message."""
        self.message_log.append(message)
        self.post_message(self.Noticed(message, title, severity, timeout))

    def on_reader_app_noticed(self, event: Noticed) -> None:
        """A toast, or on a screen the user reads (the detail view, help) its notice line: a toast
        there would cover the text."""
        lines = self.screen.query(NoticeLine)
        if not lines:
            super().notify(event.message, title=event.title, severity=event.severity, timeout=event.timeout, markup=False)
            return
        text = f"{event.title}: {event.message}" if event.title else event.message
        lines.first().show(text, event.severity, self.NOTIFICATION_TIMEOUT if event.timeout is None else event.timeout)

    def _apply_theme(self) -> None:
        """The theme setting if it names a theme, else the one chosen last (the setting's default)."""
        wanted = self.settings.theme
        problem = theme_problem(wanted, self.available_themes) if wanted else None
        if problem:
            where = self.settings.sources.get("theme")
            self.notify(f"theme {wanted!r}{f' ({where})' if where else ''} {problem}; the default is used", severity="warning", timeout=20)
            wanted = None
        if (wanted or self._saved_theme) in self.available_themes:
            self.theme = wanted or self._saved_theme

    def _remember_theme(self, theme) -> None:
        self.service.set_setting("theme", theme.name, on_error=lambda message: self.notify(message, severity="warning"))

    def _apply_keymap(self) -> None:
        """Keys the user remapped in keymap.toml beside config.toml (binding id = "keys", e.g.
        `"app.star" = "z"`); each wrong line is said, with its number, and only it is ignored."""
        bindings, messages = load_keymap(known_binding_ids(), config_dir=config_dir(), data_dir=self.store.data_dir)
        self.set_keymap(bindings)
        for message in messages + key_clashes(bindings, binding_groups()):
            self.notify(message, title="keymap.toml", severity="warning", timeout=20)

    @on(ShowSimilar)
    def _show_similar(self, message: ShowSimilar) -> None:
        """`m` on a list or a paper: "Like: TITLE" above it; Esc returns there, marks redrawn."""
        asked = self.screen

        def closed(_: object) -> None:
            if isinstance(asked, PaperScreen):
                asked.marks_changed()

        self.push_screen(SimilarScreen(self.service, message.paper_id), closed)

    def action_help_quit(self) -> None:
        """Ctrl+C, which copies in a text field, does not quit: say what does, in one sentence the
        same on every screen, the note editor's included. Textual's own notice is markup
        ("Press [b]q[/b]"), which notify() here shows as typed, and names whichever quit key the
        focused screen has."""
        quits = self.get_key_display(Binding("ctrl+q", ""))  # App's own binding: every screen, even while typing
        also = f"; {key(self, 'app.quit')} too on the main screen" if keys_of(self, "app.quit") else ""
        self.notify(f"{quits} quits reader from any screen{also}")

    def _tell_marks(self, message: str, severity: str) -> None:
        """What became of marks whose save failed (from the writer thread: notify is thread-safe)."""
        self.notify(message, severity="error" if severity == "error" else "information", timeout=15)

    async def action_quit(self) -> None:
        """Quit within QUIT_SECONDS, whatever the writer waits on (another process's lock): marks
        not saved by then are kept for the next start, and the terminal says so after the exit."""
        unsaved = await asyncio.to_thread(self.service.finish, QUIT_SECONDS)
        self.exit(message=None if unsaved is None else Text(unsaved))  # (Text: never read as markup)

    def on_unmount(self) -> None:
        self.service.close()  # writes done or kept; the ranking process stopped, even mid-ranking

    # --- help and the command palette ---

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.help_sections()))

    def help_sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """The keys of the screen the help was asked from first."""
        main = [
            ("Papers", binding_rows(self, [*PaperList.BINDINGS, TAG])),
            ("Actions", binding_rows(self, MainScreen.BINDINGS)),
            ("Sidebar", binding_rows(self, TopicSidebar.BINDINGS)),
            ("Rising", binding_rows(self, RisingTable.BINDINGS)),
        ]
        detail = [("Detail view", binding_rows(self, DetailScreen.BINDINGS))]
        if isinstance(self.screen, FullTextScreen):
            return [("Full text", binding_rows(self, FullTextScreen.BINDINGS))] + detail + main
        if isinstance(self.screen, PdfPagesScreen):
            return [("PDF pages", binding_rows(self, PdfPagesScreen.BINDINGS))] + detail + main
        if isinstance(self.screen, SimilarScreen):
            return [("More like this", binding_rows(self, SimilarScreen.BINDINGS))] + detail + main
        return detail + main if isinstance(self.screen, DetailScreen) else main + detail

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if not isinstance(screen, MainScreen):
            return
        for binding in MainScreen.BINDINGS:
            if isinstance(binding, Binding) and binding.show is not None and binding.action != "clear_filter":
                key = self.get_key_display(binding)
                yield SystemCommand(binding.description, f"key: {key}", lambda a=binding.action: screen.run_action(a))
        yield SystemCommand("Open paper", "key: ⏎", screen.paper_list.action_open)
        yield SystemCommand("Clear filter", "Show every paper of the view again", screen.action_clear_filter)


def run_app(store: Store, settings: Settings) -> int:
    share_arenas()
    ReaderApp(store, settings).run()  # a ReaderError is printed by reader.cli.main, as any command's
    return 0
