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
        "completion",
        help="print a shell completion script (bash, zsh or fish)",
        description="Prints a script that completes commands, options, file paths and topic, tag and watch names. "
        "bash: reader completion bash > ~/.local/share/bash-completion/completions/reader; "
        "zsh: reader completion zsh > ~/.zfunc/_reader (with ~/.zfunc in fpath); "
        "fish: reader completion fish > ~/.config/fish/completions/reader.fish",
    )
    parser.add_argument("shell", choices=SHELLS)
    parser.set_defaults(handler=cmd_completion)
    helper = commands.add_parser("__complete")  # no help: the scripts' helper stays out of --help
    helper.add_argument("shell", choices=SHELLS)
    helper.add_argument("--region", help="bash: the part of the last word readline replaces ($2)")
    helper.add_argument("words", nargs=argparse.REMAINDER)
    helper.set_defaults(handler=cmd_complete)


def cmd_completion(args, settings) -> int:
    print(SCRIPTS[args.shell], end="")
    return 0


def cmd_complete(args, settings) -> int:
    words = args.words[1:] if args.words[:1] == ["--"] else args.words
    typed, current = [_dequote(w) for w in words[:-1]], words[-1] if words else ""
    found = candidates(args.root_parser, typed, _dequote(current), lambda kind: _names(kind, typed, settings))
    if args.shell == "bash" and found != [FILES]:
        # zsh and fish quote what they insert themselves; bash inserts candidates as they are
        region = args.region if args.region is not None else current[1:] if current[:1] in QUOTES else current
        found = [reply for candidate in found if (reply := _for_bash(candidate, current, region)) is not None]
    for candidate in found:
        print(candidate)
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


QUOTES = ("'", '"')


def _dequote(word: str) -> str:
    """A word as the shell reads it, as far as it is typed: without its quotes and backslashes."""
    text, quote, escaped = [], "", False
    for char in word:
        if escaped:
            if quote == '"' and char not in '$`"\\':  # in double quotes a backslash stays before others
                text.append("\\")
            text.append(char)
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif char == quote:
            quote = ""
        elif char in QUOTES and not quote:
            quote = char
        else:
            text.append(char)
    return "".join(text)


def _for_bash(candidate: str, word: str, region: str) -> str | None:
    """What bash must insert for readline to leave exactly `candidate` in place of `word`, quoted
    the way the user began it. readline replaces `region`: all of the word, or what follows the
    quote it opens with (a reply starting with that quote replaces the quote too). None for a word
    that opens a quote further on, or is $'...': what the shell reads there is not worth guessing."""
    if word[:1] in QUOTES and region == word[1:]:
        return word[0] + _quoted_inside(candidate, word[0]) + word[0]
    if region == word:
        return re.sub(r"([^\w./,@%+-])", r"\\\1", candidate)  # : and = too: readline splits words there
    return None


def _quoted_inside(text: str, quote: str) -> str:
    """`text` as written between two `quote`s, read back unchanged."""
    if quote == "'":
        return text.replace("'", "'\\''")  # close, an escaped quote, reopen
    escaped = re.sub(r'([$`"\\])', r"\\\1", text)
    return escaped.replace("!", "\"'!'\"")  # history expansion sees ! in double quotes, never in single


BASH = r"""# bash completion for reader. Install: reader completion bash > ~/.local/share/bash-completion/completions/reader
# Candidates come one per line, already quoted for the word as typed ($2 is the part readline
# replaces); mapfile reads them as they are: no word splitting, no globbing.
_reader_complete() {
    local -a found
    mapfile -t found < <(reader __complete bash --region="$2" -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
    if [[ ${found[0]-} == __files__ ]]; then
        compopt -o filenames 2>/dev/null
        mapfile -t found < <(compgen -f -- "$2")
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
