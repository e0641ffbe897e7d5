"""The footer of every screen: Textual's, recomposed only when the keys it shows change."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """Textual recomposes its Footer whenever a screen's bindings may have changed (each screen
    switch, each move of the focus), mounting one widget per key again: two thirds of the time
    it took to open the detail view. This one does so only when what it would show differs."""

    _keys: tuple | None = None  # what the footer was composed from

    def bindings_changed(self, screen: Screen) -> None:
        keys = tuple(
            (binding.key, binding.description, binding.action, binding.show, binding.group, enabled, tooltip)
            for _, binding, enabled, tooltip in screen.active_bindings.values()
        )
        if keys == self._keys and self._bindings_ready:
            return
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self._keys = keys  # Footer recomposes now (else it waits: focus away from the app)
        super().bindings_changed(screen)
