"""Who may reach a home over the network: the API keys of ``kairos serve``."""
