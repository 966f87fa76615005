# ruff: noqa: B018  (a vulture whitelist is expressions that read names)
"""Names vulture cannot see used: called by a framework, read by a reader
outside the package, or part of a documented public API.  (scripts/test
runs ``vulture kairos projections cli scripts/vulture_whitelist.py``; each
attribute read below counts as a use of that name.)"""

from types import SimpleNamespace

_ = SimpleNamespace()
# click registers commands by decorator; nothing calls them by name.
_.audit_context, _.dream_list, _.dream_show, _.dream_approve, _.dream_reject
_.session_end, _.files_cmd, _.rotate_key
# The top group imports a command by its name (kairos/cli/main.py, COMMANDS).
_.mcp
# Module attributes looked up on first use (PEP 562): kairos.Memory,
# kairos.domain.MemoryStream.
_.__getattr__
# The eventsourcing library reads these on the aggregate and the application.
_.class_version, _.upcast_v1_v2, _.snapshotting_intervals, _.construct_transcoder
# SQLAlchemy calls the connect hook it was registered with.
_._pragmas
# litellm's own switch, set by the llm distiller.
_.suppress_debug_info
# The OpenAI client reads it on every request (the embedder's no-retries client).
_.max_retries
# Public API for agent runtimes (docs/examples/agent_loop.py) and result fields.
_.run_json, _.moved_to, _.nbytes, _.retracted_by, _.ref, _.hard_limit
# The fault points production code names, listed for tests and readers.
_.POINTS
# The library reads these: a snapshot upcast, the factory named by topic in
# the settings, the pool's attributes; SQLAlchemy calls its error hook.
_.upcast_v2_v3, _.ReadOnlySQLiteFactory, _.reconnect_timeout, _.is_journal_mode_wal
_._storage_error
# The fault seam's in-process switch, for tests.
_.arm
# The time rules register themselves by decorator (kairos/dream/distill/when.py).
_._iso, _._dmy, _._mdy, _._dmy_numeric, _._month_year, _._overmorrow, _._ereyesterday
_._tomorrow, _._yesterday, _._today, _._weekday, _._weekday_the_nth, _._next_unit, _._in_n
_._ago, _._uebermorgen
_._vorgestern, _._morgen, _._gestern, _._heute, _._naechste, _._wochentag, _._in_n_de, _._vor_n
_._dm_en, _._md_en, _._dm_de, _._dm_numeric, _._in_month, _._the_nth, _._the_weekend
_._end_of, _._ende, _._last_night, _._weekday_at, _._week_after_next, _._weekday_terse
_._wochentag_kurz, _._weekday_of_week, _._wochentag_der_woche
# kairos serve: click registers the command; asdict reads the key's fields;
# the client's methods are its API (tests call them).
_.list_keys, _.issued_by, _.revoked_by, _.show_dream
