# ruff: noqa: B018  (a vulture whitelist is expressions that read names)
"""Names vulture cannot see used: called by a framework, read by a reader
outside the package, or part of a documented public API.  (scripts/test
runs ``vulture kairos projections cli scripts/vulture_whitelist.py``; each
attribute read below counts as a use of that name.)"""

from types import SimpleNamespace

_ = SimpleNamespace()
# click registers commands by decorator; nothing calls them by name.
_.audit_context, _.dream_list, _.dream_show, _.dream_approve, _.dream_reject
_.session_end, _.files_cmd
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
