"""dspy: `dspy.Tool.from_mcp_tool` over an MCP `ClientSession`, called as `ReAct.aforward`
calls it: the tool's return value is the observation the model reads, and an exception
becomes "Execution error in NAME: …". Measured with the default `result_mode="text"` and
with `result_mode="structured"`.

Usage: python dspy_test.py path/to/toolgate
"""

import sys

from common import DRIFT, check, finish, healthy_body_chars, note_check, report_size, run_modes, text_of, version


async def probe(url: str, mode: str, result_mode: str) -> tuple[bool, bool]:
    import dspy
    from dspy.utils.exceptions import format_error_for_lm
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    body = healthy_body_chars(url)
    label = f"{mode}, result_mode={result_mode}"
    async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        listed = (await session.list_tools()).tools
        tools = {t.name: dspy.Tool.from_mcp_tool(session, t, result_mode=result_mode) for t in listed}
        ws = tools.get("web_search")
        check(f"{label}: tools: web_search with its arguments", ws is not None and "query" in ws.args, f"{list(tools)}")

        async def invoke(name: str, args: dict) -> str:
            try:
                return text_of(await tools[name].acall(**args))
            except Exception as err:  # noqa: BLE001 - what ReAct does with it
                return f"Execution error in {name}: {format_error_for_lm(err, traceback_frames=5)}"

        healthy = await invoke("web_search", {"query": "rust"})
        check(f"{label}: healthy: results reach the model", "results" in healthy and not healthy.startswith("Execution error"), healthy)
        report_size(mode, body, healthy, label)
        note = await invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{label}: note: the deprecation reaches the model", "legacy_search is deprecated" in note, note)
        await invoke("demo_control", {"search_field": "excerpt"})
        drift = await invoke("web_search", {"query": "rust"})
        got_drift = check(f"{label}: drift: an execution error with the failure text",
                          drift.startswith("Execution error in web_search") and DRIFT in drift, drift)
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "dspy `Tool.from_mcp_tool`", f"{version('dspy')}, default",
              "the text blocks: one as a string, several as a list of strings (`dspy/utils/mcp.py`, "
              "`_convert_mcp_tool_result`); `isError` raises `RuntimeError(\"Failed to call a MCP tool: …\")`, which "
              "`ReAct` turns into the observation \"Execution error in web_search: …\"", "text")
    run_modes(binary, probe, "dspy `Tool.from_mcp_tool`", f"{version('dspy')}, `result_mode=\"structured\"`",
              "`structuredContent` when set, else as the default (same function)", "structured")
    finish()


main(sys.argv[1])
