"""autogen-ext: `McpWorkbench` as an AssistantAgent uses it. `call_tool` returns a
`ToolResult`; the agent hands the model `result.to_text()` (the text blocks, one per line)
with `is_error` as the `FunctionExecutionResult`'s flag. The listing is `list_tools()`'s
tool schemas.

Usage: python autogen_test.py path/to/toolgate
"""

import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


async def handed(bench: object, name: str, args: dict) -> dict:
    result = await bench.call_tool(name, args)
    return {"text": result.to_text(), "error": result.is_error}


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    from autogen_ext.tools.mcp import McpWorkbench, StreamableHttpServerParams

    label = f"{mode}, autogen"
    body = healthy_body_chars(url)
    async with McpWorkbench(StreamableHttpServerParams(url=url)) as bench:
        listing = {t["name"]: {"description": t.get("description", ""), "schema": t["parameters"]} for t in await bench.list_tools()}
        out = {"tools": listing, "busy_url": busy, **await probed_async(lambda n, a: handed(bench, n, a))}
    if mode == DEFAULT:
        async with McpWorkbench(StreamableHttpServerParams(url=busy)) as bench:
            out["throttle"] = await handed(bench, *BUSY)
    return judge(mode, label, out, body, url, misses=("structured",), marked=True)


def main(binary: str) -> None:
    v = version("autogen-ext")
    label = "autogen-ext `McpWorkbench`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
            "the text blocks, one per line (`autogen_ext/tools/mcp/_workbench.py`, `McpWorkbench.call_tool` → "
            "`ToolResult.to_text`); `isError` becomes `is_error`", busy)
    signals_row(label, v, "names, descriptions, input schemas as they are", "`is_error`")
    finish()


main(sys.argv[1])
