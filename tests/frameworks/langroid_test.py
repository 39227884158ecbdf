"""langroid: the `ToolMessage` classes a `FastMCPClient` builds from the server's tools
(`langroid/agent/tools/mcp/fastmcp_client.py`, `tool_model_from_mcp_tool`), each handled
as a `ChatAgent` handles it: its generated `handle_async`, whose string is the tool
result the agent hands the model. `_convert_tool_result` joins the text blocks with a
newline (`structuredContent` only when there is none); on `isError` the string is
"ERROR: Tool call failed - " and the Python repr of the list of texts.

Importing langroid builds a tiktoken `cl100k_base` tokenizer (`langroid/parsing/parser.py`),
whose ranks tiktoken downloads; with no network the driver registers a byte-level
stand-in under that name first. Langroid counts tokens with it; nothing on the tool path
reads it.

Usage: python langroid_test.py path/to/toolgate
"""

import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


def _offline_tokenizer() -> None:
    import tiktoken
    import tiktoken.registry

    tiktoken.registry.ENCODINGS.setdefault("cl100k_base", tiktoken.Encoding(
        name="cl100k_base", pat_str=r"\S+|\s+", mergeable_ranks={bytes([i]): i for i in range(256)},
        special_tokens={"<|endoftext|>": 256}))


# What langroid puts before the list of the failure's texts (a Python repr, which quotes a
# text with an apostrophe in it with double quotes).
FAILED = "ERROR: Tool call failed - ['"


async def connect(url: str):
    from langroid.agent.tools.mcp import FastMCPClient

    async with FastMCPClient(url) as client:
        tools = {t.default_value("request"): t for t in await client.get_tools_async()}

    async def invoke(name: str, args: dict) -> dict:
        # Each call opens its own connection, as the tool does without `persist_connection`.
        text = str(await tools[name](**args).handle_async())
        return {"text": text, "error": text.startswith("ERROR")}

    # The function schema the model is shown for each tool.
    listing = {}
    for name, t in tools.items():
        function = t.llm_function_schema()
        listing[name] = {"description": function.description or "", "schema": function.parameters}
    return listing, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    _offline_tokenizer()
    label = f"{mode}, langroid"
    body = healthy_body_chars(url)
    listing, invoke = await connect(url)
    # `demo_control`'s only argument is optional: langroid leaves it out only when it is None.
    out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    if mode == DEFAULT:
        _, invoke = await connect(busy)
        out["throttle"] = await invoke(*BUSY)
    return judge(mode, label, out, body, url, near_start=len(FAILED), misses=("structured",), bounds_kept=False, marked=True)


def main(binary: str) -> None:
    v = version("langroid")
    label = "langroid `FastMCPClient`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (fastmcp {version('fastmcp')}, mcp {version('mcp')})",
            "the text blocks, one per line (`langroid/agent/tools/mcp/fastmcp_client.py`, the generated `handle_async` → "
            "`FastMCPClient._convert_tool_result`; `structuredContent` only when there is no text block); on `isError` the "
            "string \"ERROR: Tool call failed - \" and the Python repr of the list of the texts", busy)
    signals_row(label, v, "names, descriptions, input schemas rebuilt as `ToolMessage` classes",
                "\"ERROR: Tool call failed - \" before a Python repr of the texts")
    finish()


main(sys.argv[1])
