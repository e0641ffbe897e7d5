"""The command line: `reader` opens the app; subcommands script everything else."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from reader.commands import (
    common,
    completion,
    config,
    digest,
    export,
    importing,
    listing,
    marks,
    momentum,
    similar,
    sync,
    tags_notes,
    text,
    topics,
    triage,
    watches,
)
from reader.commands.app import cmd_app
from reader.config import default_data_dir, load_settings
from reader.errors import ReaderError

# The subcommands' modules, in the order `reader --help` lists their commands.
COMMANDS = (sync, topics, listing, marks, tags_notes, watches, momentum, export, importing, text, digest, triage, similar, config, completion)
# Arguments that are paths: any bytes the system allows (the others must be valid text).
PATH_ARGUMENTS = ("data_dir", "output", "file")


class _Parser(argparse.ArgumentParser):
    """Usage mistakes are one line and exit status 1, like every other error."""

    def error(self, message: str) -> NoReturn:
        common.print_error(f"{message} (see `{self.prog} --help`)")
        self.exit(common.EXIT_ERROR)

    def parse_known_args(self, args=None, namespace=None):
        """Every parser, a subcommand's included, refuses what it does not know itself, so the
        error points to that subcommand's help (argparse leaves it to the top: `reader --help`)."""
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def _default_data_dir() -> str:
    """The data directory used when --data-dir is not given, and where that comes from."""
    settings = load_settings(lenient=True)  # a bad setting is said when a command runs
    if settings.data_dir is not None:
        from_env = settings.sources["data_dir"].kind == "env"
        return f"{settings.data_dir}, from $READER_DATA_DIR" if from_env else str(settings.data_dir)
    return str(default_data_dir())


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="reader",
        description="Follow fast-moving arXiv topics. With no command, opens the app.",
    )
    parser.add_argument("--data-dir", metavar="DIR", help=f"where the cache lives (default: {_default_data_dir()})")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="also print the log to stderr (-vv: with debug detail)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__import__('reader').__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for area in COMMANDS:
        area.register(commands)
    commands.choices["__complete"].set_defaults(root_parser=parser)  # what the completion helper walks
    return parser


def _check_text_arguments(args: argparse.Namespace) -> None:
    """Names, queries and ids must be text: bytes that are not UTF-8 reach Python as surrogates,
    which no file can store. (Paths may be any bytes the system allows.)"""
    for name, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        for word in values:
            if name not in PATH_ARGUMENTS and isinstance(word, str) and not word.isascii():
                try:
                    word.encode("utf-8")
                except UnicodeEncodeError:
                    shown = word.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                    raise ReaderError(f"{shown!r} is not valid UTF-8 text: retype it") from None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, --version, or a usage error already printed
        return done.code if isinstance(done.code, int) else 0
    common.opened.clear()
    try:
        _check_text_arguments(args)
        # `reader config` lists every problem of the settings; every other command stops at the first.
        settings = load_settings({"data_dir": args.data_dir}, lenient=getattr(args, "lists_config_problems", False))
        handler = getattr(args, "handler", cmd_app)
        from reader import logs

        # The app owns the terminal: its records go to the log file only.
        with logs.logging_to(logs.log_file(), verbose=args.verbose if handler is not cmd_app else 0):
            return handler(args, settings)
    except ReaderError as error:
        common.print_error(error)
        return common.EXIT_ERROR
    except KeyboardInterrupt:
        print("reader: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    finally:
        for store in common.opened:
            common.print_warnings(store)  # what was repaired while the command ran
