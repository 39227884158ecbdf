"""inspect-ai: the tools `mcp_server_http` serves, run as an Inspect agent runs the tool calls
of an assistant message (`execute_tools`, which checks the arguments against each tool's
parameters first). The model is handed the `ChatMessageTool`: its text, or, when the call
failed (an `isError` result raises `ToolError` with the text blocks joined, `_mcp/_local.py`),
"Error: " and the error's message, as the OpenAI provider writes it (`_openai.py`). The
listing is each tool's `ToolInfo` (name, description, parameters).

Usage: python inspect_ai_test.py path/to/toolgate
"""

import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


def caller(tools: list):
    from inspect_ai.model import ChatMessageAssistant, execute_tools
    from inspect_ai.tool import ToolCall

    calls = iter(range(1_000))

    async def invoke(name: str, args: dict) -> dict:
        call = ToolCall(id=f"call_{next(calls)}", function=name, arguments=args)
        result = await execute_tools([ChatMessageAssistant(content="", tool_calls=[call])], tools)
        message = result.messages[0]
        if message.error:
            return {"text": f"Error: {message.error.message}", "error": True}
        return {"text": message.text, "error": False}

    return invoke


def listing(tools: list) -> dict:
    from inspect_ai.tool import ToolDef

    out = {}
    for tool in tools:
        d = ToolDef(tool)
        out[d.name] = {"description": d.description or "", "schema": d.parameters.model_dump(exclude_none=True)}
    return out


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    from inspect_ai.tool import mcp_server_http

    label = f"{mode}, inspect-ai"
    body = healthy_body_chars(url)
    async with mcp_server_http(url=url) as server:
        tools = await server.tools()
        out = {"tools": listing(tools), "busy_url": busy, **await probed_async(caller(tools))}
    if mode == DEFAULT:
        async with mcp_server_http(url=busy) as server:
            out["throttle"] = await caller(await server.tools())(*BUSY)
    print(f"  --   {label}: refused handed back as {out['refused']['text'][:120]!r}")
    return judge(mode, label, out, body, url, opening="Error: ", misses=("structured",), marked=True,
                 refused_by_framework=True, refusal_named=False)


def main(binary: str) -> None:
    v = version("inspect-ai")
    label = "Inspect AI `mcp_server_http`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, v,
            "the text blocks, joined (`inspect_ai/tool/_mcp/_local.py`, `tool_result_as_text`): `structuredContent` and "
            "`_meta` are dropped; `isError` raises `ToolError` with the same text, which `execute_tools` hands the "
            "model as a tool message with an error, written \"Error: …\"; the arguments are checked against the tool's parameters before the call, "
            "and a refusal names the value and the bound but not the argument", busy)
    signals_row(label, v, "names, descriptions, input schemas as tool parameters", "a tool message with an error")
    finish()


main(sys.argv[1])
