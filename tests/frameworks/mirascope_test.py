"""mirascope: the `AsyncTool`s its `MCPClient` lists (`mirascope/llm/mcp/mcp_client.py`),
executed as a call's tool loop executes them (`AsyncToolkit.execute` with the model's
`ToolCall`), the `ToolOutput` encoded as the OpenAI completions provider encodes it for
the tool message (`mirascope/llm/providers/base/_utils.py`, `encode_tool_output_content`).
The tool returns the content blocks, each `model_dump()`ed (so `_meta` is `meta`, and
`structuredContent` and `isError` are dropped), which the encoder sends as JSON.

Usage: python mirascope_test.py path/to/toolgate
"""

import json
import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version

# What the JSON of the content list puts before the first block's text.
OPENING = '[{"type": "text", "text": "'


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from mirascope.llm.content.tool_call import ToolCall
    from mirascope.llm.mcp import streamable_http_client
    from mirascope.llm.providers.base._utils import encode_tool_output_content
    from mirascope.llm.tools.toolkit import AsyncToolkit

    body = healthy_body_chars(url)
    async with streamable_http_client(url) as client:
        tools = await client.list_tools()
        toolkit = AsyncToolkit(tools)
        schemas = {t.name: t.parameters.model_dump() for t in tools}
        check(f"{mode}: tools: web_search with its input schema", "query" in schemas.get("web_search", {}).get("properties", {}),
              f"{list(schemas)}")

        async def invoke(name: str, args: dict) -> tuple[str, bool]:
            output = await toolkit.execute(ToolCall(id=f"call-{name}", name=name, args=json.dumps(args)))
            return encode_tool_output_content(output.result), output.error is not None

        healthy, failed = await invoke("web_search", {"query": "rust"})
        check(f"{mode}: healthy: results reach the model", "results" in healthy and not failed, healthy)
        report_size(mode, body, healthy)
        note, _ = await invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note, misses=("structured",))
        await invoke("demo_control", {"search_field": "excerpt"})
        drift, failed = await invoke("web_search", {"query": "rust"})
        # `isError` is not kept: the output is an ordinary one whose first text is the failure.
        got_drift = check(f"{mode}: drift: the first block's text opens with the failure", drift.startswith(OPENING + DRIFT), drift)
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "mirascope `MCPClient`", f"{version('mirascope')} (mcp {version('mcp')})",
        "the content blocks as JSON, each `model_dump()`ed: `type`, `text`, `annotations` and `meta` (the block's, "
        "empty here) (`mirascope/llm/mcp/mcp_client.py`, `MCPClient._convert_mcp_tool_to_async_tool`, then "
        "`encode_tool_output_content`); `structuredContent` and `isError` are dropped, so the drift reads as a failure "
        "by its opening words, after `[{\"type\": \"text\", \"text\": \"`")
    finish()


main(sys.argv[1])
