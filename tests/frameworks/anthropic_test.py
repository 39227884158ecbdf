"""anthropic (the Claude SDK): MCP tools turned into tool-runner tools by
`anthropic.lib.tools.mcp.async_mcp_tool`, called as the tool runner calls them
(`run_runnable_tool`), a `ToolError` rendered as the runner renders it
(`tool_error_content`), and the `tool_result` block sent back to the model read as JSON.
The listing is each tool's `to_dict()`, what the runner sends as the tool definition.

Usage: python anthropic_test.py path/to/toolgate
"""

import json
import sys
from contextlib import asynccontextmanager

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version

# What the JSON of the `tool_result` content puts before the first block's text.
OPENING = '[{"type": "text", "text": "'


@asynccontextmanager
async def connected(url: str):
    from anthropic.lib.tools._beta_functions import ToolError
    from anthropic.lib.tools._tool_dispatch import run_runnable_tool, tool_error_content
    from anthropic.lib.tools.mcp import async_mcp_tool
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: async_mcp_tool(t, session) for t in (await session.list_tools()).tools}

            async def invoke(name: str, args: dict) -> dict:
                try:
                    content, is_error = await run_runnable_tool(tools[name], args), False
                except ToolError as e:
                    content, is_error = tool_error_content(e), True
                block = {"type": "tool_result", "tool_use_id": "toolu_1", "content": content, "is_error": is_error}
                return {"text": json.dumps(block["content"], ensure_ascii=False), "error": is_error}

            listing = {}
            for name, t in tools.items():
                definition = t.to_dict()
                listing[name] = {"description": definition.get("description", ""), "schema": definition["input_schema"]}
            yield listing, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, anthropic"
    body = healthy_body_chars(url)
    async with connected(url) as (listing, invoke):
        out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    if mode == DEFAULT:
        async with connected(busy) as (_, invoke):
            out["throttle"] = await invoke(*BUSY)
    # The failure text sits JSON-escaped inside the blocks' JSON.
    for key in ("drift", "refused", "throttle"):
        if key in out:
            out[key]["text"] = out[key]["text"].replace('\\"', '"')
    print(f"  --   {label}: the drift opens {out['drift']['text'][:80]!r}")
    return judge(mode, label, out, body, url, near_start=len(OPENING), misses=("structured",), marked=True)


def main(binary: str) -> None:
    v = version("anthropic")
    label = "anthropic `async_mcp_tool` (tool runner)"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
                  "the text blocks as the `tool_result` content (`anthropic/lib/tools/mcp.py`, `_convert_tool_result`; "
                  "`structuredContent` only when there is no content block); `isError` raises `ToolError` with the blocks, "
                  "which the tool runner sends as a `tool_result` with `is_error: true`", busy)
    signals_row(label, v, "names, descriptions, input schemas as they are", "`is_error: true`")
    finish()


main(sys.argv[1])
