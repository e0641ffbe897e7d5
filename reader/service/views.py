"""The views the list can show, as values: what a screen asks the service to select."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class View:
    """What the list shows: every paper, the starred ones, a triage view (papers ranked for
    you, new since the last visit, updated since read, hidden), what is rising, or the papers
    of one topic, watch or tag (`name`)."""

    kind: str  # one of VIEW_KINDS
    name: str | None = None

    @classmethod
    def of_topic(cls, name: str) -> View:
        return cls("topic", name)

    @classmethod
    def of_watch(cls, name: str) -> View:
        return cls("watch", name)

    @classmethod
    def of_tag(cls, name: str) -> View:
        return cls("tag", name)

    @property
    def topic(self) -> str | None:
        """The topic whose papers (and chart) this view shows, if it is a topic's view."""
        return self.name if self.kind == "topic" else None

    @property
    def key(self) -> str:
        """A stable string for widget ids and option lists."""
        return f"{self.kind}:{self.name}" if self.name is not None else self.kind


VIEW_KINDS = ("all", "starred", "foryou", "new", "updated", "hidden", "rising", "topic", "watch", "tag")
ALL = View("all")
STARRED = View("starred")
FOR_YOU = View("foryou")
NEW = View("new")
UPDATED = View("updated")
HIDDEN = View("hidden")
RISING = View("rising")
