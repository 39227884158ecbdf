"""smolagents: the tools `MCPClient` builds (mcpadapt's `SmolAgentsAdapter`), called the way
`ToolCallingAgent.execute_tool_call` calls them; the observation the model reads is
`str(result).strip()`. Measured with the default (`structured_output=False`) and with
`structured_output=True`.

Usage: python smolagents_test.py path/to/toolgate
"""

import sys
import warnings

from common import DRIFT, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


def probe(url: str, mode: str, structured: bool) -> tuple[bool, bool]:
    from smolagents import MCPClient, ToolCallingAgent
    from smolagents.models import Model

    body = healthy_body_chars(url)
    label = f"{mode}, structured_output={structured}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client = MCPClient({"url": url, "transport": "streamable-http"}, structured_output=structured)
    try:
        tools = {t.name: t for t in client.get_tools()}
        ws = tools.get("web_search")
        check(f"{label}: tools: web_search with its inputs", ws is not None and "query" in ws.inputs, f"{list(tools)}")
        agent = ToolCallingAgent(tools=list(tools.values()), model=Model(model_id="none"))

        def invoke(name: str, args: dict) -> str:
            # What `ToolCallingAgent.process_tool_calls` turns the result into.
            return str(agent.execute_tool_call(name, args)).strip()

        # mcpadapt marks no input nullable, so `validate_tool_arguments` requires every one,
        # optional or not: the model must give `limit` (and every demo_control argument).
        try:
            agent.execute_tool_call("web_search", {"query": "rust"})
            required = False
        except Exception as e:  # noqa: BLE001
            required = "Argument limit is required" in str(e)
        check(f"{label}: tools: an optional argument left out is refused before the call", required, "the call went out")
        control = {"search_field": "excerpt", "slow_ms": 50, "outage": False, "status_indicator": "none"}
        control = {k: v for k, v in control.items() if k in tools["demo_control"].inputs}
        healthy = invoke("web_search", {"query": "rust", "limit": 3})
        check(f"{label}: healthy: results reach the model", "results" in healthy or "rust" in healthy, healthy)
        report_size(mode, body, healthy, label)
        note = invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{label}: note: the deprecation reaches the model", "legacy_search is deprecated" in note, note,
                              misses=() if structured else ("both", "text", "structured"))
        invoke("demo_control", control)
        drift = invoke("web_search", {"query": "rust", "limit": 3})
        got_drift = check(f"{label}: drift: the observation opens with the failure", drift.startswith(DRIFT), drift)
        return got_note, got_drift
    finally:
        client.disconnect()


def main(binary: str) -> None:
    v = version("smolagents")
    run_modes(binary, probe, "smolagents `MCPClient`", f"{v}, default",
              "the FIRST content block only (`mcpadapt/smolagents_adapter.py`, `MCPAdaptTool.forward`: \"returned multiple "
              "content, using the first one\"); `isError` is not passed on, so the drift reads as a failure by its opening words; every input is required "
              "(mcpadapt marks none nullable), so the model must fill optional arguments", False)
    run_modes(binary, probe, "smolagents `MCPClient`", f"{v}, `structured_output=True`",
              "`structuredContent` when present, else the first block parsed as JSON (`mcpadapt/smolagents_adapter.py`, "
              "`MCPAdaptTool.forward`); `isError` is not passed on", True)
    finish()


main(sys.argv[1])
