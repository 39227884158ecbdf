"""llama-index-tools-mcp: the FunctionTools `McpToolSpec.to_tool_list_async()` builds,
called as an agent calls them (`acall`). `ToolOutput.content` is what the model is
handed; `is_error` is what the agent loop reads.

Usage: python llama_index_test.py path/to/toolgate
"""

import sys

from common import DRIFT, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from llama_index.tools.mcp import BasicMCPClient, McpToolSpec

    body = healthy_body_chars(url)
    tools = {t.metadata.name: t for t in await McpToolSpec(client=BasicMCPClient(url)).to_tool_list_async()}
    ws = tools.get("web_search")
    schema = ws.metadata.fn_schema.model_json_schema() if ws else {}
    check(f"{mode}: tools: web_search with its input schema", "query" in (schema.get("properties") or {}), f"{list(tools)} {schema}")
    healthy = await tools["web_search"].acall(query="rust")
    check(f"{mode}: healthy: results reach the model", "results" in healthy.content and not healthy.is_error, healthy.content[:300])
    report_size(mode, body, healthy.content)
    note = await tools["legacy_search"].acall(query="rust")
    got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", "legacy_search is deprecated" in note.content, note.content[:400])
    await tools["demo_control"].acall(search_field="excerpt")
    drift = await tools["web_search"].acall(query="rust")
    # The client flags nothing (is_error=False) and hands the model a repr of the whole
    # result, which opens with `meta=`: toolgate puts the failure text first in `_meta`,
    # so the repr's first words are the failure.
    opening = f"meta={{'dev.toolgate/error': '{DRIFT}"
    got_drift = check(f"{mode}: drift: what the model gets opens with the failure text",
                      drift.content.startswith(opening), drift.content[:300])
    print(f"  --   {mode}: drift: is_error={drift.is_error} (the client's flag)")
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "llama-index-tools-mcp", version("llama-index-tools-mcp"),
        "`ToolOutput.content` is `str()` of the whole `CallToolResult` (a Python repr: notes and the failure text "
        "inside it); the client drops `isError`: `McpToolSpec._create_tool_fn` (`llama_index/tools/mcp/base.py`) "
        "returns the raw result and `FunctionTool.acall` (`llama_index/core/tools/function_tool.py`) wraps it with "
        "`is_error=False`; the repr opens with `meta=`, and toolgate's `_meta` opens with `dev.toolgate/error` (the "
        "failure text), so its first words say the call failed")
    finish()


main(sys.argv[1])
