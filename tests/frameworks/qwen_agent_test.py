"""qwen-agent: an `FnCallAgent` given the server as `{"mcpServers": …}`, whose
`MCPManager` (`qwen_agent/tools/mcp_manager.py`) makes one tool per server tool; each is
called through `Agent._call_tool` (`qwen_agent/agent.py`), the string the agent loop puts
in the function message the model reads. `MCPClient.execute_function` joins the text
blocks with a blank line and ignores `isError`.

The agent is given an OpenAI-compatible model setting it never calls (no model runs).

Usage: python qwen_agent_test.py path/to/toolgate
"""

import json
import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed, run_modes, signals_row, throttled, version

NO_MODEL = {"model": "probe", "model_server": "http://127.0.0.1:9/v1", "api_key": "none"}


def connect(url: str):
    from qwen_agent.agents import FnCallAgent

    agent = FnCallAgent(function_list=[{"mcpServers": {"demo": {"type": "streamable-http", "url": url}}}], llm=NO_MODEL)

    def invoke(name: str, args: dict) -> dict:
        out = agent._call_tool(f"demo-{name}", json.dumps(args))
        return {"text": out if isinstance(out, str) else repr(out), "error": False}

    # The model sees each tool as `<server>-<tool>`, with the parameters qwen-agent kept.
    listing = {name.removeprefix("demo-"): {"description": tool.function.get("description", ""),
                                             "schema": tool.function.get("parameters", {})}
               for name, tool in agent.function_map.items()}
    return agent, listing, invoke


def forget(agent: object) -> None:
    """The manager is a process-wide singleton with its own loop: forget this toolgate's
    session before the next setup's toolgate replaces it. Closing it from here fails
    (anyio: its cancel scope was entered in another task), as it does in the manager's
    own `shutdown`; it ends when its toolgate stops."""
    from qwen_agent.tools.mcp_manager import MCPManager

    manager = MCPManager()
    for client_id in {getattr(t, "client_id", None) for t in agent.function_map.values()} - {None}:
        manager.clients.pop(client_id, None)


def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, qwen-agent"
    body = healthy_body_chars(url)
    agent, listing, invoke = connect(url)
    try:
        out = {"tools": listing, "busy_url": busy, **probed(invoke)}
    finally:
        forget(agent)
    if mode == DEFAULT:
        agent, _, invoke = connect(busy)
        try:
            out["throttle"] = invoke(*BUSY)
        finally:
            forget(agent)
    return judge(mode, label, out, body, url, misses=("structured",), marked=False)


def main(binary: str) -> None:
    v = version("qwen-agent")
    label = "qwen-agent `MCPManager`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
            "the text blocks, separated by a blank line (`qwen_agent/tools/mcp_manager.py`, `MCPClient.execute_function`, "
            "through `Agent._call_tool`); `isError` is not passed on, so the drift reads as a failure by its opening words; "
            "an input schema without `properties` (a fronted server's may lack it; an HTTP tool's always has it) makes the "
            "whole server's tools fail to load (`init_config_async`)", busy)
    signals_row(label, v, "names (prefixed with the server's), descriptions, input schemas as they are",
                "not passed on: the failure reads by its words")
    finish()


main(sys.argv[1])
