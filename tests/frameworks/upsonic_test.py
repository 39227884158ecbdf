"""Upsonic: the tools an `MCPHandler` gives an agent, registered and run through the agent's
`ToolManager` (its retry and timeout wrapper, `tools/execution.py`); the model is handed the
`ToolReturnPart` of the result, `model_response_str()`: the wrapper's `{"func": …}` as JSON.

Usage: python upsonic_test.py path/to/toolgate
"""

import contextlib
import io
import sys

from common import DEFAULT, finish, healthy_body_chars, judge, run_modes, signals_row, throttled, version


async def handed_by(url: str) -> tuple[dict, object]:
    from upsonic.tools import ToolManager
    from upsonic.tools.mcp import MCPHandler

    handler = MCPHandler(url=url, transport="streamable-http")
    manager = ToolManager()
    # Upsonic prints every call to the console; what the model reads is the return part.
    with contextlib.redirect_stdout(io.StringIO()):
        tools = manager.register_tools([handler])
    return tools, (manager, handler)


async def call(parts: object, name: str, args: dict) -> dict:
    from upsonic.messages.messages import ToolReturnPart

    manager, _ = parts
    with contextlib.redirect_stdout(io.StringIO()):
        result = await manager.execute_tool(name, args)
    text = ToolReturnPart(tool_name=name, content=result.content, tool_call_id="probe").model_response_str()
    return {"text": text, "error": not result.success or '"success":false' in text}


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, upsonic"
    body = healthy_body_chars(url)
    tools, parts = await handed_by(url)
    out = {"tools": {name: {"description": t.description or "", "schema": t.schema.json_schema} for name, t in tools.items()},
           "busy_url": busy}
    try:
        out["healthy"] = await call(parts, "web_search", {"query": "rust"})
        out["note"] = await call(parts, "legacy_search", {"query": "rust"})
        out["refused"] = await call(parts, "web_search", {"query": "rust", "limit": 50})
        await call(parts, "demo_control", {"search_field": "excerpt"})
        out["drift"] = await call(parts, "web_search", {"query": "rust"})
    finally:
        with contextlib.redirect_stdout(io.StringIO()):
            await parts[1].close()
    if mode == DEFAULT:
        _, busy_parts = await handed_by(busy)
        try:
            out["throttle"] = await call(busy_parts, "busy_search", {"query": "rust"})
        finally:
            with contextlib.redirect_stdout(io.StringIO()):
                await busy_parts[1].close()
    # A failure is `{"func": {"error": "Error from MCP tool 'web_search': [TextContent(type='text', text='…`,
    # a Python repr inside JSON: its quotes are escaped or swapped, so the sentence is
    # looked for near the start with them taken out.
    for key in ("drift", "refused", "throttle"):
        if key in out:
            out[key]["text"] = out[key]["text"].replace('\\"', '"')
    return judge(mode, label, out, body, url, near_start=100, misses=("structured",))


def main(binary: str) -> None:
    v = version("upsonic")
    label = "Upsonic `MCPHandler`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
                  "the text blocks, one per line, inside the tool wrapper's `{\"func\": …}` as JSON (`upsonic/tools/mcp.py`, "
                  "`MCPHandler._process_tool_result`; `tools/execution.py`, `ToolWrapper.wrap`; then "
                  "`ToolReturnPart.model_response_str`), so the body JSON-escaped; on `isError` "
                  "`{\"error\": \"Error from MCP tool 'web_search': \" + the Python repr of the content list, \"success\": false}` "
                  "(`MCPHandler.call_tool`), returned, not raised, so the wrapper's two retries are not spent on it", busy)
    signals_row(label, v, "names, descriptions, input schemas as they are",
                "`\"success\": false` beside a Python repr of the content")
    finish()


main(sys.argv[1])
