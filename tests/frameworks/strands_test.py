"""strands-agents: `MCPClient` as an Agent uses it. A call's `MCPToolResult` (from
`MCPClient._handle_tool_result`) keeps `structuredContent` and `_meta` aside; the model
providers send the model only its `content` blocks and `status` (e.g. the default
Bedrock model, `BedrockModel._format_request_message_content`). The listing is each
tool's `tool_spec`.

Usage: python strands_test.py path/to/toolgate
"""

import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed, run_modes, signals_row, throttled, version


def handed(client: object, name: str, args: dict) -> dict:
    result = client.call_tool_sync("1", name, args)
    return {"text": "\n".join(c.get("text", "") for c in result["content"]), "error": result["status"] == "error"}


def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    from strands.tools.mcp import MCPClient

    label = f"{mode}, strands"
    body = healthy_body_chars(url)
    with MCPClient(url=url) as client:
        listing = {t.tool_name: {"description": t.tool_spec.get("description", ""), "schema": t.tool_spec["inputSchema"]["json"]}
                   for t in client.list_tools_sync()}
        out = {"tools": listing, "busy_url": busy, **probed(lambda n, a: handed(client, n, a))}
    if mode == DEFAULT:
        with MCPClient(url=busy) as client:
            client.list_tools_sync()
            out["throttle"] = handed(client, *BUSY)
    return judge(mode, label, out, body, url, misses=("structured",), marked=True)


def main(binary: str) -> None:
    v = version("strands-agents")
    label = "strands-agents `MCPClient`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, v,
            "the text blocks and `status` (`strands/tools/mcp/mcp_client.py`, `MCPClient._handle_tool_result`; "
            "`structuredContent` and `_meta` are kept in the result but not sent by the model providers)", busy)
    signals_row(label, v, "names, descriptions, input schemas as they are", "`status: error`")
    finish()


main(sys.argv[1])
