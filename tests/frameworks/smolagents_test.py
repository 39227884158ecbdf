"""smolagents: the tools `MCPClient` builds (mcpadapt's `SmolAgentsAdapter`), called the way
`ToolCallingAgent.execute_tool_call` calls them; the observation the model reads is
`str(result).strip()`, and an exception the agent's error text. Measured with the default
(`structured_output=False`) and with `structured_output=True`; the listing is each tool's
name, description and `inputs`.

Usage: python smolagents_test.py path/to/toolgate
"""

import sys
import warnings

from common import BUSY, DEFAULT, check, finish, healthy_body_chars, judge, probed, run_modes, signals_row, throttled, version

# mcpadapt marks no input nullable, so `validate_tool_arguments` requires every one,
# optional or not: the model must give `limit` (and every demo_control argument).
FILLED = {"web_search": {"limit": 3}, "demo_control": {"slow_ms": 50, "outage": False, "status_indicator": "none"}}


def connect(url: str, structured: bool):
    from smolagents import MCPClient, ToolCallingAgent
    from smolagents.models import Model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client = MCPClient({"url": url, "transport": "streamable-http"}, structured_output=structured)
    tools = {t.name: t for t in client.get_tools()}
    agent = ToolCallingAgent(tools=list(tools.values()), model=Model(model_id="none"))

    def invoke(name: str, args: dict) -> dict:
        args = {**{k: v for k, v in FILLED.get(name, {}).items() if k in tools[name].inputs}, **args}
        try:
            # What `ToolCallingAgent.process_tool_calls` turns the result into.
            return {"text": str(agent.execute_tool_call(name, args)).strip(), "error": False}
        except Exception as e:  # noqa: BLE001 - the agent hands the model the error's text
            return {"text": str(e), "error": True}

    listing = {n: {"description": t.description or "", "schema": {"properties": t.inputs}} for n, t in tools.items()}
    return client, agent, listing, invoke


def probe(url: str, mode: str, structured: bool, busy: str) -> tuple[bool, bool]:
    body = healthy_body_chars(url)
    label = f"{mode}, structured_output={structured}"
    client, agent, listing, invoke = connect(url, structured)
    try:
        try:
            agent.execute_tool_call("web_search", {"query": "rust"})
            required = False
        except Exception as e:  # noqa: BLE001
            required = "Argument limit is required" in str(e)
        check(f"{label}: tools: an optional argument left out is refused before the call", required, "the call went out")
        out = {"tools": listing, "busy_url": busy, **probed(invoke)}
    finally:
        client.disconnect()
    if mode == DEFAULT:
        client, _, _, invoke = connect(busy, structured)
        try:
            out["throttle"] = invoke(*BUSY)
        finally:
            client.disconnect()
    misses = ("text",) if structured else ("both", "text", "structured")
    return judge(mode, label, out, body, url, misses=misses, marked=False)


def main(binary: str) -> None:
    v = version("smolagents")
    label = "smolagents `MCPClient`"
    listing = "names, descriptions, inputs (type, description, every one required)"
    # Each variant its own throttled toolgate: a second call of the first would be refused
    # without reaching the upstream (the wait it was told is not over).
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v}, default",
                  "the FIRST content block only (`mcpadapt/smolagents_adapter.py`, `MCPAdaptTool.forward`: \"returned multiple "
                  "content, using the first one\"); `isError` is not passed on, so the drift reads as a failure by its opening words; every input is required "
                  "(mcpadapt marks none nullable), so the model must fill optional arguments", False, busy)
        signals_row(label, f"{v}, default", listing, "not passed on: the failure reads by its words")
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v}, `structured_output=True`",
                  "`structuredContent` when present, else the first block parsed as JSON (`mcpadapt/smolagents_adapter.py`, "
                  "`MCPAdaptTool.forward`); `isError` is not passed on", True, busy)
        signals_row(label, f"{v}, `structured_output=True`", listing, "not passed on: the failure reads by its words")
    finish()


main(sys.argv[1])
