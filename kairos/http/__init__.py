"""``kairos serve``: the HTTP API and MCP over HTTP, one process per home."""
