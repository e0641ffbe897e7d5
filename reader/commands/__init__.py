"""Command-line subcommands, one module per area. Each module offers `register(commands)`, which
adds its parsers to the `reader` command's subparsers; `reader/cli.py` calls each in turn."""
