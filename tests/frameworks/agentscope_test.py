"""agentscope: the `MCPTool`s a stateful `MCPClient` lists (`agentscope/tool/_adapters.py`),
called as the agent calls a tool (`MCPTool.call` returns the last `ToolChunk`, whose blocks
become the `ToolResultBlock`'s output); the OpenAI chat formatter turns that output into
the tool message's text (`convert_tool_result_to_string`).

Usage: python agentscope_test.py path/to/toolgate
"""

import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from agentscope.formatter import OpenAIChatFormatter
    from agentscope.mcp import HttpMCPConfig, MCPClient
    from agentscope.message import ToolResultState

    body = healthy_body_chars(url)
    client = MCPClient(name="demo", is_stateful=True, mcp_config=HttpMCPConfig(url=url))
    await client.connect()
    try:
        tools = {t.name.removeprefix("mcp__demo__"): t for t in await client.list_tools()}
        ws = tools.get("web_search")
        check(f"{mode}: tools: web_search with its input schema", ws is not None and "query" in ws.input_schema["properties"], f"{list(tools)}")
        formatter = OpenAIChatFormatter()

        async def invoke(name: str, args: dict) -> tuple[str, bool]:
            chunk = await tools[name].call(**args)
            text, _ = formatter.convert_tool_result_to_string(chunk.content)
            return text, chunk.state == ToolResultState.ERROR

        healthy, failed = await invoke("web_search", {"query": "rust"})
        check(f"{mode}: healthy: results reach the model", "results" in healthy and not failed, healthy)
        report_size(mode, body, healthy)
        note, _ = await invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note, misses=("structured",))
        await invoke("demo_control", {"search_field": "excerpt"})
        drift, failed = await invoke("web_search", {"query": "rust"})
        # The error state stays in the agent's block; the formatters send the text alone.
        got_drift = check(f"{mode}: drift: the text opens with the failure", failed and drift.startswith(DRIFT), f"{failed} {drift}")
        return got_note, got_drift
    finally:
        await client.close()


def main(binary: str) -> None:
    run_modes(binary, probe, "agentscope `MCPClient`", f"{version('agentscope')} (mcp {version('mcp')})",
        "the text blocks, one per line (`agentscope/tool/_adapters.py`, `MCPTool._stream_call` → "
        "`_convert_mcp_content_to_blocks`; `structuredContent` only when there is no text block; then the formatter's "
        "`convert_tool_result_to_string`); `isError` becomes the block's `state: error`, which the chat formatters do not "
        "send, so the drift reads as a failure by its opening words")
    finish()


main(sys.argv[1])
