"""The write path and its adapters: the engine that keeps store, logs, read
model and files in step, the store backends (SQLite, PostgreSQL), the log
mirror, the file locks, rebuilds and verification."""
