"""mirascope: the `AsyncTool`s its `MCPClient` lists (`mirascope/llm/mcp/mcp_client.py`),
executed as a call's tool loop executes them (`AsyncToolkit.execute` with the model's
`ToolCall`), the `ToolOutput` encoded as the OpenAI completions provider encodes it for
the tool message (`mirascope/llm/providers/base/_utils.py`, `encode_tool_output_content`).
The tool returns the content blocks, each `model_dump()`ed (so `_meta` is `meta`, and
`structuredContent` and `isError` are dropped), which the encoder sends as JSON. The
listing is each tool's name, description and parameters.

Usage: python mirascope_test.py path/to/toolgate
"""

import json
import sys
from contextlib import asynccontextmanager

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version

# What the JSON of the content list puts before the first block's text.
OPENING = '[{"type": "text", "text": "'


@asynccontextmanager
async def connected(url: str):
    from mirascope.llm.content.tool_call import ToolCall
    from mirascope.llm.mcp import streamable_http_client
    from mirascope.llm.providers.base._utils import encode_tool_output_content
    from mirascope.llm.tools.toolkit import AsyncToolkit

    async with streamable_http_client(url) as client:
        tools = await client.list_tools()
        toolkit = AsyncToolkit(tools)

        async def invoke(name: str, args: dict) -> dict:
            output = await toolkit.execute(ToolCall(id=f"call-{name}", name=name, args=json.dumps(args)))
            return {"text": encode_tool_output_content(output.result), "error": output.error is not None}

        yield {t.name: {"description": t.description or "", "schema": t.parameters.model_dump()} for t in tools}, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, mirascope"
    body = healthy_body_chars(url)
    async with connected(url) as (listing, invoke):
        out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    if mode == DEFAULT:
        async with connected(busy) as (_, invoke):
            out["throttle"] = await invoke(*BUSY)
    # The failure text sits JSON-escaped inside the blocks' JSON.
    for key in ("drift", "refused", "throttle"):
        if key in out:
            out[key]["text"] = out[key]["text"].replace('\\"', '"')
    return judge(mode, label, out, body, url, opening=OPENING, misses=("structured",), marked=False)


def main(binary: str) -> None:
    v = version("mirascope")
    label = "mirascope `MCPClient`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
            "the content blocks as JSON, each `model_dump()`ed: `type`, `text`, `annotations` and `meta` (the block's, "
            "empty here) (`mirascope/llm/mcp/mcp_client.py`, `MCPClient._convert_mcp_tool_to_async_tool`, then "
            "`encode_tool_output_content`); `structuredContent` and `isError` are dropped, so the drift reads as a failure "
            "by its opening words, after `[{\"type\": \"text\", \"text\": \"`", busy)
    signals_row(label, v, "names, descriptions, input schemas as they are", "not passed on: the failure reads by its words")
    finish()


main(sys.argv[1])
