"""mcp-agent (lastmile): an `Agent` connected to the server through `MCPApp` settings, a tool
called through `Agent.call_tool` as `OpenAIAugmentedLLM.execute_tool_call` calls it; the
tool message's content is the result's blocks through `mcp_content_to_openai_content_part`
(`mcp_agent/workflows/llm/augmented_llm_openai.py`), text parts the model reads in order.
The listing is `Agent.list_tools()`, each tool namespaced by its server.

Usage: python mcp_agent_test.py path/to/toolgate
"""

import sys
from contextlib import asynccontextmanager

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


@asynccontextmanager
async def connected(url: str):
    from mcp_agent.agents.agent import Agent
    from mcp_agent.app import MCPApp
    from mcp_agent.config import LoggerSettings, MCPServerSettings, MCPSettings, Settings
    from mcp_agent.workflows.llm.augmented_llm_openai import mcp_content_to_openai_content_part

    settings = Settings(execution_engine="asyncio", logger=LoggerSettings(type="none"),
                        mcp=MCPSettings(servers={"demo": MCPServerSettings(transport="streamable_http", url=url)}))
    app = MCPApp(name="toolgate-frameworks", settings=settings)
    async with app.run() as running:
        async with Agent(name="probe", server_names=["demo"], context=running.context) as agent:
            # The model sees every tool namespaced by its server ("demo_web_search") and calls it so.
            listed = await agent.list_tools()

            async def invoke(name: str, args: dict) -> dict:
                result = await agent.call_tool(name=f"demo_{name}", arguments=args)
                parts = [mcp_content_to_openai_content_part(c) for c in result.content]
                return {"text": "\n".join(p.get("text", "") for p in parts), "error": False, "is_error": result.isError}

            yield {t.name.removeprefix("demo_"): {"description": t.description or "", "schema": t.inputSchema} for t in listed.tools}, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, mcp-agent"
    body = healthy_body_chars(url)
    async with connected(url) as (listing, invoke):
        out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    if mode == DEFAULT:
        async with connected(busy) as (_, invoke):
            out["throttle"] = await invoke(*BUSY)
    return judge(mode, label, out, body, url, misses=("structured",), marked=False)


def main(binary: str) -> None:
    v = version("mcp-agent")
    label = "mcp-agent `Agent`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
            "the text blocks as the tool message's text parts (`mcp_agent/workflows/llm/augmented_llm_openai.py`, "
            "`OpenAIAugmentedLLM.execute_tool_call` → `mcp_content_to_openai_content_part`); `isError` is not passed on, so "
            "the drift reads as a failure by its opening words", busy)
    signals_row(label, v, "names (prefixed with the server's), descriptions, input schemas as they are",
                "not passed on: the failure reads by its words")
    finish()


main(sys.argv[1])
