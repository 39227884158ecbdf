"""google-genai (the Gemini SDK): an MCP `ClientSession` given as a tool, its functions
called the way automatic function calling calls them (`McpToGenAiToolAdapter`, through
`get_function_response_parts_async` on a model turn that asks for the call), and the
`FunctionResponse` part it sends back to the model read as JSON. The listing is the
adapter's function declarations.

Usage: python google_genai_test.py path/to/toolgate
"""

import sys
from contextlib import asynccontextmanager

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


@asynccontextmanager
async def connected(url: str):
    from google.genai import types
    from google.genai._adapters import McpToGenAiToolAdapter
    from google.genai._extra_utils import get_function_response_parts_async
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            adapter = McpToGenAiToolAdapter(session, listed)
            declarations = {d.name: d for tool in adapter.tools for d in tool.function_declarations or []}

            async def invoke(name: str, args: dict) -> dict:
                turn = types.GenerateContentResponse(candidates=[types.Candidate(content=types.Content(
                    role="model", parts=[types.Part(function_call=types.FunctionCall(name=name, args=args))]))])
                parts = await get_function_response_parts_async(turn, {t.name: adapter for t in listed.tools})
                response = parts[0].function_response
                return {"text": response.model_dump_json(exclude_none=True), "error": "error" in (response.response or {})}

            # The SDK declares the input schema as JSON Schema or as its own `Schema` type.
            listing = {n: {"description": d.description or "",
                           "schema": d.parameters_json_schema or (d.parameters.model_dump(exclude_none=True) if d.parameters else {})}
                       for n, d in declarations.items()}
            yield listing, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, google-genai"
    body = healthy_body_chars(url)
    async with connected(url) as (listing, invoke):
        out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    if mode == DEFAULT:
        async with connected(busy) as (_, invoke):
            out["throttle"] = await invoke(*BUSY)
    for key in ("drift", "refused", "throttle"):
        if key in out:
            out[key]["text"] = out[key]["text"].replace('\\"', '"')
    print(f"  --   {label}: the drift opens {out['drift']['text'][:100]!r}")
    return judge(mode, label, out, body, url, near_start=100, marked=True)


def main(binary: str) -> None:
    v = version("google-genai")
    label = "google-genai (MCP session as a tool)"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
                  "the whole `CallToolResult` as the function response's `result` (`google/genai/_extra_utils.py`, "
                  "`get_function_response_parts_async`, through `McpToGenAiToolAdapter.call_tool`): `_meta`, the text blocks, "
                  "`structuredContent` and `isError`, so the body twice; on `isError` the same object under `error`, which opens "
                  "with `_meta`'s `dev.toolgate/error` (the failure)", busy)
    signals_row(label, v, "names, descriptions, input schemas as function declarations", "the response's `error` member")
    finish()


main(sys.argv[1])
