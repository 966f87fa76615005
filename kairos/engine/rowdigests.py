"""The read-model rows a rebuild repaired.

Before the read model is dropped, a digest of every row is taken; after the
rebuild, the new rows' digests are compared with them, and every row that
differs (edited behind Kairos's back), is missing or should not have been
there is named in the :class:`~kairos.engine.rebuild.RebuildReport` — or,
when the read model held no rows at all (a lost database, a restore from
the logs), one line per table says so instead of naming every row.

``memory_files`` has a row per file: its digests are kept in memory.
``memory_index`` has a row per event: its digests go to a temporary file,
16 bytes a row, in position order, and are read back in order.  A digest is
Python's hash of the row's values, all of them, so a change to any column
shows.  Both sides come in blocks of (position, digest) pairs in one array,
and a block equal to its counterpart (the usual case: nothing was touched)
is passed over whole, at C speed; from the first block that differs, the
rows are merged one by one to name each.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import TYPE_CHECKING, BinaryIO

from kairos.projections.readmodel import ReadModel

if TYPE_CHECKING:
    from kairos.engine.rebuild import RebuildReport

BLOCK = 4096  # rows per block: what one fetch brings, what one comparison covers
PAIR = 16  # bytes of a (position, digest) pair in the file: two signed 64-bit ints


def file_digests(readmodel: ReadModel) -> dict[tuple[str, str], int]:
    """Each ``memory_files`` row by name with a digest of its values (one
    per file, not per event: kept in memory)."""
    rows: dict[tuple[str, str], int] = {}
    for f in readmodel.file_rows():
        if f.content:
            name = "/".join(p for p in (f.agent, f.user, f.file) if p)
            rows["memory_files", name] = hash((f.content, json.dumps(f.segments), f.version,
                                               f.position, f.updated_at))
    return rows


def index_digests(readmodel: ReadModel) -> Iterator[array[int]]:
    """Blocks of ``memory_index`` rows in position order, each an array of
    (position, digest of all the row's values) pairs, interleaved."""
    for rows in readmodel.index_values(BLOCK):
        block = array("q", bytes(PAIR * len(rows)))
        block[0::2] = array("q", [r[0] for r in rows])
        block[1::2] = array("q", [hash(r) for r in rows])
        yield block


def save_index_digests(readmodel: ReadModel, out: BinaryIO) -> None:
    """Write the ``memory_index`` digests to ``out`` (read back by this
    process only: native byte order)."""
    for block in index_digests(readmodel):
        out.write(block.tobytes())


def _saved(saved: BinaryIO) -> Iterator[array[int]]:
    while chunk := saved.read(PAIR * BLOCK):
        yield array("q", chunk)


def _pairs(blocks: Iterable[array[int]]) -> Iterator[tuple[int, int]]:
    for block in blocks:
        yield from zip(block[0::2], block[1::2], strict=True)


def report_index_rows(report: RebuildReport, saved: BinaryIO, readmodel: ReadModel) -> None:
    """Name every ``memory_index`` row the rebuild repaired, comparing the
    saved digests with the new rows' (``saved`` from its start)."""
    old = _saved(saved)
    first = next(old, None)
    if first is None:  # an empty read model (a lost database, a restore): one line, not a row each
        count, low, high = readmodel.index_span()
        if count:
            report.rows.append({"table": "memory_index", "status": "missing", "row":
                                f"all {count} rows, positions {low}-{high} "
                                "(the read model was empty)"})
        return
    old, new = chain([first], old), index_digests(readmodel)
    repaired: list[tuple[str, str]] = []
    for a in old:
        b = next(new, None)
        if a != b:
            repaired = _merge(_pairs(chain([a], old)), _pairs(chain([] if b is None else [b], new)))
            break
    else:
        repaired = _merge(iter(()), _pairs(new))  # rows beyond the saved ones: missing
    for row, status in sorted(repaired):  # in the order the report always gave
        report.rows.append({"table": "memory_index", "row": row, "status": status})


def _merge(old: Iterator[tuple[int, int]], new: Iterator[tuple[int, int]]
           ) -> list[tuple[str, str]]:
    """The rows that differ between two (position, digest) streams, both in
    position order: changed, extra (old only) or missing (new only)."""
    repaired: list[tuple[str, str]] = []
    a, b = next(old, None), next(new, None)
    while a is not None or b is not None:
        if b is None or (a is not None and a[0] < b[0]):
            assert a is not None
            status, position, a = "extra", a[0], next(old, None)
        elif a is None or b[0] < a[0]:
            status, position, b = "missing", b[0], next(new, None)
        else:
            status = "changed" if a[1] != b[1] else ""
            position, a, b = a[0], next(old, None), next(new, None)
        if status:
            repaired.append((f"position {position}", status))
    return repaired


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
