"""What agent runtimes use: context assembly (:mod:`context`), the memory
tools and their executor (:mod:`tools`), search, token counts and the MCP
server.

The strategies' names are here, not in :mod:`context`, so the command line
can offer them (``kairos context --strategy``, ``kairos --help``) without
loading the assembly and its dependencies.
"""

STRATEGIES = ("full", "on-demand", "hybrid-v1", "hybrid-v2")
DEFAULT_STRATEGY = "hybrid-v2"
