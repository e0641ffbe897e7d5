"""The error types every layer shares: each carries a one-line message meant for the user."""


class ReaderError(Exception):
    """Base of all expected errors; the CLI and the app show `str(error)` and nothing more."""


class ConfigError(ReaderError):
    """An environment setting or option has a value we cannot use."""


class QueryError(ReaderError):
    """A query in arXiv's search syntax is malformed; `position` points at the problem."""

    def __init__(self, message: str, query: str = "", position: int | None = None):
        super().__init__(message)
        self.query = query
        self.position = position

    def describe(self) -> str:
        """The message, then where, in brackets (messages have colons of their own):
        `this parenthesis is never closed (at column 5: '(a b')`."""
        if self.position is None or not self.query.strip():
            return str(self)
        if self.position >= len(self.query):
            return f"{self} (at column {self.position + 1}, the end of the query)"
        return f"{self} (at column {self.position + 1}: {self.query[self.position :][:20]!r})"


class ArxivError(ReaderError):
    """arXiv answered with an error, or could not be reached after retries."""


class ArxivUnreachableError(ArxivError):
    """No connection to arXiv at all (no network, no DNS): retrying for minutes would not help."""


class ArxivNotFoundError(ArxivError):
    """arXiv has no such document (HTTP 404 for a paper's HTML or PDF): final, never retried."""


class ArxivAPIError(ArxivError):
    """arXiv's own error feed: the message is arXiv's."""


class ArxivBadRequestError(ArxivAPIError):
    """HTTP 400: arXiv refuses the request as malformed (`incorrect id format for ID`); asking
    the same again gets the same answer."""


class FeedFormatError(ArxivError):
    """A response that is not a feed we can read (truncated, HTML, invalid XML, too large)."""


class StoreError(ReaderError):
    """The data directory cannot be read or written."""


class StoreLockedError(StoreError):
    """Another process holds the lock we need."""
