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

import json
import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


def _offline_tokenizer() -> None:
    import tiktoken
    import tiktoken.registry

    tiktoken.registry.ENCODINGS.setdefault("cl100k_base", tiktoken.Encoding(
        name="cl100k_base", pat_str=r"\S+|\s+", mergeable_ranks={bytes([i]): i for i in range(256)},
        special_tokens={"<|endoftext|>": 256}))


# What langroid puts before the list of the failure's texts.
FAILED = "ERROR: Tool call failed - ['"


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    _offline_tokenizer()
    from langroid.agent.tools.mcp import FastMCPClient

    body = healthy_body_chars(url)
    async with FastMCPClient(url) as client:
        tools = {t.default_value("request"): t for t in await client.get_tools_async()}
    ws = tools.get("web_search")
    # The function schema the model is shown for the tool.
    schema = json.dumps(ws.llm_function_schema().parameters) if ws else ""
    check(f"{mode}: tools: web_search with its input schema", '"query"' in schema, f"{list(tools)} {schema[:300]}")

    async def invoke(name: str, **args: object) -> str:
        # Each call opens its own connection, as the tool does without `persist_connection`.
        return str(await tools[name](**args).handle_async())

    healthy = await invoke("web_search", query="rust")
    check(f"{mode}: healthy: results reach the model", "results" in healthy and not healthy.startswith("ERROR"), healthy)
    report_size(mode, body, healthy)
    note = await invoke("legacy_search", query="rust")
    got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note, misses=("structured",))
    # `demo_control`'s only argument is optional: langroid leaves it out only when it is None.
    await invoke("demo_control", search_field="excerpt")
    drift = await invoke("web_search", query="rust")
    got_drift = check(f"{mode}: drift: an error string with the failure text", drift.startswith(FAILED + DRIFT), drift)
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "langroid `FastMCPClient`", f"{version('langroid')} (fastmcp {version('fastmcp')}, mcp {version('mcp')})",
        "the text blocks, one per line (`langroid/agent/tools/mcp/fastmcp_client.py`, the generated `handle_async` → "
        "`FastMCPClient._convert_tool_result`; `structuredContent` only when there is no text block); on `isError` the "
        "string \"ERROR: Tool call failed - \" and the Python repr of the list of the texts")
    finish()


main(sys.argv[1])
