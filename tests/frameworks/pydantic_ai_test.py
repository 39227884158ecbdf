"""pydantic-ai `MCPToolset` in an Agent driven by a scripted `FunctionModel`: the model
function asks for one tool call, then records what the agent hands it back (the tool
definitions, and a `ToolReturnPart` or a `RetryPromptPart`).

Usage: python pydantic_ai_test.py path/to/toolgate
"""

import sys

from common import DRIFT, check, finish, healthy_body_chars, note_check, report_size, run_modes, text_of, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.messages import ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    body = healthy_body_chars(url)
    seen: dict = {}

    def scripted(name: str, args: dict):
        def model(messages, info: AgentInfo) -> ModelResponse:
            seen["tools"] = {t.name: t for t in info.function_tools}
            last = messages[-1].parts
            back = [p for p in last if isinstance(p, (ToolReturnPart, RetryPromptPart))]
            if not back:
                return ModelResponse(parts=[ToolCallPart(name, args)])
            # A tool error comes back as a ToolReturnPart with outcome 'retried' (or 'failed').
            seen["kind"] = f"{type(back[0]).__name__}:{getattr(back[0], 'outcome', '')}"
            seen["content"] = text_of(back[0].content)
            return ModelResponse(parts=[TextPart("done")])
        return FunctionModel(model)

    toolset = MCPToolset(url)

    async def invoke(name: str, args: dict) -> tuple[str, str]:
        seen.clear()
        agent = Agent(scripted(name, args), toolsets=[toolset])
        await agent.run("go")
        return seen.get("kind", ""), seen.get("content", "")

    async with toolset:
        kind, healthy = await invoke("web_search", {"query": "rust"})
        ws = seen["tools"].get("web_search")
        check(f"{mode}: tools: web_search with its input schema", ws is not None and "query" in ws.parameters_json_schema.get("properties", {}), f"{list(seen['tools'])}")
        check(f"{mode}: healthy: results reach the model", kind == "ToolReturnPart:success" and "results" in healthy, f"{kind} {healthy}")
        report_size(mode, body, healthy)
        _, note = await invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", "legacy_search is deprecated" in note, note)
        await invoke("demo_control", {"search_field": "excerpt"})
        kind, drift = await invoke("web_search", {"query": "rust"})
        got_drift = check(f"{mode}: drift: the model is told it failed",
                          kind in ("ToolReturnPart:retried", "ToolReturnPart:failed", "RetryPromptPart:") and DRIFT in drift,
                          f"{kind} {drift}")
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "pydantic-ai-slim (`MCPToolset`)", version("pydantic-ai-slim"),
        "`structuredContent` when the content is all text blocks; drift as a tool return with outcome `retried`: "
        "the default `tool_error_behavior='retry'` (`pydantic_ai/mcp.py`, `MCPToolset._call_tool_checked`) frames "
        "every tool error as `ModelRetry`, while the text says \"Retrying will not help\"")
    finish()


main(sys.argv[1])
