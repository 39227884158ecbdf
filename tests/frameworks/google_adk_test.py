"""google-adk: the tools `McpToolset` builds, run as the agent's flow runs them. The
function response the model is handed is the dict `McpTool._run_async_impl` returns: the
whole `CallToolResult`, dumped (content, structuredContent, isError and _meta).

Usage: python google_adk_test.py path/to/toolgate
"""

import json
import sys

from common import DRIFT, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from google.adk.tools.mcp_tool import McpToolset, StreamableHTTPConnectionParams

    body = healthy_body_chars(url)
    toolset = McpToolset(connection_params=StreamableHTTPConnectionParams(url=url))
    try:
        tools = {t.name: t for t in await toolset.get_tools()}
        ws = tools.get("web_search")
        decl = ws._get_declaration() if ws else None
        params = json.dumps(decl.model_dump(mode="json", exclude_none=True)) if decl else ""
        check(f"{mode}: tools: web_search with its input schema", "query" in params, f"{list(tools)} {params[:300]}")

        async def invoke(name: str, args: dict) -> dict:
            return await tools[name]._run_async_impl(args=args, tool_context=None, credential=None)

        healthy = await invoke("web_search", {"query": "rust"})
        check(f"{mode}: healthy: results reach the model", "results" in json.dumps(healthy) and not healthy.get("isError"), str(healthy)[:300])
        note = await invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", "legacy_search is deprecated" in json.dumps(note), str(note))
        await invoke("demo_control", {"search_field": "excerpt"})
        drift = await invoke("web_search", {"query": "rust"})
        text = json.dumps(drift, ensure_ascii=False)
        got_drift = check(f"{mode}: drift: isError with the failure text", drift.get("isError") is True and DRIFT in text, text[:400])
        report_size(mode, body, json.dumps(healthy, ensure_ascii=False))
        print(f"  --   {mode}: the drift opens {text[:60]!r}")
        return got_note, got_drift
    finally:
        await toolset.close()


def main(binary: str) -> None:
    run_modes(binary, probe, "google-adk `McpToolset`", version("google-adk"),
        "the whole result, dumped to a dict (`google/adk/tools/mcp_tool/mcp_tool.py`, `McpTool._run_async_impl` → "
        "`_dump_mcp_model`): content, `structuredContent`, `isError` and `_meta` all reach the model")
    finish()


main(sys.argv[1])
