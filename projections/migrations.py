"""The read model's schema changes: named migrations, applied once each,
in order (:meth:`kairos.projections.readmodel.ReadModel.migrate`)."""

from __future__ import annotations

import json
from collections.abc import Callable

from sqlalchemy import Connection, delete, func, insert, inspect, select
from sqlalchemy import text as sql_text

from kairos.projections import lines
from kairos.projections.schema import (
    LINE_COLUMNS,
    files_position,
    files_table,
    index,
    keys_table,
    lines_table,
    metadata,
    positions,
    vectors_table,
)
from kairos.projections.search import create_fts, drop_fts, fill_fts
from kairos.projections.terms import version


def m001_initial(conn: Connection) -> None:
    metadata.create_all(conn, tables=[positions, index, files_table])


def m002_lighter_writes(conn: Connection) -> None:
    """Fewer indexes to update on every write, files found by position.

    Type, actor and session have few distinct values or are always asked
    for together with a pair, and stream and dream are asked for through
    the pair: ``memory_index_pair_time`` serves them all.  The
    materialized files are written after the write returns, by position
    (:class:`~kairos.projections.materialize.Materializer`); the position row
    exists from the start, so a writer moves it with one conditional update.
    """
    for name in ("memory_index_type", "memory_index_actor", "memory_index_session",
                 "memory_index_stream", "memory_index_ref"):
        conn.execute(sql_text(f"DROP INDEX IF EXISTS {name}"))
    files_position.create(conn, checkfirst=True)
    if conn.scalar(select(positions.c.position).where(positions.c.name == "index")) is None:
        conn.execute(positions.insert().values(name="index", position=0))


def m003_faults_keys(conn: Connection) -> None:
    """The idempotency keys of writes (``memory_keys``), filled from the
    events already applied (none had a key before this migration)."""
    keys_table.create(conn, checkfirst=True)


def m004_search(conn: Connection) -> None:
    """Search: the current lines, the vector cache, and the full-text indexes
    over the lines and the history (:mod:`kairos.projections.search`).

    Idempotent: the lines are derived again and the index rebuilt.
    """
    metadata.create_all(conn, tables=[lines_table, vectors_table])
    drop_fts(conn)
    conn.execute(delete(lines_table))
    _fill_lines(conn)
    fill_fts(conn)  # the history already there and the lines, then the triggers


def m005_scoped_terms(conn: Connection) -> None:
    """The full-text index again, its words tagged with their scope (a
    query reads its own pair's postings: :mod:`kairos.projections.terms`),
    and its term dictionary readable (the companion's compound parts).
    SQLite only: PostgreSQL's GIN indexes are unchanged."""
    if conn.dialect.name == "sqlite":
        _with_shared_column(conn)  # the index is built as it is built now (m006)
        drop_fts(conn)
        fill_fts(conn)
        conn.execute(delete(positions).where(positions.c.name == "terms"))
        conn.execute(positions.insert().values(name="terms", position=version()))


def m006_shared_lines(conn: Connection) -> None:
    """A line that is the whole text of a one-line append shares that
    write's full-text row (:mod:`kairos.projections.lines`).  The lines
    already there keep rows of their own (``shared`` 0), which is what the
    index holds; a rebuild marks them.  On SQLite the line triggers are made
    again, to skip shared lines, with the index that finds them."""
    _with_shared_column(conn)
    if conn.dialect.name == "sqlite" and inspect(conn).has_table("memory_fts"):
        for name in ("memory_fts_line_in", "memory_fts_line_out"):
            conn.execute(sql_text(f"DROP TRIGGER IF EXISTS {name}"))
        create_fts(conn)


def _with_shared_column(conn: Connection) -> None:
    """``memory_lines.shared``, added where the table predates it (0: a row
    of its own, as every line had).  Before anything builds the full-text
    index as it is built now: m005 does, on a home that m004 made."""
    if "shared" not in {c["name"] for c in inspect(conn).get_columns(lines_table.name)}:
        conn.execute(sql_text("ALTER TABLE memory_lines ADD COLUMN shared INTEGER NOT NULL "
                              "DEFAULT 0"))


def same_terms(conn: Connection) -> None:
    """Index the texts again when what ``kairos_terms`` makes of them may
    have changed (:func:`terms.version`: this module's rules and Python's
    Unicode tables).  The index is contentless: a line leaving it is
    deleted by giving FTS5 its words again, and words made by other rules
    than those it was given would corrupt it."""
    now = version()
    row = conn.execute(select(positions.c.position).where(positions.c.name == "terms")).first()
    if row is not None and row[0] == now:
        return
    if row is not None or conn.scalar(select(func.count()).select_from(index)):
        drop_fts(conn)
        fill_fts(conn)
    conn.execute(delete(positions).where(positions.c.name == "terms"))
    conn.execute(positions.insert().values(name="terms", position=now))


def _fill_lines(conn: Connection) -> None:
    """The current lines of every existing file (a home made before search)."""
    rows = conn.execute(select(files_table).where(files_table.c.content != "")).all()
    values = [dict(zip(LINE_COLUMNS, line, strict=True))
              for r in rows
              for line in lines.rows(r.agent_id, r.user_id, r.file, lines.rewritten(
                  [], json.loads(r.segments), r.position, r.updated_at))]
    if values:
        conn.execute(insert(lines_table), values)


MIGRATIONS: list[Callable[[Connection], None]] = [m001_initial, m002_lighter_writes,
                                                  m003_faults_keys, m004_search,
                                                  m005_scoped_terms, m006_shared_lines]
