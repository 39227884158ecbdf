"""atomic-agents: the tools `fetch_mcp_tools` builds (`MCPToolFactory`, over a streamable HTTP
session the application opens: the factory itself speaks only SSE and stdio), run as the
MCP orchestrator example runs them: the tool's output schema, `{"result": content}`, goes
into the agent's memory, which hands the model its `model_dump_json()`. The listing is the
tool's docstring (its description) and its input schema, rebuilt as a pydantic model.

Usage: python atomic_agents_test.py path/to/toolgate
"""

import asyncio
import json
import sys

from common import DEFAULT, check, finish, healthy_body_chars, judge, run_modes, signals_row, throttled, version

OPENING = '{"result":[{"type":"text","text":"'


class Session:
    """A streamable HTTP session on an event loop of its own, which the factory's tools
    run their calls on (`run_until_complete`)."""

    def __init__(self, url: str) -> None:
        from mcp import ClientSession
        from mcp.client.streamable_http import streamablehttp_client

        self.loop = asyncio.new_event_loop()
        ready: asyncio.Future = self.loop.create_future()
        self.done = asyncio.Event()

        async def hold_session() -> None:
            # Entered and left in this one task (anyio's cancel scopes must be), kept open
            # while the tools' calls run on the same loop.
            async with streamablehttp_client(url) as (read, write, _), ClientSession(read, write) as session:
                await session.initialize()
                ready.set_result(session)
                await self.done.wait()

        self.task = self.loop.create_task(hold_session())
        self.session = self.loop.run_until_complete(ready)

    def tools(self) -> dict:
        from atomic_agents.lib.factories.mcp_tool_factory import fetch_mcp_tools

        return {t.mcp_tool_name: t for t in fetch_mcp_tools(client_session=self.session, event_loop=self.loop)}

    def close(self) -> None:
        self.done.set()
        self.loop.run_until_complete(self.task)
        self.loop.close()


def handed(tool: type, args: dict) -> dict:
    """What the model reads: the output schema's JSON; the tool raises only when the call
    itself fails (`isError` is not looked at), and its input model refuses what it cannot
    build (the orchestrator example hands the model neither: the exception ends the run)."""
    try:
        params = tool.input_schema(tool_name=tool.mcp_tool_name, **args)
        return {"text": tool().run(params).model_dump_json(), "error": False}
    except Exception as e:  # noqa: BLE001
        return {"text": str(e), "error": True}


def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, atomic-agents"
    body = healthy_body_chars(url)
    demo = Session(url)
    try:
        tools = demo.tools()
        listing = {name: {"description": t.__doc__ or "", "schema": t.input_schema.model_json_schema()} for name, t in tools.items()}
        out = {"tools": listing, "busy_url": busy}
        out["healthy"] = handed(tools["web_search"], {"query": "rust"})
        out["note"] = handed(tools["legacy_search"], {"query": "rust"})
        out["refused"] = handed(tools["web_search"], {"query": "rust", "limit": 50})
        handed(tools["demo_control"], {"search_field": "excerpt"})
        out["drift"] = handed(tools["web_search"], {"query": "rust"})
    finally:
        demo.close()
    if mode == DEFAULT:
        throttle = Session(busy)
        try:
            out["throttle"] = handed(throttle.tools()["busy_search"], {"query": "rust"})
        finally:
            throttle.close()
    check(f"{label}: isError is not passed on: the drift is an ordinary output", not out["drift"]["error"], str(out["drift"])[:300])
    # The text sits JSON-escaped inside the content block's JSON.
    for key in ("drift", "refused", "throttle"):
        if key in out:
            out[key]["text"] = out[key]["text"].replace('\\"', '"')
    return judge(mode, label, out, body, url, opening=OPENING, bounds_kept=False, misses=("structured",))


def main(binary: str) -> None:
    v = version("atomic-agents")
    label = "atomic-agents `fetch_mcp_tools`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
                  "the content blocks as JSON, `{\"result\": [{\"type\": \"text\", \"text\": …, \"annotations\": null, \"meta\": null}]}` "
                  "(`atomic_agents/lib/factories/mcp_tool_factory.py`, `run_tool_sync` returns `tool_result.content` in the "
                  "tool's output schema, which the agent's memory sends as `model_dump_json()`); `structuredContent`, `_meta` "
                  "and `isError` are dropped, so the drift reads as a failure by its opening words, after "
                  "`{\"result\":[{\"type\":\"text\",\"text\":\"`", busy)
    signals_row(label, v, "names, descriptions, input schemas rebuilt as pydantic models (`SchemaTransformer`)",
                "not passed on: the failure reads by its words")
    finish()


main(sys.argv[1])
