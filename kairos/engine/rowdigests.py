"""The read-model rows a rebuild repaired.

Every row that differs from what the events give (edited behind Kairos's
back), is missing or should not have been there is named in the
:class:`~kairos.engine.rebuild.RebuildReport` — or, when the read model held
no rows at all (a lost database, a restore from the logs), one line per table
says so instead of naming every row.

``memory_files`` has a row per file: a digest of each is kept in memory
before the read model is dropped (Python's hash of all its values, so a
change to any column shows).  ``memory_index`` has a row per event: the
rebuild keeps the old rows aside in the database and compares them there,
column by column (:meth:`~kairos.projections.readmodel.ReadModel.index_differences`).
"""

from __future__ import annotations

import json
from contextlib import closing
from typing import TYPE_CHECKING

from kairos.projections.readmodel import ReadModel

if TYPE_CHECKING:
    from kairos.engine.rebuild import RebuildReport


def file_digests(readmodel: ReadModel) -> dict[tuple[str, str], int]:
    """Each ``memory_files`` row by name with a digest of its values (one
    per file, not per event: kept in memory)."""
    rows: dict[tuple[str, str], int] = {}
    with closing(readmodel.file_rows()) as streamed:  # (its connection released however it ends)
        for f in streamed:
            if f.content:
                name = "/".join(p for p in (f.agent, f.user, f.file) if p)
                rows["memory_files", name] = hash((f.content, json.dumps(f.segments), f.version,
                                                   f.position, f.updated_at))
    return rows


def report_index_rows(report: RebuildReport, readmodel: ReadModel) -> None:
    """Name every ``memory_index`` row the rebuild repaired, or, when the
    read model held none, say in one line that every row was missing."""
    repaired = readmodel.index_differences()
    if repaired is None:  # an empty read model (a lost database, a restore): one line
        count, low, high = readmodel.index_span()
        if count:
            report.rows.append({"table": "memory_index", "status": "missing", "row":
                                f"all {count} rows, positions {low}-{high} "
                                "(the read model was empty)"})
        return
    for row, status in sorted((f"position {p}", s) for p, s in repaired):  # the report's order
        report.rows.append({"table": "memory_index", "row": row, "status": status})


def report_rows(report: RebuildReport, before: dict[tuple[str, str], int],
                after: dict[tuple[str, str], int]) -> None:
    """Name every row the rebuild repaired: a row that differed (edited behind
    Kairos's back), was missing, or should not have been there."""
    if not before and after:  # an empty read model: one line, not a row each
        report.rows.append({"table": "memory_files", "status": "missing",
                            "row": f"all {len(after)} rows (the read model was empty)"})
        return
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if old != new:
            status = "missing" if old is None else "extra" if new is None else "changed"
            report.rows.append({"table": key[0], "row": key[1], "status": status})
