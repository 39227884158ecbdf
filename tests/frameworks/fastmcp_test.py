"""fastmcp `Client`: `call_tool` returns `.data` (from structuredContent, typed by the
outputSchema) and `.content`; an `isError` result raises `ToolError` with the text.

Usage: python fastmcp_test.py path/to/toolgate
"""

import asyncio
import sys

from common import DRIFT, NOTE, check, demo, finish, row, text_of, version


async def main(binary: str) -> None:
    from fastmcp import Client
    from fastmcp.exceptions import ToolError

    with demo(binary) as url:
        async with Client(url) as client:
            tools = {t.name: t for t in await client.list_tools()}
            ws = tools.get("web_search")
            check("tools: web_search with input and output schema",
                  ws is not None and "query" in (ws.input_schema or {}).get("properties", {}) and bool(ws.output_schema), f"{list(tools)}")
            healthy = await client.call_tool("web_search", {"query": "rust"})
            check("healthy: .data carries the results", "results" in text_of(healthy.structured_content), text_of(healthy.structured_content))
            legacy = await client.call_tool("legacy_search", {"query": "rust"})
            content = " ".join(getattr(b, "text", "") for b in legacy.content)
            structured = text_of(legacy.structured_content)
            in_content = check("note: in .content", NOTE in content, content)
            in_data = check("note: in .structured_content (and so .data)", "legacy_search is deprecated" in structured, structured)
            await client.call_tool("demo_control", {"search_field": "excerpt"})
            try:
                await client.call_tool("web_search", {"query": "rust"})
                got_drift = check("drift: ToolError", False, "no ToolError raised")
            except ToolError as e:
                got_drift = check("drift: ToolError with the failure text", str(e).startswith(DRIFT), str(e))
        row("fastmcp `Client`", version("fastmcp"), in_content and in_data, got_drift,
            "`.data` from `structuredContent` (notes in its `toolgate` member), notes also in `.content`; drift: `ToolError`")
    finish()


asyncio.run(main(sys.argv[1]))
