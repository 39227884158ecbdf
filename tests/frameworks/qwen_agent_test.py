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

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version

NO_MODEL = {"model": "probe", "model_server": "http://127.0.0.1:9/v1", "api_key": "none"}


def probe(url: str, mode: str) -> tuple[bool, bool]:
    from qwen_agent.agents import FnCallAgent
    from qwen_agent.tools.mcp_manager import MCPManager

    body = healthy_body_chars(url)
    agent = FnCallAgent(function_list=[{"mcpServers": {"demo": {"type": "streamable-http", "url": url}}}], llm=NO_MODEL)
    try:
        # The model sees each tool as `<server>-<tool>`, with the parameters qwen-agent kept.
        functions = {name.removeprefix("demo-"): tool.function for name, tool in agent.function_map.items()}
        params = functions.get("web_search", {}).get("parameters", {})
        check(f"{mode}: tools: web_search with its input schema", "query" in params.get("properties", {}), f"{list(functions)}")

        def invoke(name: str, args: dict) -> str:
            out = agent._call_tool(f"demo-{name}", json.dumps(args))
            return out if isinstance(out, str) else repr(out)

        healthy = invoke("web_search", {"query": "rust"})
        check(f"{mode}: healthy: results reach the model", "results" in healthy, healthy)
        report_size(mode, body, healthy)
        note = invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note, misses=("structured",))
        invoke("demo_control", {"search_field": "excerpt"})
        drift = invoke("web_search", {"query": "rust"})
        got_drift = check(f"{mode}: drift: the text opens with the failure", drift.startswith(DRIFT), drift)
        return got_note, got_drift
    finally:
        # The manager is a process-wide singleton with its own loop: forget this toolgate's
        # session before the next setup's toolgate replaces it. Closing it from here fails
        # (anyio: its cancel scope was entered in another task), as it does in the
        # manager's own `shutdown`; it ends when its toolgate stops.
        manager = MCPManager()
        for client_id in {getattr(t, "client_id", None) for t in agent.function_map.values()} - {None}:
            manager.clients.pop(client_id, None)


def main(binary: str) -> None:
    run_modes(binary, probe, "qwen-agent `MCPManager`", f"{version('qwen-agent')} (mcp {version('mcp')})",
        "the text blocks, separated by a blank line (`qwen_agent/tools/mcp_manager.py`, `MCPClient.execute_function`, "
        "through `Agent._call_tool`); `isError` is not passed on, so the drift reads as a failure by its opening words; "
        "an input schema without `properties` (a fronted server's may lack it; an HTTP tool's always has it) makes the "
        "whole server's tools fail to load (`init_config_async`)")
    finish()


main(sys.argv[1])
