"""The PostgreSQL backend: the library's recorder, configured from a URL.

PostgreSQL notification ids come from a sequence and can have gaps (a
rolled-back insert still consumes a number), so readers always ask for
"ids greater than the last one seen", never "last + 1".

A server that restarts leaves the pool's connections dead.  Each one is
checked before use (``POSTGRES_PRE_PING``) and replaced when dead; a new
connection gives up after ``POSTGRES_CONNECT_TIMEOUT`` seconds, so while the
server is down a command fails within seconds with a clear error
(:class:`~kairos.errors.StoreUnavailable`, naming the URL) instead of
hanging, and the first command after it is back works.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from uuid import UUID

from eventsourcing.postgres import PostgresFactory
from sqlalchemy.engine import make_url


def env_from_url(url: str) -> dict[str, str]:
    """The library's POSTGRES_* settings for a ``postgresql://`` URL."""
    u = make_url(url)
    env = {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": u.database or "",
        "POSTGRES_HOST": u.host or "localhost",
        "POSTGRES_PORT": str(u.port or 5432),
        "POSTGRES_USER": u.username or "",
        "POSTGRES_PASSWORD": u.password or "",
        "POSTGRES_CONNECT_TIMEOUT": "5",  # seconds: a down server fails a command this fast
        "POSTGRES_PRE_PING": "y",  # a connection the server dropped is replaced, not used
        "POSTGRES_CONN_MAX_AGE": "600",  # recycle connections after 10 minutes
        "POSTGRES_IDLE_IN_TRANSACTION_SESSION_TIMEOUT": "30",
        "POSTGRES_POOL_SIZE": "2",
        "POSTGRES_MAX_OVERFLOW": "4",
        "POSTGRES_LOCK_TIMEOUT": "30",
    }
    return env


# How long a command waits for a pooled connection (the library tries 10
# times, 0.2 s apart: a command fails in about 5 s while the server is down),
# and how long the pool keeps retrying one connection with growing delays
# before it starts afresh (so a server back after a long outage is used
# within about this long, not after a doubled delay of a minute).
POOL_WAIT = 0.3
RECONNECT = 2.0


def tune_pool(factory: PostgresFactory) -> None:
    """Set what the library's settings do not reach on its connection pool:
    the wait for a connection, the reconnect horizon, and libpq's own
    connect timeout (a server that does not answer at all)."""
    pool = factory.datastore.pool
    pool.timeout = POOL_WAIT
    pool.reconnect_timeout = RECONNECT
    if isinstance(pool.kwargs, dict):
        pool.kwargs["connect_timeout"] = 5


def restore_events(factory: PostgresFactory, table: str,
                   rows: Iterable[tuple[int, UUID | str, int, str, bytes]]) -> int:
    """Insert stored events at the given notification ids, then move the
    sequence past them, so the restored store numbers events as the logs did.
    One transaction: an error from ``rows`` rolls back everything.  One
    ``executemany`` (psycopg sends the rows pipelined, not a round trip
    each, as they come)."""
    schema = factory.datastore.schema
    count, last = 0, 0

    def params() -> Iterator[tuple[UUID, int, str, bytes, int]]:
        nonlocal count, last
        for position, oid, version, topic, state in rows:
            count, last = count + 1, position
            yield UUID(oid) if isinstance(oid, str) else oid, version, topic, state, position

    with factory.datastore.transaction(commit=True) as curs:
        curs.executemany(
            f'INSERT INTO "{schema}"."{table}" '
            "(originator_id, originator_version, topic, state, notification_id) "
            "VALUES (%s, %s, %s, %s, %s)", params())
        if count:
            curs.execute("SELECT setval(pg_get_serial_sequence(%s, 'notification_id'), %s)",
                         (f'"{schema}"."{table}"', last))
    return count


def stream_rows(factory: PostgresFactory, table: str, after: tuple[UUID, int] | None, limit: int
                ) -> list[tuple[int, UUID, int, str, bytes]]:
    """Up to ``limit`` stored events after ``after`` (an originator id and a
    version) in stream order, along the table's primary key: (position,
    originator id, version, topic, state), as the SQLite backend's
    ``stream_rows`` gives them."""
    schema = factory.datastore.schema
    where, args = ("WHERE (originator_id, originator_version) > (%s, %s) ", after) if after \
        else ("", ())
    with factory.datastore.transaction(commit=False) as curs:
        curs.execute(f'SELECT notification_id, originator_id, originator_version, topic, state '
                     f'FROM "{schema}"."{table}" {where}'
                     "ORDER BY originator_id, originator_version LIMIT %s", (*args, limit))
        return [(r["notification_id"], r["originator_id"], r["originator_version"], r["topic"],
                 bytes(r["state"])) for r in curs.fetchall()]
