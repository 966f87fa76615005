"""Backends of the event store: the eventsourcing library's SQLite and
PostgreSQL recorders, with the durability settings and the restore path
Kairos needs.  Pick one with :func:`kairos.store.open_store`."""
