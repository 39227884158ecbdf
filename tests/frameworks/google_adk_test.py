"""google-adk: the tools `McpToolset` builds, run as the agent's flow runs them. The
function response the model is handed is the dict `McpTool._run_async_impl` returns: the
whole `CallToolResult`, dumped (content, structuredContent, isError and _meta). The
listing is each tool's function declaration.

Usage: python google_adk_test.py path/to/toolgate
"""

import json
import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


async def connect(url: str):
    from google.adk.tools.mcp_tool import McpToolset, StreamableHTTPConnectionParams

    toolset = McpToolset(connection_params=StreamableHTTPConnectionParams(url=url))
    tools = {t.name: t for t in await toolset.get_tools()}

    async def invoke(name: str, args: dict) -> dict:
        result = await tools[name]._run_async_impl(args=args, tool_context=None, credential=None)
        return {"text": json.dumps(result, ensure_ascii=False), "error": bool(result.get("isError"))}

    listing = {}
    for name, t in tools.items():
        decl = t._get_declaration().model_dump(mode="json", exclude_none=True)
        listing[name] = {"description": decl.get("description", ""),
                         "schema": decl.get("parameters_json_schema") or decl.get("parameters") or {}}
    return toolset, listing, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, google-adk"
    body = healthy_body_chars(url)
    toolset, listing, invoke = await connect(url)
    try:
        out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    finally:
        await toolset.close()
    if mode == DEFAULT:
        toolset, _, invoke = await connect(busy)
        try:
            out["throttle"] = await invoke(*BUSY)
        finally:
            await toolset.close()
    print(f"  --   {label}: the drift opens {out['drift']['text'][:60]!r}")
    return judge(mode, label, out, body, url, near_start=60, marked=True)


def main(binary: str) -> None:
    v = version("google-adk")
    label = "google-adk `McpToolset`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, v,
            "the whole result, dumped to a dict (`google/adk/tools/mcp_tool/mcp_tool.py`, `McpTool._run_async_impl` → "
            "`_dump_mcp_model`): content, `structuredContent`, `isError` and `_meta` all reach the model", busy)
    signals_row(label, v, "names, descriptions, input schemas as function declarations", "`isError: true` inside the response")
    finish()


main(sys.argv[1])
