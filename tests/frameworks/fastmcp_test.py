"""fastmcp `Client`: `call_tool` returns `.data` (from structuredContent, typed by the
outputSchema) and `.content`; an `isError` result raises `ToolError` with the text. An
application hands the model one or the other, so the note must be in both.

Usage: python fastmcp_test.py path/to/toolgate
"""

import sys

from common import DRIFT, NOTE, TEXT_ONLY, check, finish, note_check, run_modes, text_of, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from fastmcp import Client
    from fastmcp.exceptions import ToolError

    async with Client(url) as client:
        tools = {t.name: t for t in await client.list_tools()}
        ws = tools.get("web_search")
        # Without `structuredContent` a tool lists no output schema and `.data` is empty.
        text_only = mode == TEXT_ONLY
        check(f"{mode}: tools: web_search with input and {'no ' if text_only else ''}output schema",
              ws is not None and "query" in (ws.input_schema or {}).get("properties", {}) and bool(ws.output_schema) != text_only,
              f"{list(tools)}")
        healthy = await client.call_tool("web_search", {"query": "rust"})
        if text_only:
            texts = " ".join(getattr(b, "text", "") for b in healthy.content)
            check(f"{mode}: healthy: .content carries the results", "results" in texts and healthy.structured_content is None, texts)
        else:
            check(f"{mode}: healthy: .data carries the results", "results" in text_of(healthy.structured_content), text_of(healthy.structured_content))
        legacy = await client.call_tool("legacy_search", {"query": "rust"})
        content = " ".join(getattr(b, "text", "") for b in legacy.content)
        structured = text_of(legacy.structured_content)
        in_content = note_check(mode, f"{mode}: note: in .content", NOTE in content, content)
        in_data = text_only or note_check(mode, f"{mode}: note: in .structured_content (and so .data)", "legacy_search is deprecated" in structured, structured)
        await client.call_tool("demo_control", {"search_field": "excerpt"})
        try:
            await client.call_tool("web_search", {"query": "rust"})
            got_drift = check(f"{mode}: drift: ToolError", False, "no ToolError raised")
        except ToolError as e:
            got_drift = check(f"{mode}: drift: ToolError with the failure text", str(e).startswith(DRIFT), str(e))
    return in_content and in_data, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "fastmcp `Client`", version("fastmcp"),
        "`.data` from `structuredContent`, `.content` the text blocks (\"yes\" = in both, or in `.content` where there "
        "is no `structuredContent`); drift raises `ToolError`")
    finish()


main(sys.argv[1])
