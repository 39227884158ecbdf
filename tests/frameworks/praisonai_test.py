"""praisonaiagents: the tools `MCP(url)` builds for a streamable HTTP server
(`praisonaiagents/mcp/mcp_http_stream.py`, `HTTPStreamMCPTool`), called as the Agent calls
a tool (synchronously; a failure comes back as the dict `remote_tool_error` builds). The
OpenAI client sends the model `json.dumps` of what the tool returned
(`praisonaiagents/llm/openai_client.py`); the listing is each tool's OpenAI tool schema.

Usage: python praisonai_test.py path/to/toolgate
"""

import json
import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed, run_modes, signals_row, throttled, version


def connect(url: str):
    from praisonaiagents import MCP

    client = MCP(url)
    tools = {t.name: t for t in client.http_stream_client.tools}

    def invoke(name: str, args: dict) -> dict:
        result = tools[name](**args)
        return {"text": json.dumps(result), "error": isinstance(result, dict) and result.get("mcp_error") is True}

    listing = {}
    for name, t in tools.items():
        function = t.to_openai_tool()["function"]
        listing[name] = {"description": function.get("description", ""), "schema": function.get("parameters", {})}
    return client, listing, invoke


def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, praisonai"
    body = healthy_body_chars(url)
    client, listing, invoke = connect(url)
    try:
        out = {"tools": listing, "busy_url": busy, **probed(invoke)}
    finally:
        client.shutdown()
    if mode == DEFAULT:
        client, _, invoke = connect(busy)
        try:
            out["throttle"] = invoke(*BUSY)
        finally:
            client.shutdown()
    for key in ("drift", "refused", "throttle"):
        if key in out:
            out[key]["text"] = out[key]["text"].replace('\\"', '"')
    print(f"  --   {label}: the drift opens {out['drift']['text'][:160]!r}")
    # {"error": "MCP tool 'web_search' failed: RuntimeError: MCP tool web_search failed: [TextContent(…)]", …}
    return judge(mode, label, out, body, url, near_start=200, misses=("both", "text", "structured"), marked=True)


def main(binary: str) -> None:
    v = version("praisonaiagents")
    label = "praisonaiagents `MCP`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
            "the FIRST content block's text only (`praisonaiagents/mcp/mcp_http_stream.py`, `HTTPStreamMCPTool._async_call`), "
            "which the OpenAI client sends as `json.dumps` of the string; on `isError` a `RuntimeError` with the Python repr of "
            "the content list, returned as the dict `{\"error\": \"MCP tool 'web_search' failed: RuntimeError: …\", \"mcp_error\": "
            "true}` (`mcp_schema_utils.py`, `remote_tool_error`), which the agent's retry policy reads as a failure", busy)
    signals_row(label, v, "names, descriptions, input schemas as OpenAI tool schemas", "`\"mcp_error\": true` beside the error's text")
    finish()


main(sys.argv[1])
