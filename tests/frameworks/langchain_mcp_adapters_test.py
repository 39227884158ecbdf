"""langchain-mcp-adapters: the tools `MultiServerMCPClient.get_tools()` builds, invoked
the way an agent's tool node invokes them (a ToolCall in, a ToolMessage out). The
ToolMessage's content and status are what the model is handed; the artifact
(structuredContent) is not sent to the model. The listing is each tool's name,
description and `args_schema`.

Usage: python langchain_mcp_adapters_test.py path/to/toolgate
"""

import sys

from common import DEFAULT, BUSY, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, text_of, throttled, version


async def connect(url: str) -> tuple[dict, object]:
    from langchain_mcp_adapters.client import MultiServerMCPClient

    tools = {t.name: t for t in await MultiServerMCPClient({"demo": {"url": url, "transport": "streamable_http"}}).get_tools()}

    async def invoke(name: str, args: dict) -> dict:
        msg = await tools[name].ainvoke({"type": "tool_call", "id": "1", "name": name, "args": args})
        content = msg.content
        if isinstance(content, list):
            content = "\n".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
        return {"text": text_of(content), "error": msg.status == "error"}

    listing = {name: {"description": t.description or "",
                      "schema": t.args_schema if isinstance(t.args_schema, dict) else t.args_schema.model_json_schema()}
               for name, t in tools.items()}
    return listing, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, langchain-mcp-adapters"
    body = healthy_body_chars(url)
    listing, invoke = await connect(url)
    out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    if mode == DEFAULT:
        _, invoke_busy = await connect(busy)
        out["throttle"] = await invoke_busy(*BUSY)
    return judge(mode, label, out, body, url, misses=("structured",), marked=True)


def main(binary: str) -> None:
    v = version("langchain-mcp-adapters")
    label = "langchain-mcp-adapters"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, v,
            "`ToolMessage.content` is the text blocks (`structuredContent` goes to the artifact, which the model does "
            "not see); drift: `status='error'`, the text opens \"web_search failed:\"", busy)
    signals_row(label, v, "names, descriptions, input schemas as they are", "`status='error'`")
    finish()


main(sys.argv[1])
