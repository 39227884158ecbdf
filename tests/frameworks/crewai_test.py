"""crewai-tools: the tools `MCPServerAdapter` builds (its own `CrewAIToolAdapter`, over mcpadapt), run as a
crew's tool usage runs them (`BaseTool.run`, which validates the arguments against the
tool's `args_schema` first). The string returned is what the model reads; the listing is
each tool's description and `args_schema`.

Usage: python crewai_test.py path/to/toolgate
"""

import sys

from common import BUSY, DEFAULT, check, finish, healthy_body_chars, judge, probed, run_modes, signals_row, throttled, version


def handed(tools: dict, name: str, args: dict) -> dict:
    try:
        return {"text": str(tools[name].run(**args)), "error": False}
    except Exception as e:  # noqa: BLE001 - the crew's tool usage hands the model the error's text
        return {"text": str(e), "error": True}


def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    import mcp
    from crewai_tools import MCPServerAdapter

    label = f"{mode}, crewai"
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
            listing = {n: {"description": t.description or "", "schema": t.args_schema.model_json_schema()} for n, t in tools.items()}
            out = {"tools": listing, "busy_url": busy, **probed(lambda n, a: handed(tools, n, a))}
        # The model leaves the optional `limit` out: whatever the adapter sends, the call succeeds.
        print(f"  --   {label}: web_search without limit sent {sent[0]}")
        check(f"{label}: optional argument left out: the call succeeds",
              "Result 1 for rust" in out["healthy"]["text"] and "not called" not in out["healthy"]["text"], str(out["healthy"])[:300])
        if mode == DEFAULT:
            with MCPServerAdapter({"url": busy, "transport": "streamable-http"}) as busy_tools:
                out["throttle"] = handed({t.name: t for t in busy_tools}, *BUSY)
    finally:
        mcp.ClientSession.call_tool = original
    return judge(mode, label, out, body, url, misses=("structured",), refused_by_framework=True, marked=False)


def main(binary: str) -> None:
    v = version("crewai-tools")
    label = "crewai-tools `MCPServerAdapter`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcpadapt {version('mcpadapt')}, mcp {version('mcp')})",
            "one text block as it is, several as `str()` of the list of their texts, a Python repr "
            "(`crewai_tools/adapters/mcp_adapter.py`, `CrewAIToolAdapter.adapt` → `CrewAIMCPTool._run`); `isError` is not "
            "passed on, so the drift reads as a failure by its opening words; `BaseTool.run` validates the arguments against "
            "the `args_schema` it built, which fills every optional argument left out with `null`", busy)
    signals_row(label, v, "names, descriptions, input schemas rebuilt as pydantic models (`args_schema`)",
                "not passed on: the failure reads by its words")
    finish()


main(sys.argv[1])
