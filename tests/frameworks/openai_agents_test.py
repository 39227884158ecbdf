"""openai-agents: `MCPServerStreamableHttp` as an Agent uses it. The tool output is what
`MCPUtil.invoke_mcp_tool` returns — exactly what the Runner hands the model — measured
with the default and with `use_structured_content=True`; the listing is the function
tools `MCPUtil.to_function_tool` builds from the server's tools.

Usage: python openai_agents_test.py path/to/toolgate
"""

import json
import sys

from common import (BUSY, DEFAULT, TEXT_ONLY, check, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row,
                    text_of, throttled, version)

OPENING = '{"type": "text", "text": "'


async def connect(url: str, structured: bool):
    from agents.mcp import MCPServerStreamableHttp, MCPUtil
    from agents.run_context import RunContextWrapper

    server = MCPServerStreamableHttp(params={"url": url}, use_structured_content=structured, cache_tools_list=True)
    await server.connect()
    tools = {t.name: t for t in await server.list_tools()}
    ctx = RunContextWrapper(context=None)

    async def invoke(name: str, args: dict) -> dict:
        return {"text": text_of(await MCPUtil.invoke_mcp_tool(server, tools[name], ctx, json.dumps(args))), "error": False}

    # What the model is shown: the function tool the Agent builds (its strict schema).
    listing = {}
    for name, t in tools.items():
        f = MCPUtil.to_function_tool(t, server, convert_schemas_to_strict=False)
        listing[name] = {"description": f.description or "", "schema": f.params_json_schema, "output": bool(t.output_schema)}
    return server, listing, invoke


async def probe(url: str, mode: str, structured: bool, busy: str) -> tuple[bool, bool]:
    body = healthy_body_chars(url)
    label = f"{mode}, {'use_structured_content=True' if structured else 'default'}"
    server, listing, invoke = await connect(url, structured)
    try:
        check(f"{label}: tools: web_search {'without' if mode == TEXT_ONLY else 'with'} an output schema",
              listing["web_search"]["output"] != (mode == TEXT_ONLY), str(listing["web_search"])[:300])
        out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
        await invoke("demo_control", {"search_field": "snippet"})
    finally:
        await server.cleanup()
    if mode == DEFAULT:
        server, _, invoke = await connect(busy, structured)
        try:
            out["throttle"] = await invoke(*BUSY)
        finally:
            await server.cleanup()
    # A failure's one text block reaches the model as the block's JSON, the text escaped in it.
    for key in ("drift", "refused", "throttle"):
        if key in out:
            out[key]["text"] = out[key]["text"].replace('\\"', '"')
    return judge(mode, label, out, body, url, opening=OPENING, misses=("text",) if structured else ("structured",), marked=False)


def main(binary: str) -> None:
    v = version("openai-agents")
    label = "openai-agents"
    # Each variant its own throttled toolgate: a second call of the first would be refused
    # without reaching the upstream (the wait it was told is not over).
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v}, default",
                  "the text blocks; `isError` itself is not passed on (`MCPUtil.invoke_mcp_tool` returns the content as "
                  "an ordinary tool output), so the drift reads as a failure by its opening words", False, busy)
        signals_row(label, f"{v}, default", "names, descriptions, input schemas as they are", "not passed on: the failure reads by its words")
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v}, `use_structured_content=True`",
                  "`structuredContent` only, on success; on `isError` the text blocks (`agents/mcp/util.py`, "
                  "`MCPUtil.invoke_mcp_tool`)", True, busy)
        signals_row(label, f"{v}, `use_structured_content=True`", "names, descriptions, input schemas as they are",
                    "not passed on: the failure reads by its words")
    finish()


main(sys.argv[1])
