"""Backends of the event store: the eventsourcing library's SQLite and
PostgreSQL recorders, with the durability settings and the restore path
Kairos needs (see :class:`kairos.store.Store`)."""
