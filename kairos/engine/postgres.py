"""The PostgreSQL backend: the library's recorder, configured from a URL.

PostgreSQL notification ids come from a sequence and can have gaps (a
rolled-back insert still consumes a number), so readers always ask for
"ids greater than the last one seen", never "last + 1".
"""

from __future__ import annotations

from collections.abc import Iterable

from eventsourcing.persistence import StoredEvent
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
        "POSTGRES_CONNECT_TIMEOUT": "5",
        "POSTGRES_POOL_SIZE": "2",
        "POSTGRES_MAX_OVERFLOW": "4",
        "POSTGRES_LOCK_TIMEOUT": "30",
    }
    return env


def restore_events(factory: PostgresFactory, table: str,
                   rows: Iterable[tuple[int, StoredEvent]]) -> int:
    """Insert stored events at the given notification ids, then move the
    sequence past them, so the restored store numbers events as the logs did.
    One transaction: an error from ``rows`` rolls back everything."""
    schema = factory.datastore.schema
    count, last = 0, 0
    with factory.datastore.transaction(commit=True) as curs:
        for position, s in rows:
            curs.execute(
                f'INSERT INTO "{schema}"."{table}" '
                "(originator_id, originator_version, topic, state, notification_id) "
                "VALUES (%s, %s, %s, %s, %s)",
                (s.originator_id, s.originator_version, s.topic, s.state, position),
            )
            count, last = count + 1, position
        if count:
            curs.execute("SELECT setval(pg_get_serial_sequence(%s, 'notification_id'), %s)",
                         (f'"{schema}"."{table}"', last))
    return count
