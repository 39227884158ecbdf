"""camel-ai: the `FunctionTool`s `MCPToolkit` builds (`camel/utils/mcp_client.py`,
`MCPClient.get_tools`), called as `ChatAgent._aexecute_tool` calls them (`func.async_call`;
an exception becomes "Tool execution failed: …"). The returned string is the tool message;
the listing is each tool's OpenAI tool schema.

Usage: python camel_test.py path/to/toolgate
"""

import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


async def handed(tools: dict, name: str, args: dict) -> dict:
    tool = tools[name]
    try:
        call = tool.func.async_call if hasattr(tool.func, "async_call") else tool.async_call
        return {"text": str(await call(**args)), "error": False}
    except Exception as e:  # noqa: BLE001 - what the agent does with any failure
        return {"text": f"Tool execution failed: Error executing async tool '{name}': {e!s}", "error": True}


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    from camel.toolkits import MCPToolkit

    label = f"{mode}, camel"
    body = healthy_body_chars(url)
    async with MCPToolkit(config_dict={"mcpServers": {"demo": {"url": url}}}) as toolkit:
        tools = {t.get_function_name(): t for t in toolkit.get_tools()}
        listing = {}
        for name, t in tools.items():
            function = t.get_openai_tool_schema()["function"]
            listing[name] = {"description": function.get("description", ""), "schema": function.get("parameters", {})}
        out = {"tools": listing, "busy_url": busy, **await probed_async(lambda n, a: handed(tools, n, a))}
    if mode == DEFAULT:
        async with MCPToolkit(config_dict={"mcpServers": {"busy": {"url": busy}}}) as toolkit:
            out["throttle"] = await handed({t.get_function_name(): t for t in toolkit.get_tools()}, *BUSY)
    return judge(mode, label, out, body, url, misses=("both", "text", "structured"), marked=False)


def main(binary: str) -> None:
    v = version("camel-ai")
    label = "camel-ai `MCPToolkit`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
            "the FIRST content block's text only (`camel/utils/mcp_client.py`, `MCPClient.generate_function_from_mcp_tool`, "
            "`async_mcp_call`); `isError` is not passed on, so the drift reads as a failure by its opening words", busy)
    signals_row(label, v, "names, descriptions, input schemas as OpenAI tool schemas", "not passed on: the failure reads by its words")
    finish()


main(sys.argv[1])
