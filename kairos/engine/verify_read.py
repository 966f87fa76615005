"""Verification of the read side: the read model's rows and the
materialized files against what the store's events fold to.

The read model and ``memory/`` are derived, so anyone who can write the
database or the home could change them without touching an event: an
``UPDATE memory_files`` would make ``kairos read`` serve forged text.  This
check folds the store's events again and names every row and file that
differs.  It reads a consistent moment of each while writers keep going:
the read model's position before and after its rows (a batch moves it, so
equal positions mean no batch landed between), and the files under their
lock, compared only when they are at the read model's position (else a
write is in progress: noted, not failed).  ``kairos rebuild`` repairs what
it names, and reports each repair.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import closing
from typing import Any

from kairos.domain.fold import Files, Segments, apply_event, render, touched
from kairos.domain.kinds import EventType
from kairos.engine.locks import shared_lock_if_present
from kairos.engine.verify import MAX_PROBLEMS, Problem, Report
from kairos.ports import History
from kairos.progress import SILENT, Progress, counted
from kairos.projections.indexer import index_row, without_erased_text
from kairos.projections.materialize import Materializer, existing_files, file_path, read_file
from kairos.projections.readmodel import ReadModel
from kairos.projections.schema import ROW_COLUMNS

TRIES = 3  # attempts at a moment when no batch lands between the two positions
# The index columns compared (the log places are checked by the logs' own check).
COMPARED = tuple(c for c in ROW_COLUMNS if c not in ("log_file", "log_line"))


def verify_read_side(store: History, readmodel: ReadModel, files: Materializer,
                     report: Report, progress: Progress = SILENT) -> None:
    """Check 4 of :mod:`kairos.engine.verify`: add a problem per differing row
    or file, a note for what could not be checked."""
    for _ in range(TRIES):
        at = readmodel.position()
        progress.phase("read side", at)
        if at > store.max_position():
            report.add(Problem("read model", f"is at position {at}, past the store's end"))
            return
        problems: list[Problem] = []
        folded = _check_rows(store, readmodel, at, problems, progress)
        if readmodel.position() == at:
            for p in problems:
                report.add(p)
            _check_files(files, readmodel, folded, at, report)
            return
    report.notes.append("the read model kept moving (writes in progress): its rows were not "
                        "checked")


def _check_rows(store: History, readmodel: ReadModel, at: int, problems: list[Problem],
                progress: Progress = SILENT) -> dict[tuple[str, str, str], Segments]:
    """Compare ``memory_index`` and ``memory_files`` with the fold of the
    events up to ``at``; return the files' folds (their segments).

    The index rows and the events are merged in position order, a page of
    each at a time: memory holds the files' folds and the retractions, not
    a row per event.  A row's ``retracted_by`` is compared at the end (the
    retraction comes after the event it withdraws)."""
    streams: dict[tuple[str, str], Files] = {}
    retracted: dict[str, str] = {}  # event id -> the retraction's id, from the store
    marked: dict[str, tuple[str, int]] = {}  # event id -> (retracted_by, position), the rows'

    erasures = readmodel.erasures(at)

    def expected() -> Iterator[tuple[Any, ...]]:
        for rec in counted(store.read(upto=at), progress):
            e = rec.event
            if e.kind is EventType.RETRACTED:
                retracted.update(dict.fromkeys(getattr(e, "retracts"), e.event_id))  # noqa: B009
            if touched(e):
                scope = (e.agent, e.user or "")
                streams[scope] = apply_event(streams.get(scope, {}), e)
            yield without_erased_text(index_row(rec, {}), erasures)

    issues: dict[int, list[str] | None] = {}  # position -> columns that differ; None: no event
    lacks: list[int] = []
    rows, wants = readmodel.index_rows(at), expected()
    row, want = next(rows, None), next(wants, None)
    while row is not None or want is not None:
        if want is None or (row is not None and row["position"] < want[0]):
            assert row is not None
            if len(issues) < MAX_PROBLEMS:
                issues[row["position"]] = None
            row = next(rows, None)
            continue
        if row is None or want[0] < row["position"]:
            if len(lacks) < 10:
                lacks.append(want[0])
            want = next(wants, None)
            continue
        wanted = dict(zip(ROW_COLUMNS, want, strict=True))
        differs = [c for c in COMPARED if row[c] != wanted[c]]  # type: ignore[literal-required]
        if row["retracted_by"] is not None:
            marked[wanted["event_id"]] = (row["retracted_by"], row["position"])
        if differs and len(issues) < MAX_PROBLEMS:
            issues[row["position"]] = differs
        row, want = next(rows, None), next(wants, None)
    for event_id in marked.keys() | retracted.keys():
        by, position = marked.get(event_id, (None, None))
        if by != retracted.get(event_id):
            if position is None:
                found = readmodel.event(event_id)
                if found is None or found["position"] > at:
                    continue  # no row (reported as lacking), or past this check's moment
                position = found["position"]
            columns = issues.setdefault(position, [])
            if columns is not None:
                columns.append("retracted_by")
    for position, columns in sorted(issues.items()):
        problems.append(Problem("read model", "memory_index holds a row for an event the store "
                                "does not have" if columns is None else "memory_index row "
                                f"differs from the store's event in {', '.join(columns)}",
                                position))
    for position in lacks:
        problems.append(Problem("read model", "memory_index lacks the store's event", position))
    # The folds' texts are rendered as each is compared, not all at once (a
    # home's files held twice over, as segments and as text).
    folded = {(agent, user, name): segs
              for (agent, user), files in streams.items() for name, segs in files.items()}
    streams.clear()
    have: set[tuple[str, str, str]] = set()
    with closing(readmodel.file_rows()) as streamed:  # (its connection released however it ends)
        for r in streamed:
            row_key = (r.agent, r.user or "", r.file)
            have.add(row_key)
            segs = folded.get(row_key, [])
            want_text = render(segs)
            shown = f"{r.agent}/{r.user + '/' if r.user else ''}{r.file}"
            if r.content != want_text or (want_text and segs != r.segments):
                problems.append(Problem("read model", f"memory_files row {shown} differs from "
                                        "the fold of its events (edited behind Kairos's back?)",
                                        r.position))
    for lacking in sorted(k for k in folded.keys() - have if render(folded[k])):
        problems.append(Problem("read model",
                                f"memory_files lacks {'/'.join(p for p in lacking if p)}"))
    return folded


def _check_files(files: Materializer, readmodel: ReadModel,
                 folded: dict[tuple[str, str, str], Segments], at: int, report: Report) -> None:
    """Compare ``memory/`` with the fold at ``at``, when the files are exactly
    there.  Under the files lock no flush runs; a flush writes the files as
    the read model stands when it reads them, which may be past the position
    it records, so the files are exactly at their position only while the
    read model is still there too."""
    home = files.home
    with shared_lock_if_present(os.path.join(files.root, ".lock")):
        position = files.position()
        if position != at or readmodel.position() != at:
            if os.path.isdir(files.root):
                report.notes.append(f"memory/ is at position {position}, the read model at "
                                    f"{at}: the files were not compared (a write in progress, "
                                    "or none since the files were removed)")
            return
        expected = {os.path.relpath(file_path(home, a, u or None, n), home): segs
                    for (a, u, n), segs in folded.items() if files.enabled}
        for rel in existing_files(home):
            segs = expected.pop(rel, None)
            want = render(segs) if segs is not None else ""
            if not want:
                report.add(Problem(rel, "is not a file of any stream's events (extra)"))
            elif read_file(os.path.join(home, rel)) != want:
                report.add(Problem(rel, "differs from the fold of its events (edited behind "
                                   "Kairos's back?)"))
        for rel in sorted(rel for rel, segs in expected.items() if render(segs)):
            report.add(Problem(rel, "is missing"))

