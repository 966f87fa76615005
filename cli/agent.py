"""Commands for agent runtimes: the assembled context, the memory tools, MCP."""

from __future__ import annotations

import click

from kairos.agent import DEFAULT_STRATEGY, STRATEGIES
from kairos.cli import render
from kairos.cli.options import (
    agent_option,
    json_option,
    memory,
    run,
    session_option,
    user_option,
)
from kairos.errors import MissingExtra


@click.command()
@agent_option()
@user_option()
@click.option("--strategy", "-s", type=click.Choice(STRATEGIES), default=DEFAULT_STRATEGY,
              show_default=True, help="What to inject; the rest goes through the memory tools.")
@click.option("--tools", "tools_file", type=click.Path(dir_okay=False),
              help="A JSON file of your own tool definitions (function-calling form).")
@click.option("--compare", "compare_all", is_flag=True,
              help="The four strategies' token counts side by side.")
@json_option
@click.pass_context
@run
def context(ctx: click.Context, agent: str, user: str | None, strategy: str,
            tools_file: str | None, compare_all: bool, as_json: bool) -> None:
    """Print an agent's system prompt and its token counts.

    \b
    Example:
        kairos context --agent ada --user sam
        kairos context --agent ada --user sam --compare
    """
    from kairos.agent.tools import load_tools

    extra = load_tools(tools_file) if tools_file else []
    contexts = memory(ctx).contexts
    if compare_all:
        rows = contexts.compare(agent, user, extra)
        render.emit(rows) if as_json else render.compared(rows)
        return
    result = contexts.assemble(agent, user, strategy=strategy, extra_tools=extra)
    render.emit(result.to_dict()) if as_json else render.assembled(result)


@click.command()
@json_option
@run
def tools(as_json: bool) -> None:
    """Print the memory tools' schemas (function-calling form).

    \b
    Example:
        kairos tools --json > memory-tools.json
    """
    from kairos.agent.tools import MEMORY_TOOLS

    render.emit(MEMORY_TOOLS) if as_json else render.tools()


@click.command()
@agent_option()
@user_option(required=True, help="User id.")
@session_option()
@click.pass_context
@run
def mcp(ctx: click.Context, agent: str, user: str, session: str | None) -> None:
    """Serve the memory tools of one agent and user over MCP (stdio).

    Every write is recorded with the session id given.

    \b
    Example:
        kairos --home /srv/kairos mcp --agent ada --user sam
    """
    from kairos.agent.tools import ToolExecutor
    from kairos.domain.ids import check_id

    check_id(agent, "agent")
    check_id(user, "user")
    if session is not None:
        check_id(session, "session")
    try:  # the server module imports the SDK lazily: ask for it here
        import anyio  # noqa: F401
        import mcp  # noqa: F401

        from kairos.agent.mcp_server import serve
    except ImportError as e:
        raise MissingExtra(f"kairos mcp needs the mcp extra ({e.name} is not installed): "
                           "pip install 'kairos-memory[mcp]'") from None
    serve(ToolExecutor(memory(ctx), agent, user, session))

