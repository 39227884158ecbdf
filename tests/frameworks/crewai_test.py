"""crewai-tools: the tools `MCPServerAdapter` builds (its own `CrewAIToolAdapter`, over mcpadapt), run as a
crew's tool usage runs them (`BaseTool.run`, which validates the arguments against the
tool's `args_schema` first). The string returned is what the model reads.

Usage: python crewai_test.py path/to/toolgate
"""

import sys

from common import DRIFT, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


def probe(url: str, mode: str) -> tuple[bool, bool]:
    import mcp
    from crewai_tools import MCPServerAdapter

    body = healthy_body_chars(url)
    sent: list[dict] = []
    original = mcp.ClientSession.call_tool

    async def spy(self, name, arguments=None, *a, **kw):
        sent.append(dict(arguments or {}))
        return await original(self, name, arguments, *a, **kw)

    mcp.ClientSession.call_tool = spy
    try:
        with MCPServerAdapter({"url": url, "transport": "streamable-http"}) as tools:
            tools = {t.name: t for t in tools}
            ws = tools.get("web_search")
            check(f"{mode}: tools: web_search with its input schema", ws is not None and "query" in ws.args_schema.model_json_schema().get("properties", {}), f"{list(tools)}")

            def invoke(name: str, args: dict) -> str:
                return str(tools[name].run(**args))

            # The model leaves the optional `limit` out: whatever the adapter sends, the call succeeds.
            healthy = invoke("web_search", {"query": "rust"})
            print(f"  --   {mode}: web_search without limit sent {sent[-1]}")
            check(f"{mode}: optional argument left out: the call succeeds", "results" in healthy and "not called" not in healthy, healthy)
            report_size(mode, body, healthy)
            note = invoke("legacy_search", {"query": "rust"})
            # Two blocks reach the model as the repr of a Python list of their texts.
            got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", "legacy_search is deprecated" in note, note)
            invoke("demo_control", {"search_field": "excerpt"})
            drift = invoke("web_search", {"query": "rust"})
            got_drift = check(f"{mode}: drift: the output opens with the failure", drift.startswith(DRIFT), drift)
    finally:
        mcp.ClientSession.call_tool = original
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "crewai-tools `MCPServerAdapter`", f"{version('crewai-tools')} (mcpadapt {version('mcpadapt')}, mcp {version('mcp')})",
        "one text block as it is, several as `str()` of the list of their texts, a Python repr "
        "(`crewai_tools/adapters/mcp_adapter.py`, `CrewAIToolAdapter.adapt` → `CrewAIMCPTool._run`); `isError` is not "
        "passed on, so the drift reads as a failure by its opening words; `BaseTool.run` validates the arguments against "
        "the `args_schema` it built, which fills every optional argument left out with `null`")
    finish()


main(sys.argv[1])
