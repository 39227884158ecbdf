"""llama-index-tools-mcp: the FunctionTools `McpToolSpec.to_tool_list_async()` builds,
called as an agent calls them (`acall`). `ToolOutput.content` is what the model is
handed; `is_error` is what the agent loop reads. The listing is each tool's metadata:
name, description and `fn_schema`.

Usage: python llama_index_test.py path/to/toolgate
"""

import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


async def connect(url: str) -> tuple[dict, object]:
    from llama_index.tools.mcp import BasicMCPClient, McpToolSpec

    tools = {t.metadata.name: t for t in await McpToolSpec(client=BasicMCPClient(url)).to_tool_list_async()}

    async def invoke(name: str, args: dict) -> dict:
        output = await tools[name].acall(**args)
        return {"text": output.content, "error": output.is_error}

    listing = {n: {"description": t.metadata.description or "", "schema": t.metadata.fn_schema.model_json_schema()}
               for n, t in tools.items()}
    return listing, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, llama-index"
    body = healthy_body_chars(url)
    listing, invoke = await connect(url)
    out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    if mode == DEFAULT:
        _, invoke_busy = await connect(busy)
        out["throttle"] = await invoke_busy(*BUSY)
    # The client flags nothing (is_error=False) and hands the model a repr of the whole
    # result, which opens with `meta=`: toolgate puts the failure text first in `_meta`,
    # so the repr's first words are the failure.
    return judge(mode, label, out, body, url, opening="meta={'dev.toolgate/error': '", bounds_kept=False, marked=False)


def main(binary: str) -> None:
    v = version("llama-index-tools-mcp")
    label = "llama-index-tools-mcp"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, v,
            "`ToolOutput.content` is `str()` of the whole `CallToolResult` (a Python repr: notes and the failure text "
            "inside it); the client drops `isError`: `McpToolSpec._create_tool_fn` (`llama_index/tools/mcp/base.py`) "
            "returns the raw result and `FunctionTool.acall` (`llama_index/core/tools/function_tool.py`) wraps it with "
            "`is_error=False`; the repr opens with `meta=`, and toolgate's `_meta` opens with `dev.toolgate/error` (the "
            "failure text), so its first words say the call failed", busy)
    signals_row(label, v, "names, descriptions, input schemas rebuilt as pydantic models (`fn_schema`)",
                "`isError=True` inside the repr; the tool output's `is_error` stays false")
    finish()


main(sys.argv[1])
