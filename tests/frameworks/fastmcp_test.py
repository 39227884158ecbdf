"""fastmcp `Client`: `call_tool` returns `.data` (from structuredContent, typed by the
outputSchema) and `.content`; an `isError` result raises `ToolError` with the text. An
application hands the model one or the other, so the note must be in both; what is
judged as the model's reading is `.content`'s text (or the `ToolError`'s).

Usage: python fastmcp_test.py path/to/toolgate
"""

import sys

from common import (BUSY, DEFAULT, TEXT_ONLY, check, finish, healthy_body_chars, judge, note_check, probed_async, run_modes,
                    signals_row, text_of, throttled, version)


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    from fastmcp import Client
    from fastmcp.exceptions import ToolError

    label = f"{mode}, fastmcp"
    body = healthy_body_chars(url)
    structured: dict = {}

    async def call(client: Client, name: str, args: dict) -> dict:
        try:
            result = await client.call_tool(name, args)
        except ToolError as e:
            return {"text": str(e), "error": True}
        structured[name] = result.structured_content
        return {"text": " ".join(getattr(b, "text", "") for b in result.content), "error": False}

    async with Client(url) as client:
        tools = {t.name: t for t in await client.list_tools()}
        # Without `structuredContent` a tool lists no output schema and `.data` is empty.
        text_only = mode == TEXT_ONLY
        ws = tools["web_search"]
        check(f"{label}: tools: web_search with {'no ' if text_only else 'an '}output schema", bool(ws.output_schema) != text_only,
              str(ws.output_schema)[:300])
        out = {"tools": {n: {"description": t.description or "", "schema": t.inputSchema} for n, t in tools.items()}, "busy_url": busy,
               **await probed_async(lambda name, args: call(client, name, args))}
    if mode == DEFAULT:
        async with Client(busy) as client:
            out["throttle"] = await call(client, *BUSY)
    if text_only:
        check(f"{label}: healthy: no .data without structuredContent", structured.get("web_search") is None, str(structured)[:200])
    in_data = text_only or note_check(mode, f"{label}: note: in .structured_content (and so .data)",
                                      "legacy_search is deprecated" in text_of(structured.get("legacy_search")), str(structured)[:300],
                                      misses=("text",))
    got_note, got_drift = judge(mode, label, out, body, url, misses=("structured",), marked=True)
    return got_note and in_data, got_drift


def main(binary: str) -> None:
    v = version("fastmcp")
    label = "fastmcp `Client`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, v,
            "`.data` from `structuredContent`, `.content` the text blocks (\"yes\" = in both, or in `.content` where there "
            "is no `structuredContent`); drift raises `ToolError`", busy)
    signals_row(label, v, "names, descriptions, input schemas as they are", "`ToolError` raised")
    finish()


main(sys.argv[1])
