"""strands-agents: `MCPClient` as an Agent uses it. A call's `MCPToolResult` (from
`MCPClient._handle_tool_result`) keeps `structuredContent` and `_meta` aside; the model
providers send the model only its `content` blocks and `status` (e.g. the default
Bedrock model, `BedrockModel._format_request_message_content`).

Usage: python strands_test.py path/to/toolgate
"""

import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


def probe(url: str, mode: str) -> tuple[bool, bool]:
    from strands.tools.mcp import MCPClient

    body = healthy_body_chars(url)
    with MCPClient(url=url) as client:
        tools = {t.tool_name: t for t in client.list_tools_sync()}
        ws = tools.get("web_search")
        check(f"{mode}: tools: web_search with its input schema",
              ws is not None and "query" in ws.tool_spec["inputSchema"]["json"].get("properties", {}), f"{list(tools)}")

        def invoke(name: str, args: dict) -> tuple[str, str]:
            result = client.call_tool_sync("1", name, args)
            return "\n".join(c.get("text", "") for c in result["content"]), result["status"]

        healthy, status = invoke("web_search", {"query": "rust"})
        check(f"{mode}: healthy: results reach the model", "results" in healthy and status == "success", f"{status} {healthy}")
        report_size(mode, body, healthy)
        note, _ = invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note)
        invoke("demo_control", {"search_field": "excerpt"})
        drift, status = invoke("web_search", {"query": "rust"})
        got_drift = check(f"{mode}: drift: status error with the failure text", status == "error" and drift.startswith(DRIFT), f"{status} {drift}")
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "strands-agents `MCPClient`", version("strands-agents"),
        "the text blocks and `status` (`strands/tools/mcp/mcp_client.py`, `MCPClient._handle_tool_result`; "
        "`structuredContent` and `_meta` are kept in the result but not sent by the model providers)")
    finish()


main(sys.argv[1])
