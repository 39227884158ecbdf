"""anthropic (the Claude SDK): MCP tools turned into tool-runner tools by
`anthropic.lib.tools.mcp.async_mcp_tool`, called as the tool runner calls them
(`run_runnable_tool`), a `ToolError` rendered as the runner renders it
(`tool_error_content`), and the `tool_result` block sent back to the model read as JSON.

Usage: python anthropic_test.py path/to/toolgate
"""

import json
import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from anthropic.lib.tools._beta_functions import ToolError
    from anthropic.lib.tools._tool_dispatch import run_runnable_tool, tool_error_content
    from anthropic.lib.tools.mcp import async_mcp_tool
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    body = healthy_body_chars(url)
    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: async_mcp_tool(t, session) for t in (await session.list_tools()).tools}
            ws = tools.get("web_search")
            check(f"{mode}: tools: web_search with its input schema",
                  ws is not None and "query" in ws.to_dict()["input_schema"].get("properties", {}), f"{list(tools)}")

            async def invoke(name: str, args: dict) -> tuple[str, bool]:
                try:
                    content, is_error = await run_runnable_tool(tools[name], args), False
                except ToolError as e:
                    content, is_error = tool_error_content(e), True
                block = {"type": "tool_result", "tool_use_id": "toolu_1", "content": content, "is_error": is_error}
                return json.dumps(block["content"], ensure_ascii=False), is_error

            healthy, err = await invoke("web_search", {"query": "rust"})
            check(f"{mode}: healthy: results reach the model", "Result 1 for rust" in healthy and not err, healthy)
            report_size(mode, body, healthy)
            note, _ = await invoke("legacy_search", {"query": "rust"})
            got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note,
                                  misses=("structured",))
            await invoke("demo_control", {"search_field": "excerpt"})
            drift, err = await invoke("web_search", {"query": "rust"})
            got_drift = check(f"{mode}: drift: a tool_result with is_error and the failure text", err and DRIFT in drift[:200], drift)
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "anthropic `async_mcp_tool` (tool runner)", f"{version('anthropic')} (mcp {version('mcp')})",
        "the text blocks as the `tool_result` content (`anthropic/lib/tools/mcp.py`, `_convert_tool_result`; "
        "`structuredContent` only when there is no content block); `isError` raises `ToolError` with the blocks, "
        "which the tool runner sends as a `tool_result` with `is_error: true`")
    finish()


main(sys.argv[1])
