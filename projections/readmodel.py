"""Read models kept in step with the event store, in the store's own database.

Two tables answer every read without replaying history:

* ``memory_files`` — the current text (and segments, with the event each
  came from) of every memory file, one row per agent or pair and file;
* ``memory_index`` — one row per event: position, id, stream, type, scope,
  actor, session, time, text, who retracted it, and where it sits in the
  dated logs.  Indexed by event id, pair and time, and time.

``memory_positions`` records the last position applied, in the same
transaction as the rows, so a crash never applies an event twice or skips
one.  The tables are derived: ``kairos rebuild`` drops and re-creates them.
This module is the one way into the database for the read side.  Every
statement is a SQLAlchemy Core construct over the tables of
:mod:`~kairos.projections.schema`, the same on SQLite and PostgreSQL.  Reads
run them through SQLAlchemy connections.  The two hot writes — a batch the
follower applies after each write, a rebuild's bulk load — run them on the
DB-API cursor of a pooled connection (:class:`Writer`), each compiled once per dialect, positional on both:
``benchmarks/bench_core.py`` measured SQLAlchemy's per-row parameter
processing at a fifth of a rebuild.  Schema changes are named migrations,
applied once, in order (:mod:`~kairos.projections.migrations`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast
from uuid import UUID

from sqlalchemy import (
    Connection,
    Engine,
    Row,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    insert,
    inspect,
    select,
    update,
)
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.sql.expression import Delete, Insert, Select, Update

from kairos.domain.encrypted import CONTENT_TYPES
from kairos.errors import storage_error
from kairos.ports import FileRow, IndexRow, Seal
from kairos.projections.lines import file_stream, stream_of
from kairos.projections.migrations import MIGRATIONS, same_terms
from kairos.projections.schema import (
    FILE_COLUMNS,
    LINE_COLUMNS,
    READ_MODEL_TABLES,
    ROW_COLUMNS,
    files_table,
    index,
    keys_table,
    lines_table,
    migrations_table,
    positions,
    vectors_table,
)
from kairos.projections.search import drop_fts, fill_fts
from kairos.projections.terms import index_text

INDEX_BEFORE = "memory_index_before"  # a rebuild's old index rows (ReadModel.reset)
REBUILDING = "rebuilding"  # the positions row of a rebuild under way


def _translate_errors(engine: Engine, where: str) -> None:
    @event.listens_for(engine, "handle_error")
    def _storage_error(context: ExceptionContext) -> None:
        if context.is_pre_ping:  # a dead pooled connection: the pool replaces it
            return
        raise storage_error(context.original_exception, where) from context.original_exception


def sqlalchemy_url(url: str) -> str:
    if url.startswith(("postgresql:", "postgres:")):
        return "postgresql+psycopg:" + url.split(":", 1)[1]
    return url


def create_read_engine(url: str, *, where: str | None = None,
                       read_only_uri: str | None = None) -> Engine:
    """The read model's SQLAlchemy engine for a store URL.

    ``where`` names the database in errors: every error a statement or a
    connection raises becomes a :class:`~kairos.errors.StorageFailed` naming
    it (full, read-only, no permission, unreachable).  ``read_only_uri``: an
    SQLite URI to open instead, read-only (see
    :func:`kairos.engine.sqlitefiles.read_only_uri`).  On PostgreSQL a pooled
    connection is pinged before use (``pool_pre_ping``): one the server
    dropped (a restart) is replaced instead of failing the next statement.
    """
    if not url.startswith("sqlite"):
        # Positional parameters, as on SQLite: the writer's rows are tuples.
        engine = create_engine(sqlalchemy_url(url), pool_size=2, max_overflow=2,
                               paramstyle="format", pool_pre_ping=True,
                               connect_args={"connect_timeout": 5})
        _translate_errors(engine, where or url)
        return engine
    if read_only_uri is not None:
        engine = create_engine("sqlite:///" + read_only_uri + "&uri=true")
    else:
        engine = create_engine(url)
    _translate_errors(engine, where or url)

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA busy_timeout=30000")
        # The read model is derived and tracked by position: it need not
        # be fsynced on every commit (the event store is).
        cur.execute("PRAGMA synchronous=NORMAL")
        # Freed pages are not zeroed (Debian's SQLite zeroes them by default:
        # a rebuild's drop of a million-row index then wrote 1 GB of zeros,
        # 3 of its 26 s).  A freed page of the read model holds nothing the
        # store does not: plain text in a home that does not encrypt, sealed
        # text in one that does; an erasure compacts the database itself.
        cur.execute("PRAGMA secure_delete=0")
        cur.close()
        # What the full-text index's triggers give it for a text: its words,
        # tagged with their scope (:mod:`kairos.projections.terms`).
        dbapi_conn.create_function("kairos_terms", 2, index_text, deterministic=True)
    return engine


LineTuple = tuple[str, str, str, str, str, str, int, str, int]
IndexTuple = tuple[Any, ...]
FileTuple = tuple[str, str, str, str, str, int, int, str]
# A statement compiled for the dialect: its text, its parameters in order,
# and the values of the constants it holds (such as the position row's name).
CompiledSQL = tuple[str, tuple[str, ...], dict[str, Any]]


def _statements() -> dict[str, Insert | Update | Delete | Select[Any]]:
    """The follower's statements, made once: built anew per call, a select
    costs SQLAlchemy more to construct and cache-key than SQLite to run."""
    key = (files_table.c.agent_id == bindparam("k_agent")) & (
        files_table.c.user_id == bindparam("k_user")) & (files_table.c.file == bindparam("k_file"))
    lt = lines_table.c
    line_key = (lt.agent_id == bindparam("k_agent")) & (lt.user_id == bindparam("k_user")) & (
        lt.file == bindparam("k_file"))
    at_index = positions.c.name == "index"
    return {
        "insert_index": insert(index).values({c: bindparam(c) for c in ROW_COLUMNS}),
        "mark_retracted": update(index).where(index.c.event_id == bindparam("k_id"))
        .values(retracted_by=bindparam("by")),
        "move_position": update(positions).where(
            at_index & (positions.c.position == bindparam("expect")))
        .values(position=bindparam("to")),
        "set_position": update(positions).where(at_index).values(position=bindparam("to")),
        "segments": select(files_table.c.segments).where(key),
        "insert_file": insert(files_table).values({c: bindparam(c) for c in FILE_COLUMNS}),
        "insert_line": insert(lines_table).values({c: bindparam(c) for c in LINE_COLUMNS}),
        "lines": select(lt.id, lt.text, lt.sources, lt.position, lt.recorded_at, lt.shared
                        ).where(line_key),
        "delete_lines": delete(lines_table).where(lt.id.in_(bindparam("ids", expanding=True))),
        "update_file": update(files_table).where(key).values(
            {c: bindparam(c) for c in FILE_COLUMNS[3:]}),
        "insert_key": insert(keys_table).values(
            {c: bindparam(c) for c in ("stream_id", "key", "event_id")}),
    }


STATEMENTS = _statements()


class Sealing:
    """What the read model seals and opens, by table (:class:`kairos.ports.Seal`):
    an event's text, a file's content and segments, a line's text.  With no
    seal (a home that does not encrypt) every method hands its value back."""

    def __init__(self, seal: Seal | None):
        self.seal = seal

    def index_row(self, row: IndexTuple) -> IndexTuple:
        """An event's text is sealed when it is content (what the event
        itself encrypts): an erasure's reason or a dream's summary is not."""
        if self.seal is None or not row[11] or row[4] not in CONTENT_TYPES:
            return row
        return (*row[:11], self.seal.seal(row[11], stream_of(row[2])), *row[12:])

    def file_row(self, row: FileTuple) -> FileTuple:
        if self.seal is None or not row[3]:
            return row
        stream = file_stream(row[0], row[1])
        return (*row[:3], self.seal.seal(row[3], stream), self.seal.seal(row[4], stream),
                *row[5:])

    def line_row(self, row: LineTuple) -> LineTuple:
        if self.seal is None:
            return row
        return (*row[:4], self.seal.seal(row[4], stream_of(row[3])),
                *row[5:])

    def open(self, value: str | None, stream: UUID) -> str | None:
        """A stored text opened: None when its key is gone (erased)."""
        if self.seal is None or value is None:
            return value
        return self.seal.open(value, stream)

    def open_file(self, agent: str, user: str | None, value: str) -> str:
        """A file's stored content or segments: empty when its key is gone."""
        if self.seal is None or not value:
            return value
        return self.seal.open(value, file_stream(agent, user)) or ""

    def open_event(self, row: dict[str, Any]) -> dict[str, Any]:
        if self.seal is not None and row.get("text"):
            row["text"] = self.seal.open(row["text"], stream_of(row["stream_id"]))
        return row
# The bulk load's statements run on the DB-API cursor, compiled once per dialect.
BULK = ("insert_index", "insert_file", "insert_line")


class Writer:
    """The read model's writes, in one transaction.

    Every statement is one of :data:`STATEMENTS`.  They run through the
    SQLAlchemy connection, but for the rebuild's bulk load (:meth:`load_index`,
    :meth:`load_files`), which runs them compiled on the connection's DB-API
    cursor: there SQLAlchemy's per-row parameter handling was half the time
    (``benchmarks/bench_core.py``; a batch after a write is a few rows and its
    cost is the commit).
    """

    def __init__(self, conn: Connection, bulk: dict[str, CompiledSQL],
                 sealing: Sealing | None = None):
        self.conn = conn
        self.bulk = bulk
        self.sealing = sealing or Sealing(None)
        self.sealed = self.sealing.seal is not None

    def move_position(self, to: int, expect: int) -> bool:
        """Move the position from ``expect`` to ``to``; False when it was not
        at ``expect`` (another process applied these events first)."""
        moved = self.conn.execute(STATEMENTS["move_position"], {"to": to, "expect": expect})
        return moved.rowcount == 1

    def set_position(self, to: int) -> None:
        self.conn.execute(STATEMENTS["set_position"], {"to": to})

    def insert_index(self, rows: Sequence[IndexTuple]) -> None:
        if self.sealed:
            rows = [self.sealing.index_row(r) for r in rows]
        self.conn.execute(STATEMENTS["insert_index"],
                          [dict(zip(ROW_COLUMNS, r, strict=True)) for r in rows])

    def mark_retracted(self, pairs: Sequence[tuple[str, str]]) -> None:
        """``pairs``: (retraction id, retracted id)."""
        self.conn.execute(STATEMENTS["mark_retracted"],
                          [{"by": by, "k_id": eid} for by, eid in pairs])

    def insert_keys(self, rows: Sequence[tuple[str, str, str]]) -> None:
        """``rows``: (stream id, idempotency key, event id)."""
        self.conn.execute(STATEMENTS["insert_key"], [
            {"stream_id": s, "key": k, "event_id": e} for s, k, e in rows])

    def erase_texts(self, stream_id: str, before: int, *, fts: bool = True) -> None:
        """Clear the text of a stream's events before ``before`` (an
        erasure); ``fts``: take it out of the full-text index too (a bulk
        load builds that afterwards)."""
        from kairos.projections.search import erase_history

        erase_history(self.conn, stream_id, before, fts=fts)

    def segments(self, agent: str, user: str, name: str) -> list[list[Any]] | None:
        found = self.conn.execute(STATEMENTS["segments"], {
            "k_agent": agent, "k_user": user, "k_file": name}).scalar()
        if found is None:
            return None
        return list(json.loads(self.sealing.open_file(agent, user, found) or "[]"))

    def put_file(self, row: FileTuple, *, new: bool) -> None:
        row = self.sealing.file_row(row)
        values = dict(zip(FILE_COLUMNS, row, strict=True))
        if new:
            self.conn.execute(STATEMENTS["insert_file"], values)
        else:
            self.conn.execute(STATEMENTS["update_file"], {
                **values, "k_agent": row[0], "k_user": row[1], "k_file": row[2]})

    def lines(self, agent: str, user: str, name: str
              ) -> list[tuple[int, str, str, int, str, int]]:
        """A file's current lines: (id, text, sources, position, time, shared)."""
        rows = self.conn.execute(STATEMENTS["lines"], {
            "k_agent": agent, "k_user": user, "k_file": name}).all()
        if self.sealed:
            stream = file_stream(agent, user)
            return [(r.id, self.sealing.open(r.text, stream) or "", r.sources, r.position,
                     r.recorded_at, r.shared) for r in rows]
        return [(r.id, r.text, r.sources, r.position, r.recorded_at, r.shared) for r in rows]

    def delete_lines(self, ids: Sequence[int]) -> None:
        self.conn.execute(STATEMENTS["delete_lines"], {"ids": list(ids)})

    def insert_lines(self, rows: Sequence[LineTuple]) -> None:
        # Through SQLAlchemy (not the bulk path's raw cursor): an error on
        # the write path must become a Kairos error (_translate_errors).
        if self.sealed:
            rows = [self.sealing.line_row(r) for r in rows]
        self.conn.execute(STATEMENTS["insert_line"], [dict(zip(LINE_COLUMNS, r, strict=True))
                                                      for r in rows])

    def _load(self, name: str, order: tuple[str, ...], rows: Iterable[tuple[Any, ...]]) -> None:
        text, params, _ = self.bulk[name]
        assert params == order
        cursor = self.conn.connection.cursor()
        try:  # the drivers take any iterable: rows stream from the store
            cursor.executemany(text, cast(Sequence[Sequence[Any]], rows))
        finally:
            cursor.close()

    def load_index(self, rows: Iterable[IndexTuple]) -> None:
        """Insert many index rows at once (a rebuild), on the DB-API cursor."""
        if self.sealed:
            rows = map(self.sealing.index_row, rows)
        self._load("insert_index", ROW_COLUMNS, rows)

    def load_files(self, rows: Iterable[FileTuple]) -> None:
        if self.sealed:
            rows = map(self.sealing.file_row, rows)
        self._load("insert_file", FILE_COLUMNS, rows)

    def load_lines(self, rows: Iterable[LineTuple]) -> None:
        if self.sealed:
            rows = map(self.sealing.line_row, rows)
        self._load("insert_line", LINE_COLUMNS, rows)


class ReadModel:
    """The read model's tables: its schema, its reads and its writer."""

    def __init__(self, engine: Engine, seal: Seal | None = None):
        self.engine = engine
        self.sealing = Sealing(seal)
        self._bulk: dict[str, CompiledSQL] = {}
        for name in BULK:
            compiled = STATEMENTS[name].compile(dialect=engine.dialect)
            self._bulk[name] = (str(compiled), tuple(compiled.positiontup or ()),
                                dict(compiled.params))

    # -- schema ----------------------------------------------------------------
    def migrate(self) -> list[str]:
        """Apply the migrations not yet applied, in order; return their names."""
        applied: list[str] = []
        with self.engine.begin() as conn:
            migrations_table.create(conn, checkfirst=True)
            done = set(conn.scalars(select(migrations_table.c.name)))
            for migration in MIGRATIONS:
                if migration.__name__ not in done:
                    migration(conn)
                    conn.execute(migrations_table.insert().values(name=migration.__name__))
                    applied.append(migration.__name__)
            if conn.dialect.name == "sqlite":
                same_terms(conn)
        return applied

    def reset(self) -> None:
        """Drop every read-model table and build them again, empty, without
        the event index's secondary indexes (a bulk load is faster without
        them): call :meth:`create_indexes` and :meth:`fill_search_index` when
        the load is done.

        The event index's rows are kept aside, as :data:`INDEX_BEFORE`, for
        :meth:`index_differences` (then :meth:`rebuilt`).  In the
        same transaction as the drop of the positions: a crash leaves a read
        model the follower derives again from the start, never an empty
        index that says it is up to date.
        """
        redo = self.rebuild_unfinished()
        with self.engine.begin() as conn:
            drop_fts(conn)
            if inspect(conn).has_table(INDEX_BEFORE):
                # Redoing a rebuild that died: the rows it set aside are the
                # ones to compare with, not its half-made index.  (Without
                # the mark, a leftover of one that died before setting it.)
                gone = index.name if redo else INDEX_BEFORE
                conn.exec_driver_sql(f"DROP TABLE IF EXISTS {gone}")
            if inspect(conn).has_table(index.name):
                if conn.dialect.name == "sqlite":  # renamed: the rows stay where they are
                    for ix in index.indexes:  # (an index's name is the database's)
                        ix.drop(conn, checkfirst=True)
                    conn.exec_driver_sql(f"ALTER TABLE {index.name} RENAME TO {INDEX_BEFORE}")
                else:  # copied: a renamed table keeps its constraints' names
                    conn.exec_driver_sql(
                        f"CREATE TABLE {INDEX_BEFORE} AS SELECT * FROM {index.name}")
            for table in READ_MODEL_TABLES:
                table.drop(conn, checkfirst=True)
        self.migrate()
        with self.engine.begin() as conn:
            for ix in index.indexes:
                ix.drop(conn)
            drop_fts(conn)
            # A new generation: what a process cached of the old tables (row
            # ids of lines, above all) is not to be trusted even where the
            # position comes back to the same number (``search.applied``).
            conn.execute(positions.insert().values(name="generation", position=time.time_ns()))
            # Until :meth:`rebuilt`: a rebuild that dies before its indexes,
            # its retractions and its files are done is redone on the next
            # open (``Memory``), not left as a read model without them.
            conn.execute(positions.insert().values(name=REBUILDING, position=0))

    def create_indexes(self) -> None:
        """Build the event index's secondary indexes after a bulk load (then
        :meth:`fill_search_index`)."""
        with self.engine.begin() as conn:
            for ix in index.indexes:
                ix.create(conn, checkfirst=True)

    def fill_search_index(self) -> None:
        """Build the full-text index over what a bulk load left, in a
        transaction of its own: other connections read the loaded rows
        meanwhile (a rebuild compares them with what was there)."""
        with self.engine.begin() as conn:
            fill_fts(conn)

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def transaction(self) -> Iterator[Writer]:
        """A write transaction on a connection of the read model's engine: it
        is derived and tracked by position, so on SQLite its commits are not
        fsynced (``synchronous=NORMAL``)."""
        with self.engine.begin() as conn:
            yield Writer(conn, self._bulk, self.sealing)

    @contextmanager
    def reading(self) -> Iterator[Writer]:
        """A connection outside any transaction, to read what a batch of
        events needs before its transaction (:meth:`Indexer.plan`)."""
        with self.engine.connect() as conn:
            yield Writer(conn, self._bulk, self.sealing)

    @contextmanager
    def advisory_lock(self, key: int) -> Iterator[bool]:
        """Try PostgreSQL's session advisory lock ``key`` on a connection of
        this engine, held for the block; yield whether this session got it."""
        with self.engine.connect() as conn:
            got = bool(conn.scalar(select(func.pg_try_advisory_lock(key))))
            conn.commit()
            try:
                yield got
            finally:
                if got:
                    conn.execute(select(func.pg_advisory_unlock(key)))
                    conn.commit()

    # -- position --------------------------------------------------------------
    def position(self) -> int:
        with self.engine.connect() as conn:
            return self._position(conn)

    def _position(self, conn: Connection) -> int:
        value = conn.scalar(select(positions.c.position).where(positions.c.name == "index"))
        return int(value or 0)

    def changed_files(self, after: int) -> tuple[int, list[tuple[str, str | None, str, str]]]:
        """The read model's position and every file changed after ``after``
        (agent, user or None, file, text; an empty text: the file is gone).

        The position is read first, so the files are at least that new.
        """
        with self.engine.connect() as conn:
            upto = self._position(conn)
            rows = conn.execute(select(files_table.c.agent_id, files_table.c.user_id,
                                       files_table.c.file, files_table.c.content)
                                .where(files_table.c.position > after)).all()
        return upto, [(r.agent_id, r.user_id or None, r.file,
                       self.sealing.open_file(r.agent_id, r.user_id, r.content)) for r in rows]

    # -- reading -------------------------------------------------------------------
    def _file_row(self, r: Row[Any]) -> FileRow:
        content, segments = r.content, r.segments
        if self.sealing.seal is not None:
            content = self.sealing.open_file(r.agent_id, r.user_id, content)
            segments = self.sealing.open_file(r.agent_id, r.user_id, segments) or "[]"
        return FileRow(r.agent_id, r.user_id or None, r.file, content,
                       json.loads(segments), r.version, r.position, r.updated_at)

    def file(self, agent: str, user: str | None, name: str) -> FileRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(files_table).where(
                (files_table.c.agent_id == agent) & (files_table.c.user_id == (user or ""))
                & (files_table.c.file == name))).first()
        if row is None or not row.content:
            return None
        found = self._file_row(row)
        return found if found.content else None

    def files_of(self, agent: str, user: str | None) -> list[FileRow]:
        """The existing files of an agent (``user`` None) or of one pair."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(files_table).where(
                (files_table.c.agent_id == agent) & (files_table.c.user_id == (user or "")))
                .order_by(files_table.c.file)).all()
        return [f for f in map(self._file_row, rows) if f.content]

    def all_files(self) -> list[FileRow]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(files_table).order_by(
                files_table.c.agent_id, files_table.c.user_id, files_table.c.file)).all()
        return [f for f in map(self._file_row, rows) if f.content]

    def event(self, event_id: str) -> IndexRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(index).where(index.c.event_id == event_id)).first()
        if row is None:
            return None
        return cast(IndexRow, self.sealing.open_event(dict(row._mapping)))

    def events(self, *, agent: str | None = None, user: str | None = None,
               pair_only: bool = False, file: str | None = None,
               types: Iterable[str] | None = None, stream_id: str | None = None,
               until: str | None = None, since: str | None = None, actor: str | None = None,
               session: str | None = None, grep: str | None = None,
               limit: int | None = None) -> list[IndexRow]:
        """Index rows in global order, filtered; ``pair_only`` with ``user=None``
        selects the agent's own stream (rows without a user).  ``since`` and
        ``until`` bound the recording time (inclusive); ``grep`` matches the
        text, ignoring case."""
        q = select(index).order_by(index.c.position)
        if agent is not None:
            q = q.where(index.c.agent_id == agent)
        if user is not None:
            q = q.where(index.c.user_id == user)
        elif pair_only:
            q = q.where(index.c.user_id.is_(None))
        if file is not None:
            q = q.where(index.c.file == file)
        if types is not None:
            q = q.where(index.c.type.in_(list(types)))
        if stream_id is not None:
            q = q.where(index.c.stream_id == stream_id)
        if since is not None:
            q = q.where(index.c.recorded_at >= since)
        if until is not None:
            q = q.where(index.c.recorded_at <= until)
        if actor is not None:
            q = q.where(index.c.actor == actor)
        if session is not None:
            q = q.where(index.c.session_id == session)
        sealed = self.sealing.seal is not None
        if grep is not None and not sealed:
            q = q.where(func.lower(index.c.text).contains(grep.lower(), autoescape=True))
        if limit is not None and not (sealed and grep is not None):
            q = q.limit(limit)
        with self.engine.connect() as conn:
            rows = [self.sealing.open_event(dict(r._mapping)) for r in conn.execute(q)]
        if sealed and grep is not None:  # sealed text is matched once opened
            needle = grep.lower()
            rows = [r for r in rows if needle in (r["text"] or "").lower()][:limit]
        return cast(list[IndexRow], rows)

    def file_rows(self) -> Generator[FileRow, None, None]:
        """Every row of ``memory_files``, empty ones too (for verification),
        streamed: a home's files are never all in memory at once."""
        with self.engine.connect() as conn:
            for r in conn.execution_options(yield_per=1000).execute(select(files_table)):
                yield self._file_row(r)

    def file_texts(self) -> Generator[tuple[str, str | None, str, str], None, None]:
        """Each non-empty file's agent, user, name and text, by agent, user
        and name, streamed (a rebuild compares them with the disk one by one)."""
        c = files_table.c
        with self.engine.connect() as conn:
            for r in conn.execution_options(yield_per=1000).execute(
                    select(c.agent_id, c.user_id, c.file, c.content).where(c.content != "")
                    .order_by(c.agent_id, c.user_id, c.file)):
                content = r.content
                if self.sealing.seal is not None:
                    content = self.sealing.open_file(r.agent_id, r.user_id, content)
                if content:
                    yield r.agent_id, r.user_id or None, r.file, content

    def index_rows(self, upto: int) -> Iterator[IndexRow]:
        """Every ``memory_index`` row up to ``upto``, in order (for verification)."""
        with self.engine.connect() as conn:  # streamed: a server-side cursor on PostgreSQL
            for r in conn.execution_options(yield_per=2000).execute(
                    select(index).where(index.c.position <= upto).order_by(index.c.position)):
                yield cast(IndexRow, self.sealing.open_event(dict(r._mapping)))

    def index_span(self) -> tuple[int, int, int]:
        """How many ``memory_index`` rows there are, and their first and last positions."""
        with self.engine.connect() as conn:
            n, low, high = conn.execute(select(func.count(), func.min(index.c.position),
                                               func.max(index.c.position))).one()
        return int(n), int(low or 0), int(high or 0)

    def index_differences(self) -> list[tuple[int, str]] | None:
        """The ``memory_index`` rows that differ from those :meth:`reset` kept
        aside, as (position, status): ``changed`` in any column, ``missing``
        (new only) or ``extra`` (old only).  None when nothing was kept aside
        or it held no row (a lost database, a restore): every row is new.

        In SQL, on the database's side: a million rows compared with their
        counterparts by key, where reading them into Python to hash them
        took a seventh of a rebuild.
        """
        new, old = index.name, INDEX_BEFORE
        # IS NOT: SQLite's own spelling (IS DISTINCT FROM came in 3.39).
        neq = "IS NOT" if self.engine.dialect.name == "sqlite" else "IS DISTINCT FROM"
        differs = " OR ".join(f"n.{c.name} {neq} o.{c.name}" for c in index.columns)
        with self.engine.connect() as conn:
            if not inspect(conn).has_table(old) or conn.exec_driver_sql(
                    f"SELECT 1 FROM {old} LIMIT 1").first() is None:
                return None
            found = [(int(p), "changed") for p, in conn.exec_driver_sql(
                f"SELECT n.position FROM {new} n JOIN {old} o ON o.position = n.position "
                f"WHERE {differs}")]
            for status, a, b in (("missing", new, old), ("extra", old, new)):
                found += [(int(p), status) for p, in conn.exec_driver_sql(
                    f"SELECT a.position FROM {a} a WHERE NOT EXISTS "
                    f"(SELECT 1 FROM {b} b WHERE b.position = a.position)")]
        return found

    def rebuilt(self) -> None:
        """A rebuild is done: drop the rows :meth:`reset` kept aside, and
        its mark."""
        with self.engine.begin() as conn:
            conn.exec_driver_sql(f"DROP TABLE IF EXISTS {INDEX_BEFORE}")
            conn.execute(positions.delete().where(positions.c.name == REBUILDING))

    def rebuild_unfinished(self) -> bool:
        """Whether a rebuild began and did not finish (its process died)."""
        with self.engine.connect() as conn:
            return conn.execute(select(positions.c.position).where(
                positions.c.name == REBUILDING)).first() is not None

    def key_event(self, stream_id: str, key: str) -> str | None:
        """The event id of the write of ``stream_id`` that carried ``key``."""
        with self.engine.connect() as conn:
            found = conn.scalar(select(keys_table.c.event_id).where(
                (keys_table.c.stream_id == stream_id) & (keys_table.c.key == key)))
        return None if found is None else str(found)

    def pair_texts(self, agent: str, user: str) -> tuple[int, int, list[str]]:
        """A pair's count of events, of current lines, and every text the
        read model holds for it (its lines' and its events'): what an
        erasure purges."""
        lt = lines_table.c
        with self.engine.connect() as conn:
            events = conn.execute(select(func.count()).select_from(index).where(
                index.c.agent_id == agent, index.c.user_id == user)).scalar_one()
            lines = list(conn.execute(select(lt.text).where(lt.agent_id == agent,
                                                            lt.user_id == user)).scalars())
            history = list(conn.execute(select(index.c.text).where(
                index.c.agent_id == agent, index.c.user_id == user,
                index.c.text.is_not(None))).scalars())
        stream = file_stream(agent, user)
        texts = [self.sealing.open(t, stream) for t in [*lines, *history]]
        return int(events), len(lines), [t for t in texts if t is not None]

    def delete_vectors(self, digests: Sequence[str]) -> int:
        """Delete the embeddings of these texts (any model); return how many."""
        deleted = 0
        with self.engine.begin() as conn:
            for i in range(0, len(digests), 500):
                deleted += conn.execute(delete(vectors_table).where(
                    vectors_table.c.digest.in_(digests[i:i + 500]))).rowcount
        return deleted

    def erasures(self, upto: int | None) -> dict[str, int]:
        """The position of each stream's last erasure (up to ``upto``), by stream id."""
        query = select(index.c.stream_id, func.max(index.c.position)).where(
            index.c.type == "SubjectErased")
        if upto is not None:
            query = query.where(index.c.position <= upto)
        with self.engine.connect() as conn:
            rows = conn.execute(query.group_by(index.c.stream_id)).all()
        return {r[0]: int(r[1]) for r in rows}

    def pairs(self) -> list[tuple[str, str]]:
        """Every agent+user pair with events, sorted."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(index.c.agent_id, index.c.user_id).where(
                index.c.user_id.is_not(None)).distinct().order_by(
                index.c.agent_id, index.c.user_id)).all()
        return [(r.agent_id, r.user_id) for r in rows]

    def stream_version_at(self, agent: str, user: str | None, until: str) -> int:
        """The version of an agent's (``user`` None) or a pair's stream as of
        a time: the longest prefix of the stream whose events were all
        recorded at or before ``until``.  A clock that stepped back can record
        an event with an earlier time after one with a later time; the
        prefix stops at the first event recorded after ``until``, so a write
        recorded after the moment is never part of it."""
        scope = (index.c.agent_id == agent) & (
            index.c.user_id.is_(None) if user is None else index.c.user_id == user)
        with self.engine.connect() as conn:
            first_after = conn.scalar(select(func.min(index.c.version)).where(
                scope & (index.c.recorded_at > until)))
            if first_after is not None:
                return int(first_after) - 1
            value = conn.scalar(select(func.max(index.c.version)).where(scope))
        return int(value or 0)
