"""semantic-kernel: `MCPStreamableHttpPlugin` added to a Kernel, its functions invoked as
the function-calling loop invokes them (`Kernel.invoke`), and the result turned into the
`FunctionResultContent` the chat history hands the model, serialized as it is sent. The
listing is each kernel function's description and parameters' schemas.

Usage: python semantic_kernel_test.py path/to/toolgate
"""

import sys
from contextlib import asynccontextmanager

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


@asynccontextmanager
async def connected(url: str):
    from semantic_kernel import Kernel
    from semantic_kernel.connectors.mcp import MCPStreamableHttpPlugin
    from semantic_kernel.contents import FunctionCallContent, FunctionResultContent

    async with MCPStreamableHttpPlugin(name="demo", url=url, load_prompts=False) as plugin:
        kernel = Kernel()
        kernel.add_plugin(plugin)
        functions = {f.name: f for f in kernel.get_plugin("demo").functions.values()}

        async def invoke(name: str, args: dict) -> dict:
            result = await kernel.invoke(plugin_name="demo", function_name=name, **args)
            call = FunctionCallContent(id="1", function_name=name, plugin_name="demo")
            return {"text": FunctionResultContent.from_function_call_content_and_result(call, result).model_dump(mode="json")["result"],
                    "error": False}

        listing = {n: {"description": f.description or "",
                       "schema": {"properties": {p.name: p.schema_data or {} for p in f.parameters}}} for n, f in functions.items()}
        yield listing, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, semantic-kernel"
    body = healthy_body_chars(url)
    async with connected(url) as (listing, invoke):
        out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    if mode == DEFAULT:
        async with connected(busy) as (_, invoke):
            out["throttle"] = await invoke(*BUSY)
    print(f"  --   {label}: the drift opens {out['drift']['text'][:120]!r}")
    # A Python repr of the kernel's TextContent objects, the text after the object's fields.
    return judge(mode, label, out, body, url, near_start=70, misses=("structured",), marked=False)


def main(binary: str) -> None:
    v = version("semantic-kernel")
    label = "semantic-kernel `MCPStreamableHttpPlugin`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
            "the text blocks as kernel `TextContent`s (`semantic_kernel/connectors/mcp.py`, `MCPPluginBase.call_tool` → "
            "`_mcp_call_tool_result_to_kernel_contents`), a list the `FunctionResultContent` serializes with `str()`: the model "
            "reads a Python repr of `TextContent` objects, each text in it twice; `isError` is dropped, so the drift reads "
            "as a failure by its words", busy)
    signals_row(label, v, "names, descriptions, parameters' schemas", "not passed on: the failure reads by its words")
    finish()


main(sys.argv[1])
