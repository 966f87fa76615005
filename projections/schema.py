"""The read model's tables (see :mod:`kairos.projections.readmodel`): what
the read side keeps, derived from the events and dropped and made again by
``kairos rebuild``."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

migrations_table = Table(
    "memory_migrations", metadata, Column("name", String(100), primary_key=True)
)
positions = Table(
    "memory_positions", metadata,
    Column("name", String(40), primary_key=True),
    Column("position", BigInteger, nullable=False),
)
index = Table(
    "memory_index", metadata,
    # On SQLite an INTEGER primary key is the rowid itself: one B-tree less.
    Column("position", BigInteger().with_variant(Integer(), "sqlite"), primary_key=True,
           autoincrement=False),
    Column("event_id", String(36), nullable=False),
    Column("stream_id", String(36), nullable=False),
    Column("version", Integer, nullable=False),
    Column("type", String(40), nullable=False),
    Column("agent_id", String(128), nullable=False),
    Column("user_id", String(128)),
    Column("file", String(40)),
    Column("actor", String(128)),
    Column("session_id", String(128)),
    Column("recorded_at", String(27), nullable=False),
    Column("text", Text),
    Column("retracted_by", String(36)),
    Column("log_file", String(64)),
    Column("log_line", Integer),
    Column("ref", String(36)),  # the dream a decision is about
)
# A named index rather than a column constraint, so that a rebuild can load
# the rows first and build it after.
Index("memory_index_event", index.c.event_id, unique=True)
Index("memory_index_pair_time", index.c.agent_id, index.c.user_id, index.c.recorded_at)
Index("memory_index_time", index.c.recorded_at)
files_table = Table(
    "memory_files", metadata,
    Column("agent_id", String(128), primary_key=True),
    Column("user_id", String(128), primary_key=True),  # '' for the agent's own files
    Column("file", String(40), primary_key=True),
    Column("content", Text, nullable=False),
    Column("segments", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("position", BigInteger, nullable=False),
    Column("updated_at", String(27), nullable=False),
)


files_position = Index("memory_files_position", files_table.c.position)
# The search index's current lines: one row per line of a current file, with
# the events it came from, in the same transactions as ``memory_files``.  The
# history (raw writes, session notes) is ``memory_index`` itself.  Full-text
# indexes over both are built by :mod:`kairos.projections.search` (FTS5 on
# SQLite, expression GIN indexes on PostgreSQL).
lines_table = Table(
    "memory_lines", metadata,
    Column("id", BigInteger().with_variant(Integer(), "sqlite"), primary_key=True,
           autoincrement=True),
    Column("agent_id", String(128), nullable=False),
    Column("user_id", String(128), nullable=False),  # '' for the agent's own files
    Column("file", String(40), nullable=False),
    Column("scope", String(32), nullable=False),  # the stream id, hex: the FTS scope token
    Column("text", Text, nullable=False),
    Column("sources", Text, nullable=False),  # the event ids it came from, space-separated
    Column("position", BigInteger, nullable=False),  # the event that put it in the file
    Column("recorded_at", String(27), nullable=False),
    # 1: the line is the whole text of the append at ``position`` (a write of
    # one line), so the full-text index holds its words once, as that
    # history entry's (:mod:`kairos.projections.search`); 0: a row of its own.
    Column("shared", Integer, nullable=False, server_default="0"),
)
Index("memory_lines_file", lines_table.c.agent_id, lines_table.c.user_id, lines_table.c.file)
# Embeddings, keyed by model and content hash.  Not dropped by a rebuild: the
# texts a rebuild derives are the texts it derived before, and a vector costs
# an embedder's time (or an API's money) to make again.
vectors_table = Table(
    "memory_vectors", metadata,
    Column("model", String(200), primary_key=True),
    Column("digest", String(32), primary_key=True),  # sha256 of the text, 128 bits in hex
    Column("vector", LargeBinary, nullable=False),  # float32, native order
)


# Every write's idempotency key, by stream: a retry whose key the stream no
# longer remembers (it keeps the last 256) is found here.
keys_table = Table(
    "memory_keys", metadata,
    Column("stream_id", String(36), primary_key=True),
    Column("key", String(256), primary_key=True),
    Column("event_id", String(36), nullable=False),
)

READ_MODEL_TABLES = (files_table, index, positions, migrations_table, keys_table,
                     lines_table)

# The columns of an index row as the writer inserts them (retracted_by is
# set later, by the retraction).
ROW_COLUMNS = ("position", "event_id", "stream_id", "version", "type", "agent_id", "user_id",
               "file", "actor", "session_id", "recorded_at", "text", "log_file", "log_line",
               "ref")
FILE_COLUMNS = ("agent_id", "user_id", "file", "content", "segments", "version", "position",
                "updated_at")
LINE_COLUMNS = ("agent_id", "user_id", "file", "scope", "text", "sources", "position",
                "recorded_at", "shared")
