"""livekit-agents: the tools `MCPServerHTTP.list_tools` builds, run as the voice agent runs a
tool call (`llm.execute_function_call` with the call's JSON arguments). The model is handed
the `FunctionCallOutput`: its `output` string and `is_error`. A healthy result with one
content block is that block dumped to JSON (`_default_tool_result_resolver`); an `isError`
result raises `ToolError` with the text blocks joined, which becomes an output with
`is_error=True`. The listing is each tool's raw schema (name, description, parameters).

Usage: python livekit_agents_test.py path/to/toolgate
"""

import json
import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


async def connect(url: str):
    from livekit.agents import llm
    from livekit.agents.llm.mcp import MCPServerHTTP

    server = MCPServerHTTP(url=url)
    await server.initialize()
    tools = await server.list_tools()
    ctx = llm.ToolContext(tools)
    calls = iter(range(1_000))

    async def invoke(name: str, args: dict) -> dict:
        call = llm.FunctionToolCall(name=name, arguments=json.dumps(args), call_id=f"call_{next(calls)}")
        out = (await llm.execute_function_call(call, ctx)).fnc_call_out
        return {"text": out.output, "error": out.is_error}

    listing = {t.info.raw_schema["name"]: {"description": t.info.raw_schema.get("description") or "",
                                           "schema": t.info.raw_schema.get("parameters", {})} for t in tools}
    return server, listing, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, livekit-agents"
    body = healthy_body_chars(url)
    server, listing, invoke = await connect(url)
    try:
        out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    finally:
        await server.aclose()
    if mode == DEFAULT:
        server, _, invoke = await connect(busy)
        try:
            out["throttle"] = await invoke(*BUSY)
        finally:
            await server.aclose()
    print(f"  --   {label}: the healthy call opens {out['healthy']['text'][:80]!r}")
    return judge(mode, label, out, body, url, misses=("structured",), marked=True)


def main(binary: str) -> None:
    v = version("livekit-agents")
    label = "LiveKit Agents `MCPServerHTTP`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, v,
            "one content block dumped as JSON, `{\"type\": \"text\", \"text\": …}`, several as a JSON list "
            "(`livekit/agents/llm/mcp.py`, `_default_tool_result_resolver`): `structuredContent` and `_meta` are dropped; "
            "`isError` raises `ToolError` with the text blocks joined, handed to the model as a `FunctionCallOutput` "
            "with `is_error=True`", busy)
    signals_row(label, v, "names, descriptions, input schemas as they are", "`is_error=True`")
    finish()


main(sys.argv[1])
