"""haystack (mcp-haystack): the tools an `MCPToolset` builds, invoked as the Agent's tool
step invokes them (`Tool.invoke`; with the Agent's default
`raise_on_tool_invocation_failure=False`, a `ToolInvocationError` becomes a tool message
with `error=True` and the error's text). The string a tool returns is what the model reads;
the listing is each tool's description and parameters.

Usage: python haystack_test.py path/to/toolgate
"""

import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed, run_modes, signals_row, throttled, version


def connect(url: str):
    from haystack.tools.errors import ToolInvocationError
    from haystack_integrations.tools.mcp import MCPToolset, StreamableHttpServerInfo

    toolset = MCPToolset(server_info=StreamableHttpServerInfo(url=url), eager_connect=True)
    tools = {t.name: t for t in toolset}

    def invoke(name: str, args: dict) -> dict:
        try:
            return {"text": str(tools[name].invoke(**args)), "error": False}
        except ToolInvocationError as e:
            return {"text": str(e), "error": True}

    return toolset, {n: {"description": t.description or "", "schema": t.parameters} for n, t in tools.items()}, invoke


def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, haystack"
    body = healthy_body_chars(url)
    toolset, listing, invoke = connect(url)
    try:
        out = {"tools": listing, "busy_url": busy, **probed(invoke)}
    finally:
        toolset.close()
    if mode == DEFAULT:
        toolset, _, invoke = connect(busy)
        try:
            out["throttle"] = invoke(*BUSY)
        finally:
            toolset.close()
    print(f"  --   {label}: the drift opens {out['drift']['text'][:120]!r}")
    # "Failed to invoke Tool `web_search` with parameters {…}. Error: Failed to invoke tool 'web_search'
    # with args: {…}, got error: Tool 'web_search' returned an error: [TextContent(type='text',
    # text='web_search failed: …": the failure's own text some 230 characters in.
    return judge(mode, label, out, body, url, near_start=300, marked=True)


def main(binary: str) -> None:
    label = "haystack `MCPToolset`"
    v = f"mcp-haystack {version('mcp-haystack')}"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (haystack-ai {version('haystack-ai')})",
            "the whole result as JSON (`haystack_integrations/tools/mcp/mcp_tool.py`, `MCPClient.call_tool` → "
            "`model_dump_json`), `_meta` included; on `isError` it raises `MCPInvocationError` (\"Tool 'web_search' returned "
            "an error: [TextContent(…)]\", a repr), which the Agent hands the model as an error message", busy)
    signals_row(label, v, "names, descriptions, input schemas as they are", "an error tool message (`error=True`)")
    finish()


main(sys.argv[1])
