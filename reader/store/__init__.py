"""The local cache: papers, topics, user state and sync state, in TinyDB files. No Textual."""

from reader.store.store import Marks, SaveResult, Store, Topic

__all__ = ["Marks", "SaveResult", "Store", "Topic"]
