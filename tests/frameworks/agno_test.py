"""agno: the functions `MCPTools` builds, their entrypoints called as the agent's tool
loop calls them. What the model is handed is the returned `ToolResult.content`.

Usage: python agno_test.py path/to/toolgate
"""

import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from agno.tools.mcp import MCPTools

    body = healthy_body_chars(url)
    async with MCPTools(url=url, transport="streamable-http") as mcp:
        functions = mcp.functions
        ws = functions.get("web_search")
        check(f"{mode}: tools: web_search with its input schema", ws is not None and "query" in (ws.parameters or {}).get("properties", {}), f"{list(functions)}")

        async def invoke(name: str, args: dict) -> str:
            return str((await functions[name].entrypoint(**args)).content)

        healthy = await invoke("web_search", {"query": "rust"})
        check(f"{mode}: healthy: results reach the model", "results" in healthy, healthy)
        report_size(mode, body, healthy)
        note = await invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note)
        await invoke("demo_control", {"search_field": "excerpt"})
        drift = await invoke("web_search", {"query": "rust"})
        # A failure reads "Error from MCP tool 'web_search': [TextContent(...)]", a repr.
        got_drift = check(f"{mode}: drift: an error text with the failure", drift.startswith("Error from MCP tool") and DRIFT in drift, drift)
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "agno `MCPTools`", version("agno"),
        "the text blocks, one per line (`agno/utils/mcp.py`, `get_entrypoint_for_tool` → `call_tool`); on `isError`, "
        "\"Error from MCP tool 'web_search': \" and the Python repr of the content list")
    finish()


main(sys.argv[1])
