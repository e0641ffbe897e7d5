"""Edit a text in the user's $EDITOR: the app hands the terminal over and takes it back."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from textual.app import App, SuspendNotSupported

from reader.app.keys import key

FALLBACK_EDITOR = "vi"


class EditorError(Exception):
    """Why the text could not be edited, as one line for a notification."""


def editor_command(app: App) -> list[str]:
    """$EDITOR as a command (it may carry arguments, e.g. `code --wait`), or vi without it."""
    value = os.environ.get("EDITOR", "").strip()
    try:
        command = shlex.split(value or FALLBACK_EDITOR)
    except ValueError as error:
        raise EditorError(f"$EDITOR is not a command line ({error}): {value!r}") from None
    if not command or shutil.which(command[0]) is None:
        where = "$EDITOR" if value else "the editor used when $EDITOR is not set"
        program = command[0] if command else value
        raise EditorError(
            f"No editor: {program!r} ({where}) was not found. Set EDITOR, e.g. EDITOR=nano, or press {key(app, 'detail.note')} to edit here."
        )
    return command


def edit_text(app: App, text: str, name: str) -> str | None:
    """The text after the user edited it in $EDITOR (a private temporary file named after
    `name`, deleted after), or None when the editor quit with an error status (vi's :cq) or
    left it unchanged. Runs the editor on the UI's thread: the app is suspended meanwhile."""
    command = editor_command(app)
    safe_name = "".join(char if char.isalnum() or char in ".-" else "_" for char in name)
    handle, path = tempfile.mkstemp(prefix=f"reader-note-{safe_name}-", suffix=".md")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text + "\n" if text and not text.endswith("\n") else text)
        try:
            with app.suspend():
                status = subprocess.run([*command, path], check=False).returncode
        except SuspendNotSupported:
            raise EditorError(f"This terminal cannot hand over to an editor: press {key(app, 'detail.note')} to edit here.") from None
        except OSError as error:
            raise EditorError(f"Could not run {command[0]}: {error.strerror or error}") from None
        if status != 0:
            raise EditorError(f"{command[0]} exited with status {status}: the note is unchanged.")
        try:
            edited = Path(path).read_text("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise EditorError(f"Could not read the edited note back: {error}") from None
    finally:
        Path(path).unlink(missing_ok=True)
    edited = edited.rstrip("\n")  # editors end the file with a line break the note did not have
    return None if edited == text.rstrip("\n") else edited
