"""Search over an agent's own files (and one pair's) and their history.

Every word of the query must occur (any case) in a line of a current file or
in the text of an earlier event; each result carries the ids of the events it
comes from, current lines first, then history newest first.  It reads the
event index and the current files only (:class:`~kairos.ports.Index`).
"""

from __future__ import annotations

import re
from typing import Any

from kairos.domain.ids import check_id
from kairos.domain.kinds import EventType
from kairos.errors import BadInput
from kairos.ports import Index

# Events whose text is memory (a write, a session's notes), not a reason.
SEARCHED = (EventType.WRITTEN, EventType.SESSION_ENDED)


class Search:
    def __init__(self, index: Index):
        self.index = index

    def search(self, agent: str, query: str, *, user: str | None = None,
               limit: int = 10) -> list[dict[str, Any]]:
        """See :meth:`kairos.memory.Memory.search`.

        :raises BadInput: bad ids, or a query with no words.
        """
        check_id(agent, "agent")
        if user is not None:
            check_id(user, "user")
        words = [w.lower() for w in re.findall(r"[\w']+", query or "")]
        if not words:
            raise BadInput("the query has no words to look for")

        def matches(text: str | None) -> bool:
            low = (text or "").lower()
            return all(w in low for w in words)

        results: list[dict[str, Any]] = []
        seen: set[str] = set()
        scopes = [None] if user is None else [None, user]
        for scope_user in scopes:
            for row in self.index.files_of(agent, scope_user):
                for seg in row.segments:
                    sources = list(seg[2]) if len(seg) > 2 else [seg[0]]
                    for line in seg[1].split("\n"):
                        if matches(line):
                            results.append({"where": "current", "file": row.file, "text": line,
                                            "event_ids": sources})
                            seen.update(sources)
        history = [r for u in scopes
                   for r in self.index.events(agent=agent, user=u, pair_only=True)
                   if r["type"] in SEARCHED and matches(r["text"])
                   and r["event_id"] not in seen]
        history.sort(key=lambda r: r["position"], reverse=True)
        for r in history:
            text = r["text"] or ""
            results.append({"where": "history", "file": r["file"], "type": r["type"],
                            "time": r["recorded_at"], "event_ids": [r["event_id"]],
                            "text": text if len(text) <= 300 else text[:299] + "…",
                            "retracted": bool(r["retracted_by"])})
        return results[:limit]
