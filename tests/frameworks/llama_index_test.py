"""llama-index-tools-mcp: the FunctionTools `McpToolSpec.to_tool_list_async()` builds,
called as an agent calls them (`acall`). `ToolOutput.content` is what the model is
handed; `is_error` is what the agent loop reads.

Usage: python llama_index_test.py path/to/toolgate
"""

import asyncio
import sys

from common import DRIFT, MODES, check, demo, finish, note_check, row, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from llama_index.tools.mcp import BasicMCPClient, McpToolSpec

    tools = {t.metadata.name: t for t in await McpToolSpec(client=BasicMCPClient(url)).to_tool_list_async()}
    ws = tools.get("web_search")
    schema = ws.metadata.fn_schema.model_json_schema() if ws else {}
    check(f"{mode}: tools: web_search with its input schema", "query" in (schema.get("properties") or {}), f"{list(tools)} {schema}")
    healthy = await tools["web_search"].acall(query="rust")
    check(f"{mode}: healthy: results reach the model", "results" in healthy.content and not healthy.is_error, healthy.content[:300])
    note = await tools["legacy_search"].acall(query="rust")
    got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", "legacy_search is deprecated" in note.content, note.content[:400])
    await tools["demo_control"].acall(search_field="excerpt")
    drift = await tools["web_search"].acall(query="rust")
    # The failure text is in the content (inside a repr of the whole result) either way;
    # as an error it reaches the model only if the client flags it or the content opens with it.
    check(f"{mode}: drift: the failure text is in what the model gets", DRIFT in drift.content, drift.content[:400])
    as_error = drift.is_error or drift.content.startswith(DRIFT)
    print(f"  --   {mode}: drift: is_error={drift.is_error}, content opens with {drift.content[:40]!r}")
    return got_note, as_error


async def main(binary: str) -> None:
    notes, drift = {}, True
    for mode in MODES:
        with demo(binary, mode) as url:
            notes[mode], d = await probe(url, mode)
            drift = drift and d
    row("llama-index-tools-mcp", version("llama-index-tools-mcp"), notes, drift,
        "`ToolOutput.content` is `str()` of the whole `CallToolResult` (a Python repr: notes and the failure text "
        "inside it); the client drops `isError`: `McpToolSpec._create_tool_fn` (`llama_index/tools/mcp/base.py`) "
        "returns the raw result and `FunctionTool.acall` (`llama_index/core/tools/function_tool.py`) wraps it with "
        "`is_error=False`, so the drift arrives as an ordinary output whose repr opens with `meta=` (the failure text "
        "and `is_error=True` are inside it, but not its opening words)")
    finish()


asyncio.run(main(sys.argv[1]))
