"""The key bar at the bottom of every screen: the keys the screen offers now, drawn by one widget."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget

KEPT_ACTIONS = ("help", "quit")


@dataclass(frozen=True)
class ShownKey:
    key: str  # what a click presses
    display: str  # as the keymap and the terminal name it, e.g. "⏎" or "^p"
    description: str
    enabled: bool
    tooltip: str
    kept: bool = False  # shown however narrow the terminal (help, which leads to every key, and quit)


class KeyFooter(Widget, can_focus=False):
    """The screen's active bindings that are shown (one key per action, in the order Textual
    gives them; Help and Quit kept when a narrow terminal leaves out the others) and the
    command palette's key at the right, as Textual's Footer lays them out.

    One widget drawing one line, where Footer mounts a widget per key and mounts them again at
    every change of the bindings: a screen switch restyles and lays out each widget of the new
    screen, and the footer's widgets were a third of the time it took to open the detail view.
    A click presses the key (a disabled one rings the bell); a key under the mouse is
    highlighted and shows its tooltip."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"key-footer--key", "key-footer--description", "key-footer--hover", "key-footer--separator"}
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .key-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .key-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .key-footer--hover {
            background: $block-hover-background;
        }
        & > .key-footer--separator {
            color: $foreground 20%;
        }
    }
    """

    def __init__(self, *, compact: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.compact = compact  # no padding around keys (the main screen's many keys fit)
        self.keys: tuple[ShownKey, ...] = ()
        self.palette: ShownKey | None = None
        self._spans: list[tuple[int, int, ShownKey]] = []  # each key's columns, as last drawn
        self._hover: ShownKey | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        """Redrawn (one line, no layout) only when what it shows differs. Not while the terminal
        is out of focus: Textual takes the focus from the widget then, and its keys would go
        (Textual refreshes the bindings when the focus comes back)."""
        if not self.is_attached or screen is not self.screen or not self.app.app_focus:
            return
        keys: dict[str, ShownKey] = {}
        palette = None
        app = self.app
        for _, binding, enabled, tooltip in screen.active_bindings.values():
            kept = binding.action.rpartition(".")[2] in KEPT_ACTIONS
            shown = ShownKey(binding.key, app.get_key_display(binding), binding.description, enabled, tooltip, kept)
            if binding.show:
                keys.setdefault(binding.action, shown)
            elif binding.key == app.COMMAND_PALETTE_BINDING and app.ENABLE_COMMAND_PALETTE:
                palette = ShownKey(binding.key, shown.display, binding.description, enabled, binding.tooltip or binding.description)
        if (tuple(keys.values()), palette) != (self.keys, self.palette):
            self.keys, self.palette = tuple(keys.values()), palette
            if self._hover not in (*self.keys, palette):
                self._set_hover(None)  # its tooltip went with it
            self.refresh()

    def _label(self, key: ShownKey) -> tuple[str, str]:
        if self.compact:
            return key.display, f" {key.description}" if key.description else ""
        return f" {key.display} ", f"{key.description} " if key.description else ""

    def _fitting(self, room: int) -> list[ShownKey]:
        """The keys that fit `room` columns, in their order: those that are not kept leave first,
        whole, from the end (help and quit stay however narrow the terminal)."""
        gap = 1 if self.compact else 0  # between two keys
        width = {key: cell_len("".join(self._label(key))) for key in self.keys}
        shown = list(self.keys)
        while sum(width[key] + gap for key in shown) - gap > room:
            dropped = next((key for key in reversed(shown) if not key.kept), None)
            if dropped is None:
                break  # only kept keys left: the line is cut
            shown.remove(dropped)
        return shown

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-footer--key")
        description_style = self.get_component_rich_style("key-footer--description")
        hover = self.get_component_rich_style("key-footer--hover")
        line = Text(no_wrap=True, overflow="crop", end="")
        spans: list[tuple[int, int, ShownKey]] = []

        def add(key: ShownKey, label: tuple[str, str]) -> None:
            start = line.cell_len
            extra = hover if key == self._hover else Style()
            dim = Style() if key.enabled else Style(dim=True)
            line.append(label[0], key_style + extra + dim)
            line.append(label[1], description_style + extra + dim)
            spans.append((start, line.cell_len, key))

        palette = None if self.palette is None else (self.palette.display, f" {self.palette.description}")
        # The palette's key at the right edge, after a separator; the keys in the room before it.
        room = self.size.width - (cell_len("".join(palette)) + 1 if palette else 0)
        for key in self._fitting(room):
            add(key, self._label(key))
            if self.compact:
                line.append(" ")
        line.truncate(max(room, 0))
        spans[:] = [span for span in spans if span[1] <= line.cell_len]
        if palette is not None and self.palette is not None:
            line.pad_right(room - line.cell_len)
            line.append("▏", self.get_component_rich_style("key-footer--separator"))
            add(self.palette, palette)
        self._spans = spans
        return line

    def _key_at(self, x: int) -> ShownKey | None:
        return next((key for start, end, key in self._spans if start <= x < end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        key = self._key_at(event.x)
        if key is None:
            return
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self._key_at(event.x))

    def on_leave(self) -> None:
        self._set_hover(None)

    def _set_hover(self, key: ShownKey | None) -> None:
        if key != self._hover:
            self._hover = key
            self.tooltip = (key.tooltip or None) if key is not None else None
            self.refresh()
