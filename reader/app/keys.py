"""The key bound now to an action, for every text that names one (a hint, a card's line, an empty
list's message, help): asked of the keymap, so that with `"app.hide" = "s"` the card says
"s brings it back", never the default key that no longer does it."""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding


def _registered(app: App) -> tuple[dict[str, Binding], list[list[tuple[str, str, str]]]]:
    """What the app registered at its start (ReaderApp): every binding with an id, and the
    groups of bindings active together. Asked of the app so that this module, which every
    screen uses, imports none of them."""
    return getattr(app, "known_bindings", {}), getattr(app, "active_together", [])


def keys_of(app: App, binding_id: str) -> list[str]:
    """The keys of a binding as the keymap leaves them, less those a remap of another binding
    active with it took (the keymap's notice says so: "Hide has no key")."""
    keymap: dict[str, str] = getattr(app, "_keymap", {}) or {}
    known, groups = _registered(app)
    default = known[binding_id].key

    def keys(of: str, default_keys: str) -> list[str]:
        return [key.strip() for key in (keymap.get(of) or default_keys).split(",")]

    mine = keys(binding_id, default)
    if binding_id in keymap:
        return mine  # a remap keeps its keys; a binding left with its defaults loses a taken one
    taken = {
        key
        for group in groups
        if any(b == binding_id for b, _, _ in group)
        for other, _, other_default in group
        if other != binding_id and other in keymap
        for key in keys(other, other_default)
    }
    return [key for key in mine if key not in taken]


def key(app: App, binding_id: str) -> str:
    """The first key bound now to `binding_id`, as the footer shows it ("s", "⏎"; "Esc" and "F2"
    capitalised, as they stand in sentences); with no
    key left, the action's name and the command palette's key, where every action is found."""
    keys = keys_of(app, binding_id)
    if keys:
        shown = app.get_key_display(Binding(keys[0], ""))
        return shown[0].upper() + shown[1:] if len(shown) > 1 and shown.isalnum() else shown  # Esc, F2 in a sentence
    return f"{_registered(app)[0][binding_id].description} (^p)"
