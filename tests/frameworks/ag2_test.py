"""ag2: the proxies `MCPToolkit` (`ag2.tools.toolkits.mcp_server`) builds for the
server's tools, called as the agent's tool step calls them (a `ToolCallEvent` in, a
`ToolResultEvent` or `ToolErrorEvent` out). The event's text parts are what the model is
handed; an error event is marked as one to the model (`is_error` for Anthropic).

Usage: python ag2_test.py path/to/toolgate
"""

import json
import sys
from types import SimpleNamespace

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from ag2.events import TextInput, ToolCallEvent, ToolErrorEvent
    from ag2.tools.toolkits.mcp_server import MCPToolkit

    body = healthy_body_chars(url)
    toolkit = MCPToolkit(url)
    # The toolkit reads only the run's variables from the context it is given.
    context = SimpleNamespace(variables={})
    schemas = {s.function.name: s.function.parameters for s in await toolkit.schemas(context)}
    check(f"{mode}: tools: web_search with its input schema", "query" in schemas.get("web_search", {}).get("properties", {}), f"{list(schemas)}")

    async def invoke(name: str, args: dict) -> tuple[str, bool]:
        # The proxies discovery registered; the agent reaches the same ones through the stream.
        event = await toolkit._tools[name](ToolCallEvent(name=name, arguments=json.dumps(args)), context)
        text = "\n".join(p.content for p in event.result.parts if isinstance(p, TextInput))
        return text, isinstance(event, ToolErrorEvent)

    healthy, err = await invoke("web_search", {"query": "rust"})
    check(f"{mode}: healthy: results reach the model", "results" in healthy and not err, healthy)
    report_size(mode, body, healthy)
    note, _ = await invoke("legacy_search", {"query": "rust"})
    got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note)
    await invoke("demo_control", {"search_field": "excerpt"})
    drift, err = await invoke("web_search", {"query": "rust"})
    # "RuntimeError: " and `str()` of the whole result, which opens with `_meta`.
    got_drift = check(f"{mode}: drift: an error event with the failure text near its start",
                      err and DRIFT in drift[:200], f"{err} {drift}")
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "ag2 `MCPToolkit`", f"{version('ag2')} (mcp {version('mcp')})",
        "the text blocks, as text parts of the `ToolResultEvent` (`ag2/tools/toolkits/mcp_server/toolkit.py`, "
        "`_MCPProxyTool.__call__` → `_extract_content`); on `isError` a `ToolErrorEvent` (sent as an error where the "
        "provider has the flag) whose text is \"RuntimeError: \" and `str()` of the whole result, a Python repr that "
        "opens with `meta={'dev.toolgate/error': 'web_search failed: …'`")
    finish()


main(sys.argv[1])
