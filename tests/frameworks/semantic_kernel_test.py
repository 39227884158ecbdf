"""semantic-kernel: `MCPStreamableHttpPlugin` added to a Kernel, its functions invoked as
the function-calling loop invokes them (`Kernel.invoke`), and the result turned into the
`FunctionResultContent` the chat history hands the model, serialized as it is sent.

Usage: python semantic_kernel_test.py path/to/toolgate
"""

import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from semantic_kernel import Kernel
    from semantic_kernel.connectors.mcp import MCPStreamableHttpPlugin
    from semantic_kernel.contents import FunctionCallContent, FunctionResultContent

    body = healthy_body_chars(url)
    async with MCPStreamableHttpPlugin(name="demo", url=url, load_prompts=False) as plugin:
        kernel = Kernel()
        kernel.add_plugin(plugin)
        functions = {f.name: f for f in kernel.get_plugin("demo").functions.values()}
        ws = functions.get("web_search")
        check(f"{mode}: tools: web_search with its parameters", ws is not None and any(p.name == "query" for p in ws.parameters), f"{list(functions)}")

        async def invoke(name: str, args: dict) -> str:
            result = await kernel.invoke(plugin_name="demo", function_name=name, **args)
            call = FunctionCallContent(id="1", function_name=name, plugin_name="demo")
            return FunctionResultContent.from_function_call_content_and_result(call, result).model_dump(mode="json")["result"]

        healthy = await invoke("web_search", {"query": "rust"})
        check(f"{mode}: healthy: results reach the model", "results" in healthy, healthy)
        report_size(mode, body, healthy)
        note = await invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note)
        await invoke("demo_control", {"search_field": "excerpt"})
        drift = await invoke("web_search", {"query": "rust"})
        got_drift = check(f"{mode}: drift: the failure text reaches the model", DRIFT in drift[:400], drift)
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "semantic-kernel `MCPStreamableHttpPlugin`", f"{version('semantic-kernel')} (mcp {version('mcp')})",
        "the text blocks as kernel `TextContent`s (`semantic_kernel/connectors/mcp.py`, `MCPPluginBase.call_tool` → "
        "`_mcp_call_tool_result_to_kernel_contents`), a list the `FunctionResultContent` serializes with `str()`: the model "
        "reads a Python repr of `TextContent` objects, each text in it twice; `isError` is dropped, so the drift reads "
        "as a failure by its words")
    finish()


main(sys.argv[1])
