"""Microsoft Agent Framework: `MCPStreamableHTTPTool`'s functions invoked through the
framework's own function-invocation step (`_auto_invoke_function`, what an `Agent` runs
for each function call the model makes), and the `FunctionResultContent` it hands the
model read back.

Usage: python agent_framework_test.py path/to/toolgate
"""

import json
import sys

from common import DRIFT, NOTE, TEXT_ONLY, check, finish, healthy_body_chars, note_check, report_size, run_modes, version

# What the model is handed for any function that raised, unless the application sets
# `include_detailed_errors=True` (`agent_framework/_tools.py`, `_function_execution_error_result`).
GENERIC = "Error: Function failed."


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from agent_framework import Content, MCPStreamableHTTPTool
    from agent_framework._tools import _auto_invoke_function, normalize_function_invocation_configuration

    body = healthy_body_chars(url)
    async with MCPStreamableHTTPTool(name="demo", url=url, load_prompts=False) as mcp:
        tools = {f.name: f for f in mcp.functions}
        ws = tools.get("web_search")
        check(f"{mode}: tools: web_search with its input schema",
              ws is not None and "query" in ws.parameters().get("properties", {}), f"{list(tools)}")

        async def invoke(name: str, args: dict, detailed: bool = False) -> str:
            config = normalize_function_invocation_configuration({"include_detailed_errors": detailed})
            call = Content.from_function_call(call_id="1", name=name, arguments=json.dumps(args))
            return str((await _auto_invoke_function(call, config=config, tool_map=tools)).result)

        healthy = await invoke("web_search", {"query": "rust"})
        check(f"{mode}: healthy: results reach the model", "results" in healthy, healthy)
        report_size(mode, body, healthy)
        note = await invoke("legacy_search", {"query": "rust"})
        # The default `tool_result_content="structured_first"` hands the model only
        # `structuredContent` as JSON, where the note is the `toolgate` member's text.
        reached = NOTE in note or '"toolgate": {"notes": ["legacy_search is deprecated' in note
        got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", reached, note, misses=("text",))
        await invoke("demo_control", {"search_field": "excerpt"})
        drift = await invoke("web_search", {"query": "rust"})
        check(f"{mode}: drift: by default the model is handed only {GENERIC!r} (known)", drift == GENERIC,
              f"it now reads more: update the table ({drift})")
        detailed = await invoke("web_search", {"query": "rust"}, detailed=True)
        check(f"{mode}: drift: with include_detailed_errors=True the failure text follows",
              detailed.startswith(f"{GENERIC} Exception: {DRIFT}"), detailed)
        if mode == TEXT_ONLY:
            check(f"{mode}: healthy: without structuredContent the text block is handed on", healthy.startswith("{"), healthy)
    return got_note, drift != GENERIC


def main(binary: str) -> None:
    run_modes(binary, probe, "Microsoft Agent Framework `MCPStreamableHTTPTool`",
        f"{version('agent-framework-core')} (mcp {version('mcp')})",
        "`structuredContent` as JSON when set, else the text blocks (`agent_framework/_mcp.py`, "
        "`_parse_tool_result_from_mcp`, default `tool_result_content=\"structured_first\"`); `isError` raises "
        "`ToolExecutionException` with the text, which the function-invocation step hands the model as only "
        f"\"{GENERIC}\" unless the application sets `include_detailed_errors=True` "
        "(then \"… Exception: web_search failed: …\")")
    finish()


main(sys.argv[1])
