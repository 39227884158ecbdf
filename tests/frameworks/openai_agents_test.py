"""openai-agents: `MCPServerStreamableHttp` as an Agent uses it. The tool output is what
`MCPUtil.invoke_mcp_tool` returns — exactly what the Runner hands the model — measured
with the default and with `use_structured_content=True`.

Usage: python openai_agents_test.py path/to/toolgate
"""

import json
import sys

from common import DRIFT, TEXT_ONLY, check, finish, healthy_body_chars, note_check, report_size, run_modes, text_of, version


async def probe(url: str, mode: str, structured: bool) -> tuple[bool, bool]:
    from agents.mcp import MCPServerStreamableHttp, MCPUtil
    from agents.run_context import RunContextWrapper

    body = healthy_body_chars(url)
    label = f"{mode}, {'use_structured_content=True' if structured else 'default'}"
    server = MCPServerStreamableHttp(params={"url": url}, use_structured_content=structured, cache_tools_list=True)
    await server.connect()
    try:
        tools = {t.name: t for t in await server.list_tools()}
        ws = tools.get("web_search")
        check(f"{label}: tools: web_search with input and {'no ' if mode == TEXT_ONLY else ''}output schema",
              ws is not None and "query" in (ws.input_schema or {}).get("properties", {}) and bool(ws.output_schema) != (mode == TEXT_ONLY),
              f"{list(tools)}")
        ctx = RunContextWrapper(context=None)

        async def invoke(name: str, args: dict) -> str:
            return text_of(await MCPUtil.invoke_mcp_tool(server, tools[name], ctx, json.dumps(args)))

        healthy = await invoke("web_search", {"query": "rust"})
        check(f"{label}: healthy: results reach the model", "results" in healthy, healthy)
        report_size(mode, body, healthy, label)
        note = await invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{label}: note: the deprecation reaches the model",
                              "legacy_search is deprecated" in note, note)
        await invoke("demo_control", {"search_field": "excerpt"})
        drift = await invoke("web_search", {"query": "rust"})
        got_drift = check(f"{label}: drift: the text the model gets opens with the failure", DRIFT in drift[:200], drift)
        await invoke("demo_control", {"search_field": "snippet"})
        return got_note, got_drift
    finally:
        await server.cleanup()


def main(binary: str) -> None:
    v = version("openai-agents")
    run_modes(binary, probe, "openai-agents", f"{v}, default",
              "the text blocks; `isError` itself is not passed on (`MCPUtil.invoke_mcp_tool` returns the content as "
              "an ordinary tool output), so the drift reads as a failure by its opening words", False)
    run_modes(binary, probe, "openai-agents", f"{v}, `use_structured_content=True`",
              "`structuredContent` only, on success; on `isError` the text blocks (`agents/mcp/util.py`, "
              "`MCPUtil.invoke_mcp_tool`)", True)
    finish()


main(sys.argv[1])
