"""`reader config`: the effective settings, where each came from, and the paths in use."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from reader.config import SPECS, Settings, config_dir, config_file, default_data_dir, log_dir


def register(commands) -> None:
    parser = commands.add_parser(
        "config", help="show the effective settings, where each came from, and the paths in use",
        description="Settings come from a flag, else the environment (READER_...), else the config file, "
        "else their default. reader never writes the config file: edit it yourself.",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON object (for scripts)")
    parser.add_argument("--example", action="store_true", help="print an example config file, every setting commented out")
    parser.set_defaults(handler=cmd_config)


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
    places = paths(settings)
    if args.json:
        report = {
            "settings": {
                spec.name: {
                    "value": _plain(getattr(settings, spec.attribute)),
                    "source": settings.sources[spec.name].kind,
                    "where": settings.sources[spec.name].where,
                    "env": spec.env,
                }
                for spec in SPECS
            },
            "paths": {name: str(path) for name, path in places.items()},
            "config_file_exists": places["config"].is_file(),
        }
        print(json.dumps(report, indent=2))
        return 0
    rows = [(spec.name, _shown(getattr(settings, spec.attribute)), str(settings.sources[spec.name])) for spec in SPECS]
    name_width = max(len(name) for name, _, _ in rows)
    value_width = max(len(value) for _, value, _ in rows)
    print("settings (flag > environment > config file > default):")
    for name, value, source in rows:
        print(f"  {name:<{name_width}}  {value:<{value_width}}  {source}")
    print("paths:")
    for name, path in places.items():
        absent = name in ("config", "keymap") and not path.is_file()
        print(f"  {name:<7} {path}{'  (none yet)' if absent else ''}")
    if not places["config"].is_file():
        print(f"create {places['config']} to change settings; `reader config --example` prints one")
    return 0


def _plain(value: Any) -> Any:
    if isinstance(value, (Path, date)):
        return str(value)
    return value


def _shown(value: Any) -> str:
    if value is None:
        return "(not set)"
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
        shown = json.dumps(value) if isinstance(value, str) else f"{value!r}"
        lines.append(f"# {key} = {shown}  # {spec.help}" + (" (unset by default)" if spec.default is None else ""))
    return "\n".join(lines) + "\n"
