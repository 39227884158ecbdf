"""camel-ai: the `FunctionTool`s `MCPToolkit` builds (`camel/utils/mcp_client.py`,
`MCPClient.get_tools`), called as `ChatAgent._aexecute_tool` calls them (`func.async_call`;
an exception becomes "Tool execution failed: …"). The returned string is the tool message.

Usage: python camel_test.py path/to/toolgate
"""

import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from camel.toolkits import MCPToolkit

    body = healthy_body_chars(url)
    async with MCPToolkit(config_dict={"mcpServers": {"demo": {"url": url}}}) as toolkit:
        tools = {t.get_function_name(): t for t in toolkit.get_tools()}
        ws = tools.get("web_search")
        params = ws.get_openai_tool_schema()["function"]["parameters"] if ws else {}
        check(f"{mode}: tools: web_search with its input schema", "query" in params.get("properties", {}), f"{list(tools)} {params}")

        async def invoke(name: str, args: dict) -> str:
            tool = tools[name]
            try:
                call = tool.func.async_call if hasattr(tool.func, "async_call") else tool.async_call
                return str(await call(**args))
            except Exception as e:  # noqa: BLE001 - what the agent does with any failure
                return f"Tool execution failed: Error executing async tool '{name}': {e!s}"

        healthy = await invoke("web_search", {"query": "rust"})
        check(f"{mode}: healthy: results reach the model", "results" in healthy, healthy)
        report_size(mode, body, healthy)
        note = await invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note, misses=("both", "text", "structured"))
        await invoke("demo_control", {"search_field": "excerpt"})
        drift = await invoke("web_search", {"query": "rust"})
        got_drift = check(f"{mode}: drift: the output opens with the failure", drift.startswith(DRIFT), drift)
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "camel-ai `MCPToolkit`", f"{version('camel-ai')} (mcp {version('mcp')})",
        "the FIRST content block's text only (`camel/utils/mcp_client.py`, `MCPClient.generate_function_from_mcp_tool`, "
        "`async_mcp_call`); `isError` is not passed on, so the drift reads as a failure by its opening words")
    finish()


main(sys.argv[1])
