"""Search by meaning, offline: a model learned from the cache (model.py), the papers' vectors
stored beside it (vectors.py), and the answers fused with words (find.py). Derived from the
shards like the search index; no Textual."""
