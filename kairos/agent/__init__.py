"""What agent runtimes use: context assembly (:mod:`context`), the memory
tools and their executor (:mod:`tools`), search, token counts and the MCP
server."""
