"""Shell completion. `reader completion bash|zsh|fish` prints a script; the script asks the hidden
`reader __complete SHELL -- WORDS... CURRENT` for candidates, so commands and options come from
the parser itself and names (topics, tags, watches) from the store
at the moment of completion."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from pathlib import Path

FILES = "__files__"  # tells the shell script to complete file names itself
FILE_DESTS = {"data_dir", "output"}  # and any argument whose metavar is FILE or DIR
# Which store names complete an argument: by an explicit mark (`completes_names(action, kind)`),
# else by the argument's dest. A new kind of name needs one entry in NAME_SOURCES.
DEST_KINDS = {"topic": "topic", "watch": "watch", "tag": "tag"}
NAME_SOURCES: dict[str, Callable] = {
    "topic": lambda store: [topic.name for topic in store.topics()],
    "tag": lambda store: list(store.tags()),
    "watch": lambda store: [watch.name for watch in store.watches()],
}
SHELLS = ("bash", "zsh", "fish")


def completes_names(action: argparse.Action, kind: str) -> argparse.Action:
    """Mark an argument as taking a name of `kind` (a key of NAME_SOURCES)."""
    action.completes = kind  # type: ignore[attr-defined]
    return action


def register(commands) -> None:
    parser = commands.add_parser(
        "completion", help="print a shell completion script (bash, zsh or fish)",
        description="Prints a script that completes commands, options and topic names. "
        "bash: reader completion bash > ~/.local/share/bash-completion/completions/reader; "
        "zsh: reader completion zsh > ~/.zfunc/_reader (with ~/.zfunc in fpath); "
        "fish: reader completion fish > ~/.config/fish/completions/reader.fish",
    )
    parser.add_argument("shell", choices=SHELLS)
    parser.set_defaults(handler=cmd_completion)
    helper = commands.add_parser("__complete")  # no help: the scripts' helper stays out of --help
    helper.add_argument("shell", choices=SHELLS)
    helper.add_argument("words", nargs=argparse.REMAINDER)
    helper.set_defaults(handler=cmd_complete)


def cmd_completion(args, settings) -> int:
    print(SCRIPTS[args.shell], end="")
    return 0


def cmd_complete(args, settings) -> int:
    words = args.words[1:] if args.words[:1] == ["--"] else args.words
    typed, current = [_dequote(w) for w in words[:-1]], words[-1] if words else ""
    found = candidates(args.root_parser, typed, _dequote(current), lambda kind: _names(kind, typed, settings))
    for candidate in found:
        print(_for_bash(candidate, current) if args.shell == "bash" and candidate != FILES else candidate)
    return 0


# --- what can come next --------------------------------------------------------------------------


def candidates(parser: argparse.ArgumentParser, typed: list[str], current: str, names: Callable[[str], list[str]]) -> list[str]:
    """Completions of `current` after the words `typed` (without the program name)."""
    node, positionals, expecting = parser, 0, None
    for word in typed:
        if expecting is not None:
            expecting = None
        elif word.startswith("-") and word != "-":
            action = _option(node, word.partition("=")[0])
            if action is not None and action.nargs != 0 and "=" not in word:
                expecting = action
        elif (sub := _subcommands(node)) is not None and word in sub.choices:
            node, positionals = sub.choices[word], 0
        else:
            positionals += 1
    if expecting is not None:
        return _values(expecting, current, names)
    if current.startswith("-"):
        options = [s for a in node._actions for s in a.option_strings if a.help != argparse.SUPPRESS]
        return sorted(option for option in options if option.startswith(current))
    sub = _subcommands(node)
    if sub is not None and positionals == 0:
        return sorted(name for name in sub.choices if name.startswith(current) and not name.startswith("_"))
    arguments = [a for a in node._actions if not a.option_strings and not isinstance(a, argparse._SubParsersAction)]
    if not arguments:
        return []
    index = min(positionals, len(arguments) - 1) if arguments[-1].nargs in ("+", "*") else positionals
    return _values(arguments[index], current, names) if index < len(arguments) else []


def _option(parser: argparse.ArgumentParser, text: str) -> argparse.Action | None:
    return next((a for a in parser._actions if text in a.option_strings), None)


def _subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)


def _values(action: argparse.Action, current: str, names: Callable[[str], list[str]]) -> list[str]:
    if action.choices:
        return [str(c) for c in action.choices if str(c).startswith(current)]
    if action.dest in FILE_DESTS or action.metavar in ("FILE", "DIR"):
        return [FILES]
    kind = getattr(action, "completes", None) or DEST_KINDS.get(action.dest)
    if kind is None:
        return []
    wanted = current.casefold()
    return sorted(name for name in names(kind) if name.casefold().startswith(wanted))


def _names(kind: str, typed: list[str], settings) -> list[str]:
    """Names from the store, read only if the data directory exists; nothing on any error."""
    from reader.config import default_data_dir
    from reader.errors import ReaderError
    from reader.store import Store

    source = NAME_SOURCES.get(kind)
    flag = typed.index("--data-dir") + 1 if "--data-dir" in typed[:-1] else None
    data_dir = Path(typed[flag]).expanduser() if flag else settings.data_dir or default_data_dir()
    if source is None or not (data_dir / "user.json").is_file():
        return []
    try:
        return [name for name in source(Store(data_dir)) if name.isprintable()]
    except (ReaderError, OSError):
        return []


# --- quoting as each shell has it ------------------------------------------------------------------


def _dequote(word: str) -> str:
    """A word as typed on the command line, without its quotes or backslashes."""
    if word[:1] in ("'", '"'):
        return word[1:-1] if len(word) > 1 and word[-1] == word[0] else word[1:]
    return re.sub(r"\\(.)", r"\1", word)


def _for_bash(candidate: str, typed: str) -> str:
    """bash inserts candidates as they are: quote them the way the user began to."""
    if typed[:1] in ("'", '"'):
        return typed[0] + candidate + typed[0]
    return re.sub(r"([^\w./:,@%+=-])", r"\\\1", candidate)


BASH = r"""# bash completion for reader. Install: reader completion bash > ~/.local/share/bash-completion/completions/reader
_reader_complete() {
    local IFS=$'\n' current=${COMP_WORDS[COMP_CWORD]}
    local -a found
    found=($(reader __complete bash -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
    if [[ ${found[0]} == __files__ ]]; then
        compopt -o filenames 2>/dev/null
        found=($(compgen -f -- "$current"))
    fi
    COMPREPLY=("${found[@]}")
}
complete -F _reader_complete reader
"""

ZSH = r"""#compdef reader
# zsh completion for reader. Install: reader completion zsh > ~/.zfunc/_reader (with ~/.zfunc in fpath)
_reader() {
    local -a found
    found=("${(@f)$(reader __complete zsh -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
    if [[ ${found[1]} == __files__ ]]; then
        _files
    else
        compadd -a found
    fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    _reader "$@"
else
    compdef _reader reader
fi
"""

FISH = r"""# fish completion for reader. Install: reader completion fish > ~/.config/fish/completions/reader.fish
function __reader_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    set -l found (reader __complete fish -- $words[2..-1] $current 2>/dev/null)
    if test "$found[1]" = __files__
        __fish_complete_path $current
    else
        printf '%s\n' $found
    end
end
complete -c reader -f -a '(__reader_complete)'
"""

SCRIPTS = {"bash": BASH, "zsh": ZSH, "fish": FISH}
