"""mcp-use: the LangChain tools `LangChainAdapter.create_tools` builds (what `MCPAgent`
uses), invoked as an agent's tool node invokes them (a ToolCall in, a ToolMessage out).
The ToolMessage's content is what the model is handed; the listing is each tool's
description and `args_schema`.

Usage: python mcp_use_test.py path/to/toolgate
"""

import logging
import sys

from common import BUSY, DEFAULT, check, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, text_of, throttled, version

# What the adapter puts before a failure's text: the error object's JSON, as a tool output.
OPENING = '{"error": "RuntimeError", "details": "'


async def connect(url: str):
    from mcp_use import MCPClient
    from mcp_use.agents.adapters.langchain_adapter import LangChainAdapter

    logging.getLogger("mcp_use").setLevel(logging.CRITICAL)
    client = MCPClient.from_dict({"mcpServers": {"demo": {"url": url}}})
    tools = {t.name: t for t in await LangChainAdapter().create_tools(client)}

    async def invoke(name: str, args: dict) -> dict:
        msg = await tools[name].ainvoke({"type": "tool_call", "id": "1", "name": name, "args": args})
        content = msg.content
        if isinstance(content, list):
            content = "\n".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
        text = text_of(content)
        return {"text": text, "error": msg.status == "error" or text.startswith(OPENING)}

    listing = {n: {"description": t.description or "", "schema": t.args_schema.model_json_schema()} for n, t in tools.items()}
    return client, tools, listing, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, mcp-use"
    body = healthy_body_chars(url)
    client, tools, listing, invoke = await connect(url)
    try:
        sent: list[dict] = []
        connector = tools["web_search"].tool_connector
        original = connector.call_tool

        async def spy(name, arguments, *a, **kw):
            sent.append(dict(arguments))
            return await original(name, arguments, *a, **kw)

        connector.call_tool = spy
        out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
        # The optional `limit` the model left out goes to the server as null, and the call succeeds.
        check(f"{label}: null: the left-out optional argument is sent as null", sent and sent[0].get("limit", "absent") is None, str(sent))
    finally:
        await client.close_all_sessions()
    if mode == DEFAULT:
        client, _, _, invoke = await connect(busy)
        try:
            out["throttle"] = await invoke(*BUSY)
        finally:
            await client.close_all_sessions()
    print(f"  --   {label}: the drift ends {out['drift']['text'][-160:]!r} ({len(out['drift']['text'])} characters)")
    # The failure's text sits JSON-escaped in the error object's `details`.
    for key in ("drift", "refused", "throttle"):
        if key in out:
            out[key]["text"] = out[key]["text"].replace('\\"', '"')
    return judge(mode, label, out, body, url, opening=OPENING, misses=("structured",), bounds_kept=False, marked=True)


def main(binary: str) -> None:
    v = version("mcp-use")
    label = "mcp-use (`LangChainAdapter`)"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
            "one text block as a string, several as LangChain text blocks (`mcp_use/agents/adapters/langchain_adapter.py`, "
            "`_arun` → `_mcp_content_to_langchain`); on `isError`, a dict `{'error': 'RuntimeError', 'details': …}` "
            "rendered as text, with a Python traceback in it; every optional argument left out is sent as `null`", busy)
    signals_row(label, v, "names, descriptions, input schemas rebuilt as pydantic models (`args_schema`)",
                "`{'error': 'RuntimeError', 'details': …}` with a traceback")
    finish()


main(sys.argv[1])
