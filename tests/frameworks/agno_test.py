"""agno: the functions `MCPTools` builds, their entrypoints called as the agent's tool
loop calls them. What the model is handed is the returned `ToolResult.content`; the
listing is each function's description and parameters.

Usage: python agno_test.py path/to/toolgate
"""

import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


async def handed(functions: dict, name: str, args: dict) -> dict:
    text = str((await functions[name].entrypoint(**args)).content)
    return {"text": text, "error": text.startswith("Error from MCP tool")}


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    from agno.tools.mcp import MCPTools

    label = f"{mode}, agno"
    body = healthy_body_chars(url)
    async with MCPTools(url=url, transport="streamable-http") as mcp:
        functions = mcp.functions
        listing = {n: {"description": f.description or "", "schema": f.parameters or {}} for n, f in functions.items()}
        out = {"tools": listing, "busy_url": busy, **await probed_async(lambda n, a: handed(functions, n, a))}
    if mode == DEFAULT:
        async with MCPTools(url=busy, transport="streamable-http") as mcp:
            out["throttle"] = await handed(mcp.functions, *BUSY)
    # A failure reads "Error from MCP tool 'web_search': [TextContent(...)]", a Python repr.
    return judge(mode, label, out, body, url, near_start=100, misses=("structured",), marked=True)


def main(binary: str) -> None:
    v = version("agno")
    label = "agno `MCPTools`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, v,
            "the text blocks, one per line (`agno/utils/mcp.py`, `get_entrypoint_for_tool` → `call_tool`); on `isError`, "
            "\"Error from MCP tool 'web_search': \" and the Python repr of the content list", busy)
    signals_row(label, v, "names, descriptions, input schemas as they are",
                "\"Error from MCP tool 'web_search': \" before a Python repr of the content")
    finish()


main(sys.argv[1])
