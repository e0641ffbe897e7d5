"""`reader config`: the effective settings, where each came from, and the paths in use. Bad
settings do not stop it: each shows the value in use (from the next source down) and its problem,
and the exit status is 1 while there are any."""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path
from typing import Any

from reader.config import (
    SPECS,
    Settings,
    Source,
    config_dir,
    config_file,
    default_data_dir,
    load_settings,
    log_dir,
)
from reader.core.text import plural
from reader.errors import ReaderError

EXIT_PROBLEMS = 1


def register(commands) -> None:
    parser = commands.add_parser(
        "config",
        help="show the effective settings, where each came from, and the paths in use",
        description="Settings come from a flag, else the environment (READER_...), else the config file, "
        "else their default. reader never writes the config file: edit it yourself. A bad setting is "
        "shown with the value used instead and its problem (every one of them); the exit status is 1 "
        "while there are any.",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON object (for scripts), with the problems in `errors`")
    parser.add_argument("--example", action="store_true", help="print an example config file, every setting commented out")
    parser.set_defaults(handler=cmd_config, lists_config_problems=True)


def paths(settings: Settings) -> dict[str, Path]:
    from reader.keymap import keymap_path

    return {
        "config": config_file(),
        "keymap": keymap_path(config_dir()),
        "data": settings.data_dir or default_data_dir(),
        "log": log_dir(),
    }


def cmd_config(args, settings: Settings) -> int:
    if args.example:
        print(example_file(), end="")
        return 0
    from textual.theme import BUILTIN_THEMES  # the app's themes: a misspelt one is a problem here

    settings = load_settings({"data_dir": args.data_dir}, lenient=True, themes=BUILTIN_THEMES)
    places = paths(settings)
    shown = {spec.name: (getattr(settings, spec.attribute), settings.sources[spec.name]) for spec in SPECS}
    if settings.theme is None:
        saved = _saved_theme(places["data"])
        if saved is not None:
            shown["theme"] = saved
    problems = settings.problems
    if args.json:
        return _print_json(shown, places, settings)
    _print_settings(shown, places, settings)
    if not places["config"].is_file():
        print(f"create {places['config']} to change settings; `reader config --example` prints one")
    if problems:
        print(
            f"reader: error: {plural(len(problems), 'problem')} in the settings (shown above): fix them, "
            "the values shown are used meanwhile",
            file=sys.stderr,
        )
        return EXIT_PROBLEMS
    return 0


def _saved_theme(data_dir: Path) -> tuple[str, Source] | None:
    """The theme last chosen in the app (Ctrl+P, Theme), which it uses when no setting names one,
    and the file it is saved in; None when there is none (nothing is created to find out)."""
    from reader.store import Store

    user_file = data_dir / "user.json"
    if not user_file.is_file():
        return None
    try:
        theme = Store(data_dir, check_user_files=False).setting("theme")
    except ReaderError:
        return None
    return (theme, Source("saved", str(user_file))) if isinstance(theme, str) else None


def _plain(value: Any) -> Any:
    if isinstance(value, (Path, date)):
        return str(value)
    return value


def _shown(value: Any) -> str:
    if value is None:
        return "(not set)"
    if isinstance(value, bool):
        return "true" if value else "false"  # as the config file writes it
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def example_file() -> str:
    """Every file setting with its default (or an example), commented out, grouped by table."""
    lines = [
        "# reader's config file. Uncomment and change what you need; environment variables",
        "# (READER_...) and command-line flags override it. reader only ever reads this file.",
    ]
    table = ""
    for spec in sorted((s for s in SPECS if s.in_file), key=lambda s: ("." in s.name, s.name.split(".")[0])):
        section, _, key = spec.name.rpartition(".")
        if section != table:
            lines += ["", f"[{section}]"]
            table = section
        value = spec.default if spec.default is not None else spec.example
        shown = json.dumps(value) if isinstance(value, (str, bool)) else f"{value!r}"  # TOML's true/false
        lines.append(f"# {key} = {shown}  # {spec.help}" + (" (unset by default)" if spec.default is None else ""))
    return "\n".join(lines) + "\n"


def _print_json(shown: dict[str, tuple[Any, Source]], places: dict[str, Path], settings: Settings) -> int:
    """The settings, paths, the meaning index and problems as JSON (--json)."""
    from reader.commands.meaning import status_json
    from reader.meaning.vectors import stored

    problems = settings.problems
    report = {
        "settings": {
            spec.name: {
                "value": _plain(shown[spec.name][0]),
                "source": shown[spec.name][1].kind,
                "where": shown[spec.name][1].where,
                "env": spec.env,
            }
            for spec in SPECS
        },
        "paths": {name: str(path) for name, path in places.items()},
        "config_file_exists": places["config"].is_file(),
        "meaning": status_json(stored(places["data"])),
        "errors": [problem.to_json() for problem in problems],
        "warnings": [unknown.to_json() for unknown in settings.unknown],
    }
    print(json.dumps(report, indent=2))
    return EXIT_PROBLEMS if problems else 0


def _print_settings(shown: dict[str, tuple[Any, Source]], places: dict[str, Path], settings: Settings) -> None:
    """Each setting with where its value comes from and its problems, then the paths and the
    meaning index."""
    from reader.commands.meaning import status_lines
    from reader.meaning.vectors import stored

    problems = settings.problems
    rows = [(name, _shown(value), str(source)) for name, (value, source) in shown.items()]
    name_width = max(len(name) for name, _, _ in rows)
    value_width = max(len(value) for _, value, _ in rows)
    print("settings (flag > environment > config file > default):")
    for name, value, source in rows:
        print(f"  {name:<{name_width}}  {value:<{value_width}}  {source}")
        for problem in problems:
            if problem.setting == name:  # the value shown is the next source's
                print(f"    error: {problem.message}")
    for problem in problems:
        if problem.setting not in shown:  # the file as a whole
            print(f"  error: {problem.message}")
    for unknown in settings.unknown:
        print(f"  warning: {unknown.message}")
    print("paths:")
    for name, path in places.items():
        absent = name in ("config", "keymap") and not path.is_file()
        print(f"  {name:<7} {path}{'  (none yet)' if absent else ''}")
    for line in status_lines(stored(places["data"])):
        print(line)
