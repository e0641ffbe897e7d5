"""Command-line subcommands, one module per area. Each module offers `register(commands)`, which
adds its parsers to the `reader` command's subparsers; `reader/cli.py` imports and calls only the
module of the command run (all of them, in this order, for the help and completion)."""

# Each area's module and the commands it registers, in the order `reader --help` lists them: a
# command's module (and what it imports) is loaded only when it runs. tests/test_cli.py checks
# this table against what each module registers.
AREAS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("sync", ("sync",)),
    ("topics", ("topics",)),
    ("listing", ("list",)),
    ("marks", ("star", "unstar", "unread", "hide", "unhide", "read")),
    ("tags_notes", ("tag", "tags", "note")),
    ("watches", ("watches",)),
    ("momentum", ("momentum",)),
    ("export", ("export",)),
    ("importing", ("import",)),
    ("add", ("add",)),
    ("text", ("text", "fetch-text", "pdf", "refs")),
    ("figures", ("fig",)),
    ("digest", ("digest",)),
    ("triage", ("rank", "rising")),
    ("similar", ("similar",)),
    ("meaning", ("find", "index")),
    ("config", ("config",)),
    ("completion", ("completion", "__complete")),
)
