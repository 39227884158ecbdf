"""dspy: `dspy.Tool.from_mcp_tool` over an MCP `ClientSession`, called as `ReAct.aforward`
calls it: the tool's return value is the observation the model reads, and an exception
becomes "Execution error in NAME: …". Measured with the default `result_mode="text"` and
with `result_mode="structured"`; the listing is each tool's name, description and `args`.

Usage: python dspy_test.py path/to/toolgate
"""

import sys
from contextlib import asynccontextmanager

from common import BUSY, DEFAULT, check, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, text_of, throttled, version

# What the traceback's last line puts before a failed call's text.
ERROR = "RuntimeError: Failed to call a MCP tool: "


@asynccontextmanager
async def connected(url: str, result_mode: str):
    import dspy
    from dspy.utils.exceptions import format_error_for_lm
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        tools = {t.name: dspy.Tool.from_mcp_tool(session, t, result_mode=result_mode) for t in (await session.list_tools()).tools}

        async def invoke(name: str, args: dict) -> dict:
            try:
                return {"text": text_of(await tools[name].acall(**args)), "error": False}
            except Exception as err:  # noqa: BLE001 - what ReAct does with it
                return {"text": f"Execution error in {name}: {format_error_for_lm(err, traceback_frames=5)}", "error": True}

        listing = {n: {"description": t.desc or "", "schema": {"properties": t.args}} for n, t in tools.items()}
        yield listing, invoke


async def probe(url: str, mode: str, result_mode: str, busy: str) -> tuple[bool, bool]:
    body = healthy_body_chars(url)
    label = f"{mode}, result_mode={result_mode}"
    async with connected(url, result_mode) as (listing, invoke):
        out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    if mode == DEFAULT:
        async with connected(busy, result_mode) as (_, invoke):
            out["throttle"] = await invoke(*BUSY)
    # ReAct's observation is "Execution error in web_search: ", a Python traceback of up to
    # five frames (file paths and source lines), then the error: "RuntimeError: Failed to call
    # a MCP tool: " and the text. Asserted, then judged from the error on.
    for key in ("drift", "throttle"):
        if key in out:
            text = out[key]["text"]
            check(f"{label}: {key}: a traceback comes before the failure's text (known)",
                  "Traceback (most recent call last)" in text.split(ERROR)[0], text[:300])
            out[key]["text"] = text[text.find(ERROR):]
    return judge(mode, label, out, body, url, opening=ERROR, refused_by_framework=True,
                 misses=("text",) if result_mode == "structured" else ("structured",), marked=True)


def main(binary: str) -> None:
    v = version("dspy")
    label = "dspy `Tool.from_mcp_tool`"
    # Each variant its own throttled toolgate: a second call of the first would be refused
    # without reaching the upstream (the wait it was told is not over).
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v}, default",
                  "the text blocks: one as a string, several as a list of strings (`dspy/utils/mcp.py`, "
                  "`_convert_mcp_tool_result`); `isError` raises `RuntimeError(\"Failed to call a MCP tool: …\")`, which "
                  "`ReAct` turns into the observation \"Execution error in web_search: \", a Python traceback of up to five "
                  "frames, then the error", "text", busy)
        signals_row(label, f"{v}, default", "names, descriptions, input schemas' properties (`args`)",
                    "\"Execution error in web_search: \", a traceback, then the failure")
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v}, `result_mode=\"structured\"`",
                  "`structuredContent` when set, else as the default (same function)", "structured", busy)
        signals_row(label, f"{v}, `result_mode=\"structured\"`", "names, descriptions, input schemas' properties (`args`)",
                    "\"Execution error in web_search: \", a traceback, then the failure")
    finish()


main(sys.argv[1])
