"""The command line: `reader` opens the app; subcommands script everything else."""

from __future__ import annotations

import argparse
import sys
from importlib import import_module
from typing import NoReturn

from reader.commands import AREAS, common
from reader.commands.app import cmd_app
from reader.config import default_data_dir, load_settings
from reader.errors import ReaderError

APP = ""  # build_parser's command when none is given: the app, which needs no command's parser
# Arguments that are paths: any bytes the system allows (the others must be valid text).
PATH_ARGUMENTS = ("data_dir", "output", "file")


def _did_you_mean(word: str, choices: list[str], prefix: str = "") -> str:
    """ " (did you mean X?)" naming the choice nearest a mistyped one, or nothing; `prefix` is
    shared by every choice (an option's "--"), so it is left out of the comparison."""
    import difflib  # (only a mistake needs it)

    close = difflib.get_close_matches(word.removeprefix(prefix), [choice.removeprefix(prefix) for choice in choices], n=1)
    return f" (did you mean {prefix}{close[0]}?)" if close else ""


class _Parser(argparse.ArgumentParser):
    """Usage mistakes are one line and exit status 1, like every other error; a mistyped command,
    choice or option names the nearest one, as keymap ids, themes and settings do."""

    def error(self, message: str) -> NoReturn:
        common.print_error(f"{message} (see `{self.prog} --help`)")
        self.exit(common.EXIT_ERROR)

    def parse_known_args(self, args=None, namespace=None):
        """Every parser, a subcommand's included, refuses what it does not know itself, so the
        error points to that subcommand's help (argparse leaves it to the top: `reader --help`)."""
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            options = [option for option in self._option_string_actions if option.startswith("--")]
            typed = extras[0].partition("=")[0]
            hint = _did_you_mean(typed, options, prefix="--") if typed.startswith("--") else ""
            self.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
        return parsed, extras

    def _check_value(self, action: argparse.Action, value) -> None:
        """argparse's check of a choice (a command, an action, a format), with the nearest one
        named, and the choices listed without the completion helper's hidden `__complete`."""
        if action.choices is None or value in action.choices:
            return
        choices = [str(choice) for choice in action.choices if not str(choice).startswith("__")]
        raise argparse.ArgumentError(
            action, f"invalid choice: {value!r}{_did_you_mean(str(value), choices)} (choose from {', '.join(choices)})"
        )


class _DefaultDataDir:
    """The data directory used when --data-dir is not given, and where that comes from: read from
    the settings only when the help is printed (every command read them twice)."""

    def __str__(self) -> str:
        settings = load_settings(lenient=True)  # a bad setting is said when a command runs
        if settings.data_dir is not None:
            from_env = settings.sources["data_dir"].kind == "env"
            return f"{settings.data_dir}, from $READER_DATA_DIR" if from_env else str(settings.data_dir)
        return str(default_data_dir())


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `command`, only that command's parser under the top one (its
    arguments, help and errors are the same: argparse's work for all ~40 was ~30 ms of every
    start), none for APP. The whole one when `command` is not one of them, to say what is."""
    parser = _Parser(
        prog="reader",
        description="Follow fast-moving arXiv topics. With no command, opens the app.",
    )
    data_dir = parser.add_argument("--data-dir", metavar="DIR", help="where the cache lives (default: %(where)s)")
    data_dir.where = _DefaultDataDir()  # type: ignore[attr-defined]  # (argparse fills %(...)s from the action)
    parser.add_argument("-v", "--verbose", action="count", default=0, help="also print the log to stderr (-vv: with debug detail)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__import__('reader').__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    if command == APP:
        return parser
    only = _OnlyCommand(commands, command) if command is not None and command != "__complete" else None
    for area in _areas(command if only is not None else None):
        area.register(only or commands)
    if only is not None and not only.found:
        return build_parser()
    if only is None:
        commands.choices["__complete"].set_defaults(root_parser=parser)  # what the completion helper walks
    return parser


def _areas(command: str | None) -> list:
    """The modules of the commands' areas whose registrations build the parser: only the one of
    `command` (each command imports what it runs, not what the ~40 others do), or every one."""
    named = [name for name, commands in AREAS if command in commands]
    return [import_module(f"reader.commands.{name}") for name in named or [name for name, _ in AREAS]]


class _Unused:
    """What a command's registration gets for the parsers of commands not run: it takes any call
    and attribute, and builds nothing."""

    def __getattr__(self, name: str) -> _Unused:
        return self

    def __call__(self, *args, **options) -> _Unused:
        return self


class _OnlyCommand:
    """The subparsers action, as registrations see it, adding only one command's parser."""

    def __init__(self, commands, name: str):
        self._commands = commands
        self._name = name
        self.found = False

    def add_parser(self, name: str, **options):
        if name != self._name:
            return _Unused()
        self.found = True
        return self._commands.add_parser(name, **options)


def parser_for(argv: list[str]) -> argparse.ArgumentParser:
    """The parser `argv` needs: its command's alone, none when it opens the app, else the whole."""
    return build_parser(APP if _opens_the_app(argv) else command_word(argv))


def _opens_the_app(argv: list[str]) -> bool:
    """Whether `argv` holds only the top options the app takes (no command, no help, nothing an
    error would list the commands for): then no command's parser is built, nor its module
    imported, on the way to the app's first paint."""
    words = iter(argv)
    for word in words:
        if word == "--data-dir":
            next(words, None)
        elif not (word.startswith("--data-dir=") or word == "--verbose" or (word[:2] == "-v" and set(word[1:]) == {"v"})):
            return False
    return True


def command_word(argv: list[str]) -> str | None:
    """The command `argv` runs (the first word that is not a top option); None when there is none
    or the top help comes first."""
    words = iter(argv)
    for word in words:
        if word in ("-h", "--help", "--version", "--"):
            return None
        if word == "--data-dir":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


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
    parser = parser_for(sys.argv[1:] if argv is None else argv)
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
        if handler is not cmd_app and not getattr(args, "lists_config_problems", False):
            for unknown in settings.unknown:  # the app says it in a notice; `reader config` in its list
                common.print_warning(unknown.message)
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
