"""ag2: the proxies `MCPToolkit` (`ag2.tools.toolkits.mcp_server`) builds for the
server's tools, called as the agent's tool step calls them (a `ToolCallEvent` in, a
`ToolResultEvent` or `ToolErrorEvent` out). The event's text parts are what the model is
handed; an error event is marked as one to the model (`is_error` for Anthropic). The
listing is the toolkit's function schemas.

Usage: python ag2_test.py path/to/toolgate
"""

import json
import sys
from types import SimpleNamespace

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


async def connect(url: str):
    from ag2.events import TextInput, ToolCallEvent, ToolErrorEvent
    from ag2.tools.toolkits.mcp_server import MCPToolkit

    toolkit = MCPToolkit(url)
    # The toolkit reads only the run's variables from the context it is given.
    context = SimpleNamespace(variables={})
    listing = {s.function.name: {"description": s.function.description or "", "schema": s.function.parameters}
               for s in await toolkit.schemas(context)}

    async def invoke(name: str, args: dict) -> dict:
        # The proxies discovery registered; the agent reaches the same ones through the stream.
        event = await toolkit._tools[name](ToolCallEvent(name=name, arguments=json.dumps(args)), context)
        text = "\n".join(p.content for p in event.result.parts if isinstance(p, TextInput))
        return {"text": text, "error": isinstance(event, ToolErrorEvent)}

    return listing, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, ag2"
    body = healthy_body_chars(url)
    listing, invoke = await connect(url)
    out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    if mode == DEFAULT:
        _, invoke = await connect(busy)
        out["throttle"] = await invoke(*BUSY)
    # "RuntimeError: " and `str()` of the whole result, which opens with `_meta`.
    return judge(mode, label, out, body, url, near_start=80, misses=("structured",), marked=True)


def main(binary: str) -> None:
    v = version("ag2")
    label = "ag2 `MCPToolkit`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
            "the text blocks, as text parts of the `ToolResultEvent` (`ag2/tools/toolkits/mcp_server/toolkit.py`, "
            "`_MCPProxyTool.__call__` → `_extract_content`); on `isError` a `ToolErrorEvent` (sent as an error where the "
            "provider has the flag) whose text is \"RuntimeError: \" and `str()` of the whole result, a Python repr that "
            "opens with `meta={'dev.toolgate/error': 'web_search failed: …'`", busy)
    signals_row(label, v, "names, descriptions, input schemas as they are", "a `ToolErrorEvent`, \"RuntimeError: \" before a Python repr")
    finish()


main(sys.argv[1])
