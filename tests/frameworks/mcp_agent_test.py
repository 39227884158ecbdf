"""mcp-agent (lastmile): an `Agent` connected to the server through `MCPApp` settings, a tool
called through `Agent.call_tool` as `OpenAIAugmentedLLM.execute_tool_call` calls it; the
tool message's content is the result's blocks through `mcp_content_to_openai_content_part`
(`mcp_agent/workflows/llm/augmented_llm_openai.py`), text parts the model reads in order.

Usage: python mcp_agent_test.py path/to/toolgate
"""

import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from mcp_agent.agents.agent import Agent
    from mcp_agent.app import MCPApp
    from mcp_agent.config import LoggerSettings, MCPServerSettings, MCPSettings, Settings
    from mcp_agent.workflows.llm.augmented_llm_openai import mcp_content_to_openai_content_part

    body = healthy_body_chars(url)
    settings = Settings(execution_engine="asyncio", logger=LoggerSettings(type="none"),
                        mcp=MCPSettings(servers={"demo": MCPServerSettings(transport="streamable_http", url=url)}))
    app = MCPApp(name="toolgate-frameworks", settings=settings)
    async with app.run() as running:
        async with Agent(name="probe", server_names=["demo"], context=running.context) as agent:
            # The model sees every tool namespaced by its server ("demo_web_search") and calls it so.
            listed = await agent.list_tools()
            schemas = {t.name.removeprefix("demo_"): t.inputSchema for t in listed.tools}
            check(f"{mode}: tools: web_search with its input schema", "query" in schemas.get("web_search", {}).get("properties", {}),
                  f"{list(schemas)}")

            async def invoke(name: str, args: dict) -> str:
                result = await agent.call_tool(name=f"demo_{name}", arguments=args)
                parts = [mcp_content_to_openai_content_part(c) for c in result.content]
                return "\n".join(p.get("text", "") for p in parts)

            healthy = await invoke("web_search", {"query": "rust"})
            check(f"{mode}: healthy: results reach the model", "results" in healthy, healthy)
            report_size(mode, body, healthy)
            note = await invoke("legacy_search", {"query": "rust"})
            got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note,
                                  misses=("structured",))
            await invoke("demo_control", {"search_field": "excerpt"})
            drift = await invoke("web_search", {"query": "rust"})
            got_drift = check(f"{mode}: drift: the text opens with the failure", drift.startswith(DRIFT), drift)
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "mcp-agent `Agent`", f"{version('mcp-agent')} (mcp {version('mcp')})",
        "the text blocks as the tool message's text parts (`mcp_agent/workflows/llm/augmented_llm_openai.py`, "
        "`OpenAIAugmentedLLM.execute_tool_call` → `mcp_content_to_openai_content_part`); `isError` is not passed on, so "
        "the drift reads as a failure by its opening words")
    finish()


main(sys.argv[1])
