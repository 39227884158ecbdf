"""google-genai (the Gemini SDK): an MCP `ClientSession` given as a tool, its functions
called the way automatic function calling calls them (`McpToGenAiToolAdapter`, through
`get_function_response_parts_async` on a model turn that asks for the call), and the
`FunctionResponse` part it sends back to the model read as JSON.

Usage: python google_genai_test.py path/to/toolgate
"""

import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from google.genai import types
    from google.genai._adapters import McpToGenAiToolAdapter
    from google.genai._extra_utils import get_function_response_parts_async
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    body = healthy_body_chars(url)
    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            adapter = McpToGenAiToolAdapter(session, listed)
            declarations = {d.name: d for tool in adapter.tools for d in tool.function_declarations or []}
            ws = declarations.get("web_search")
            # The SDK declares the input schema as JSON Schema or as its own `Schema` type.
            params = str(ws.parameters_json_schema or ws.parameters) if ws else ""
            check(f"{mode}: tools: web_search with its parameters", "query" in params, f"{list(declarations)}")

            async def invoke(name: str, args: dict) -> tuple[str, bool]:
                turn = types.GenerateContentResponse(candidates=[types.Candidate(content=types.Content(
                    role="model", parts=[types.Part(function_call=types.FunctionCall(name=name, args=args))]))])
                parts = await get_function_response_parts_async(turn, {t.name: adapter for t in listed.tools})
                response = parts[0].function_response
                return response.model_dump_json(exclude_none=True), "error" in (response.response or {})

            healthy, err = await invoke("web_search", {"query": "rust"})
            check(f"{mode}: healthy: results reach the model", "Result 1 for rust" in healthy and not err, healthy)
            report_size(mode, body, healthy)
            note, _ = await invoke("legacy_search", {"query": "rust"})
            got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model",
                                  NOTE in note or "legacy_search is deprecated" in note, note)
            await invoke("demo_control", {"search_field": "excerpt"})
            drift, err = await invoke("web_search", {"query": "rust"})
            got_drift = check(f"{mode}: drift: an `error` response with the failure text", err and DRIFT in drift, drift)
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "google-genai (MCP session as a tool)", f"{version('google-genai')} (mcp {version('mcp')})",
        "the whole `CallToolResult` as the function response's `result` (`google/genai/_extra_utils.py`, "
        "`get_function_response_parts_async`, through `McpToGenAiToolAdapter.call_tool`): `_meta`, the text blocks, "
        "`structuredContent` and `isError`, so the body twice; on `isError` the same object under `error`, which opens "
        "with `_meta`'s `dev.toolgate/error` (the failure)")
    finish()


main(sys.argv[1])
