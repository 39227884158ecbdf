"""litellm: its MCP client helpers (`litellm.mcp_client`, formerly `experimental_mcp_client`)
as its documentation wires them into a chat loop: `load_mcp_tools(session, format="openai")`
gives the tools the model is shown, `call_openai_tool(session, tool_call)` makes the call the
model asked for, and the tool message is the result as litellm's own Responses-API MCP loop
writes it (`LiteLLM_Proxy_MCP_Handler._parse_mcp_result`: the text blocks joined by a space).
Nothing marks a failed call: `isError` is not read.

Usage: python litellm_test.py path/to/toolgate
"""

import json
import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


async def session_run(url: str, operation):
    from litellm.mcp_client.client import MCPClient

    return await MCPClient(server_url=url).run_with_session(operation)


def caller(session):
    from litellm.mcp_client import call_openai_tool
    from litellm.responses.mcp.litellm_proxy_mcp_handler import LiteLLM_Proxy_MCP_Handler

    calls = iter(range(1_000))

    async def invoke(name: str, args: dict) -> dict:
        tool_call = {"id": f"call_{next(calls)}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        result = await call_openai_tool(session=session, openai_tool=tool_call)
        return {"text": LiteLLM_Proxy_MCP_Handler._parse_mcp_result(result), "error": False}

    return invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    from litellm.mcp_client import load_mcp_tools

    label = f"{mode}, litellm"
    body = healthy_body_chars(url)

    async def run(session):
        tools = await load_mcp_tools(session=session, format="openai")
        listing = {t["function"]["name"]: {"description": t["function"].get("description") or "",
                                            "schema": t["function"].get("parameters", {})} for t in tools}
        return {"tools": listing, **await probed_async(caller(session))}

    out = {"busy_url": busy, **await session_run(url, run)}
    if mode == DEFAULT:
        out["throttle"] = await session_run(busy, lambda session: caller(session)(*BUSY))
    print(f"  --   {label}: the drift opens {out['drift']['text'][:80]!r}")
    return judge(mode, label, out, body, url, misses=("structured",), marked=False)


def main(binary: str) -> None:
    v = version("litellm")
    label = "LiteLLM `mcp_client` (`load_mcp_tools`, `call_openai_tool`)"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, v,
            "the text blocks joined by a space (`litellm/responses/mcp/litellm_proxy_mcp_handler.py`, `_parse_mcp_result`; "
            "`call_openai_tool` itself returns the raw `CallToolResult`): `structuredContent`, `_meta` and `isError` are "
            "dropped, so the drift reads as a failure by its opening words", busy)
    signals_row(label, v, "names, descriptions, input schemas with `additionalProperties: false` added",
                "not passed on: the failure reads by its words")
    finish()


main(sys.argv[1])
