"""haystack (mcp-haystack): the tools an `MCPToolset` builds, invoked as the Agent's tool
step invokes them (`Tool.invoke`; with the Agent's default
`raise_on_tool_invocation_failure=False`, a `ToolInvocationError` becomes a tool message
with `error=True` and the error's text). The string a tool returns is what the model reads.

Usage: python haystack_test.py path/to/toolgate
"""

import sys

from common import DRIFT, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


def probe(url: str, mode: str) -> tuple[bool, bool]:
    from haystack.tools.errors import ToolInvocationError
    from haystack_integrations.tools.mcp import MCPToolset, StreamableHttpServerInfo

    body = healthy_body_chars(url)
    toolset = MCPToolset(server_info=StreamableHttpServerInfo(url=url), eager_connect=True)
    try:
        tools = {t.name: t for t in toolset}
        ws = tools.get("web_search")
        check(f"{mode}: tools: web_search with its parameters", ws is not None and "query" in ws.parameters.get("properties", {}), f"{list(tools)}")

        def invoke(name: str, args: dict) -> tuple[str, bool]:
            try:
                return str(tools[name].invoke(**args)), False
            except ToolInvocationError as e:
                return str(e), True

        healthy, err = invoke("web_search", {"query": "rust"})
        check(f"{mode}: healthy: results reach the model", "results" in healthy and not err, healthy)
        note, _ = invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", "legacy_search is deprecated" in note, note)
        report_size(mode, body, healthy)
        invoke("demo_control", {"search_field": "excerpt"})
        drift, err = invoke("web_search", {"query": "rust"})
        got_drift = check(f"{mode}: drift: an error message with the failure text", err and DRIFT in drift, f"{err} {drift}")
    finally:
        toolset.close()
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "haystack `MCPToolset`", f"mcp-haystack {version('mcp-haystack')} (haystack-ai {version('haystack-ai')})",
        "the whole result as JSON (`haystack_integrations/tools/mcp/mcp_tool.py`, `MCPClient.call_tool` → "
        "`model_dump_json`), `_meta` included; on `isError` it raises `MCPInvocationError` (\"Tool 'web_search' returned "
        "an error: [TextContent(…)]\", a repr), which the Agent hands the model as an error message")
    finish()


main(sys.argv[1])
