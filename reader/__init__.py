"""reader: follow fast-moving arXiv topics from the terminal."""

__version__ = "0.1.0"
