"""autogen-ext: `McpWorkbench` as an AssistantAgent uses it. `call_tool` returns a
`ToolResult`; the agent hands the model `result.to_text()` (the text blocks, one per line)
with `is_error` as the `FunctionExecutionResult`'s flag.

Usage: python autogen_test.py path/to/toolgate
"""

import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from autogen_ext.tools.mcp import McpWorkbench, StreamableHttpServerParams

    body = healthy_body_chars(url)
    async with McpWorkbench(StreamableHttpServerParams(url=url)) as bench:
        tools = {t["name"]: t for t in await bench.list_tools()}
        ws = tools.get("web_search")
        check(f"{mode}: tools: web_search with its input schema", ws is not None and "query" in ws["parameters"].get("properties", {}), f"{list(tools)}")

        async def invoke(name: str, args: dict) -> tuple[str, bool]:
            result = await bench.call_tool(name, args)
            return result.to_text(), result.is_error

        healthy, err = await invoke("web_search", {"query": "rust"})
        check(f"{mode}: healthy: results reach the model", "results" in healthy and not err, healthy)
        report_size(mode, body, healthy)
        note, _ = await invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note)
        await invoke("demo_control", {"search_field": "excerpt"})
        drift, err = await invoke("web_search", {"query": "rust"})
        got_drift = check(f"{mode}: drift: is_error with the failure text", err and drift.startswith(DRIFT), f"{err} {drift}")
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "autogen-ext `McpWorkbench`", f"{version('autogen-ext')} (mcp {version('mcp')})",
        "the text blocks, one per line (`autogen_ext/tools/mcp/_workbench.py`, `McpWorkbench.call_tool` → "
        "`ToolResult.to_text`); `isError` becomes `is_error`")
    finish()


main(sys.argv[1])
