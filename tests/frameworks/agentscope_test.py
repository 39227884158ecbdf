"""agentscope: the `MCPTool`s a stateful `MCPClient` lists (`agentscope/tool/_adapters.py`),
called as the agent calls a tool (`MCPTool.call` returns the last `ToolChunk`, whose blocks
become the `ToolResultBlock`'s output); the OpenAI chat formatter turns that output into
the tool message's text (`convert_tool_result_to_string`). The listing is each tool's
name, description and input schema.

Usage: python agentscope_test.py path/to/toolgate
"""

import sys
from contextlib import asynccontextmanager

from common import BUSY, DEFAULT, check, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


@asynccontextmanager
async def connected(url: str):
    from agentscope.formatter import OpenAIChatFormatter
    from agentscope.mcp import HttpMCPConfig, MCPClient
    from agentscope.message import ToolResultState

    client = MCPClient(name="demo", is_stateful=True, mcp_config=HttpMCPConfig(url=url))
    await client.connect()
    try:
        tools = {t.name.removeprefix("mcp__demo__"): t for t in await client.list_tools()}
        formatter = OpenAIChatFormatter()

        async def invoke(name: str, args: dict) -> dict:
            chunk = await tools[name].call(**args)
            text, _ = formatter.convert_tool_result_to_string(chunk.content)
            # The error state stays in the agent's block; the formatters send the text alone.
            return {"text": text, "error": False, "state_error": chunk.state == ToolResultState.ERROR}

        yield {n: {"description": t.description or "", "schema": t.input_schema} for n, t in tools.items()}, invoke
    finally:
        await client.close()


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, agentscope"
    body = healthy_body_chars(url)
    async with connected(url) as (listing, invoke):
        out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    if mode == DEFAULT:
        async with connected(busy) as (_, invoke):
            out["throttle"] = await invoke(*BUSY)
    check(f"{label}: drift: the block's state is error (the formatters do not send it)", out["drift"]["state_error"], str(out["drift"])[:300])
    return judge(mode, label, out, body, url, misses=("structured",), marked=False)


def main(binary: str) -> None:
    v = version("agentscope")
    label = "agentscope `MCPClient`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
            "the text blocks, one per line (`agentscope/tool/_adapters.py`, `MCPTool._stream_call` → "
            "`_convert_mcp_content_to_blocks`; `structuredContent` only when there is no text block; then the formatter's "
            "`convert_tool_result_to_string`); `isError` becomes the block's `state: error`, which the chat formatters do not "
            "send, so the drift reads as a failure by its opening words", busy)
    signals_row(label, v, "names, descriptions, input schemas as they are", "not passed on: the block's `state: error` is not sent")
    finish()


main(sys.argv[1])
