"""Topic sync: syncer.py fetches and saves (used by the CLI and the app), process.py runs it for
the app in a child process, types.py holds its plain values (events, results, report). Kept
import-light: the types are read without the network stack."""
