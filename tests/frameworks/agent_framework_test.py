"""Microsoft Agent Framework: `MCPStreamableHTTPTool`'s functions invoked through the
framework's own function-invocation step (`_auto_invoke_function`, what an `Agent` runs
for each function call the model makes), and the `FunctionResultContent` it hands the
model read back.

Usage: python agent_framework_test.py path/to/toolgate
"""

import json
import sys

from common import (BUSY, DEFAULT, NOTE, TEXT_ONLY, check, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row,
                    throttled, version)

# What the model is handed for any function that raised, unless the application sets
# `include_detailed_errors=True` (`agent_framework/_tools.py`, `_function_execution_error_result`).
GENERIC = "Error: Function failed."


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    from agent_framework import Content, MCPStreamableHTTPTool
    from agent_framework._tools import _auto_invoke_function, normalize_function_invocation_configuration

    label = f"{mode}, agent-framework"
    body = healthy_body_chars(url)

    def caller(tools: dict, detailed: bool):
        async def invoke(name: str, args: dict) -> dict:
            config = normalize_function_invocation_configuration({"include_detailed_errors": detailed})
            call = Content.from_function_call(call_id="1", name=name, arguments=json.dumps(args))
            text = str((await _auto_invoke_function(call, config=config, tool_map=tools)).result)
            return {"text": text, "error": text.startswith(GENERIC)}
        return invoke

    async with MCPStreamableHTTPTool(name="demo", url=url, load_prompts=False) as mcp:
        tools = {f.name: f for f in mcp.functions}
        listing = {n: {"description": f.description or "", "schema": f.parameters()} for n, f in tools.items()}
        # Judged with `include_detailed_errors=True`, the one setting under which a failure's
        # text can reach the model at all.
        out = {"tools": listing, "busy_url": busy, **await probed_async(caller(tools, True))}
        if mode == DEFAULT:
            async with MCPStreamableHTTPTool(name="busy", url=busy, load_prompts=False) as busy_mcp:
                out["throttle"] = await caller({f.name: f for f in busy_mcp.functions}, True)(*BUSY)
        # The default `tool_result_content="structured_first"` hands the model only
        # `structuredContent` as JSON, where the note is the `toolgate` member's text.
        if '"toolgate": {"notes": ["legacy_search is deprecated' in out["note"]["text"]:
            out["note"]["text"] += f" ({NOTE})"
        if mode == TEXT_ONLY:
            check(f"{label}: healthy: without structuredContent the text block is handed on", out["healthy"]["text"].startswith("{"),
                  out["healthy"]["text"])
        for key in ("drift", "refused", "throttle"):
            if key in out:
                out[key]["text"] = out[key]["text"].removeprefix(f"{GENERIC} Exception: ")
        got = judge(mode, label, out, body, url, misses=("text",), marked=True)
        # After the judged calls: by default the model is handed the generic sentence alone.
        drift = (await caller(tools, False)("web_search", {"query": "rust"}))["text"]
        check(f"{label}: drift: by default the model is handed only {GENERIC!r} (known)", drift == GENERIC,
              f"it now reads more: update the tables ({drift})")
    return got[0], False


def main(binary: str) -> None:
    v = version("agent-framework-core")
    label = "Microsoft Agent Framework `MCPStreamableHTTPTool`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
            "`structuredContent` as JSON when set, else the text blocks (`agent_framework/_mcp.py`, "
            "`_parse_tool_result_from_mcp`, default `tool_result_content=\"structured_first\"`); `isError` raises "
            "`ToolExecutionException` with the text, which the function-invocation step hands the model as only "
            f"\"{GENERIC}\" unless the application sets `include_detailed_errors=True` "
            "(then \"… Exception: web_search failed: …\")", busy)
    signals_row(label, f"{v}, `include_detailed_errors=True`", "names, descriptions, input schemas as they are",
                f"a raised exception; by default the model reads only \"{GENERIC}\": no failure text, wait or refusal")
    finish()


main(sys.argv[1])
