"""Backends of the event store: the eventsourcing library's SQLite and
PostgreSQL recorders, with the durability settings and the restore path
Kairos needs.  Pick one with :func:`kairos.store.open_store`."""

# The keyword argument of ``Application.save`` that carries a callable
# ``hook(cursor, notification_ids)``, run inside the transaction that inserts
# the events, after the insert: the read model commits with its events.
IN_TRANSACTION = "kairos_in_transaction"
