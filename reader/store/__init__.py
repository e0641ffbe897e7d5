"""The local cache: papers, topics, user state and sync state, in TinyDB files. No Textual."""

from reader.store.store import SaveResult, Store
from reader.store.user_doc import Marks, Topic, Watch

__all__ = ["Marks", "SaveResult", "Store", "Topic", "Watch"]
