"""praisonaiagents: the tools `MCP(url)` builds for a streamable HTTP server
(`praisonaiagents/mcp/mcp_http_stream.py`, `HTTPStreamMCPTool`), called as the Agent calls
a tool (synchronously; a failure comes back as the dict `remote_tool_error` builds). The
OpenAI client sends the model `json.dumps` of what the tool returned
(`praisonaiagents/llm/openai_client.py`).

Usage: python praisonai_test.py path/to/toolgate
"""

import json
import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


def probe(url: str, mode: str) -> tuple[bool, bool]:
    from praisonaiagents import MCP

    body = healthy_body_chars(url)
    client = MCP(url)
    try:
        tools = {t.name: t for t in client.http_stream_client.tools}
        ws = tools.get("web_search")
        params = ws.to_openai_tool()["function"]["parameters"] if ws else {}
        check(f"{mode}: tools: web_search with its input schema", "query" in params.get("properties", {}), f"{list(tools)} {params}")

        def invoke(name: str, args: dict) -> tuple[str, bool]:
            result = tools[name](**args)
            failed = isinstance(result, dict) and result.get("mcp_error") is True
            return json.dumps(result), failed

        healthy, failed = invoke("web_search", {"query": "rust"})
        check(f"{mode}: healthy: results reach the model", "results" in healthy and not failed, healthy)
        report_size(mode, body, healthy)
        note, _ = invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note,
                              misses=("both", "text", "structured"))
        invoke("demo_control", {"search_field": "excerpt"})
        drift, failed = invoke("web_search", {"query": "rust"})
        # {"error": "MCP tool 'web_search' failed: RuntimeError: MCP tool web_search failed: [TextContent(…)]", …}
        got_drift = check(f"{mode}: drift: an error dict with the failure text near its start", failed and DRIFT in drift[:250], drift)
        return got_note, got_drift
    finally:
        client.shutdown()


def main(binary: str) -> None:
    run_modes(binary, probe, "praisonaiagents `MCP`", f"{version('praisonaiagents')} (mcp {version('mcp')})",
        "the FIRST content block's text only (`praisonaiagents/mcp/mcp_http_stream.py`, `HTTPStreamMCPTool._async_call`), "
        "which the OpenAI client sends as `json.dumps` of the string; on `isError` a `RuntimeError` with the Python repr of "
        "the content list, returned as the dict `{\"error\": \"MCP tool 'web_search' failed: RuntimeError: …\", \"mcp_error\": "
        "true}` (`mcp_schema_utils.py`, `remote_tool_error`), which the agent's retry policy reads as a failure")
    finish()


main(sys.argv[1])
