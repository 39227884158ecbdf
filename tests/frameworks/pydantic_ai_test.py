"""pydantic-ai `MCPToolset` in an Agent driven by a scripted `FunctionModel`: the model
function asks for one tool call, then records what the agent hands it back (the tool
definitions, and a `ToolReturnPart` or a `RetryPromptPart`).

Usage: python pydantic_ai_test.py path/to/toolgate
"""

import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, text_of, throttled, version


def caller(toolset: object):
    """`invoke(name, args)` through an Agent whose scripted model asks for that one call;
    `seen["tools"]` is the tool definitions the model was given."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    seen: dict = {}

    def scripted(name: str, args: dict):
        def model(messages, info: AgentInfo) -> ModelResponse:
            seen["tools"] = {t.name: t for t in info.function_tools}
            back = [p for p in messages[-1].parts if isinstance(p, (ToolReturnPart, RetryPromptPart))]
            if not back:
                seen["asked"] = seen.get("asked", 0) + 1
                return ModelResponse(parts=[ToolCallPart(name, args)])
            # A tool error comes back as a ToolReturnPart with outcome 'retried' (or 'failed').
            seen["kind"] = f"{type(back[0]).__name__}:{getattr(back[0], 'outcome', '')}"
            seen["content"] = text_of(back[0].content)
            return ModelResponse(parts=[TextPart("done")])
        return FunctionModel(model)

    async def invoke(name: str, args: dict) -> dict:
        seen.pop("kind", None)
        await Agent(scripted(name, args), toolsets=[toolset]).run("go")
        return {"text": seen.get("content", ""), "error": seen.get("kind") != "ToolReturnPart:success", "kind": seen.get("kind")}

    return invoke, seen


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    from pydantic_ai.mcp import MCPToolset

    label = f"{mode}, pydantic-ai"
    body = healthy_body_chars(url)
    toolset = MCPToolset(url)
    invoke, seen = caller(toolset)
    async with toolset:
        out = {"busy_url": busy, **await probed_async(invoke)}
    out["tools"] = {n: {"description": t.description or "", "schema": t.parameters_json_schema} for n, t in seen["tools"].items()}
    if mode == DEFAULT:
        busy_toolset = MCPToolset(busy)
        invoke, _ = caller(busy_toolset)
        async with busy_toolset:
            out["throttle"] = await invoke(*BUSY)
        print(f"  --   {label}: throttle handed back as {out['throttle']['kind']}")
    print(f"  --   {label}: drift handed back as {out['drift']['kind']}, refused as {out['refused']['kind']}")
    return judge(mode, label, out, body, url, misses=("text",), marked=True)


def main(binary: str) -> None:
    v = version("pydantic-ai-slim")
    label = "pydantic-ai-slim (`MCPToolset`)"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, v,
            "`structuredContent` when the content is all text blocks; drift as a tool return with outcome `retried`: "
            "the default `tool_error_behavior='retry'` (`pydantic_ai/mcp.py`, `MCPToolset._call_tool_checked`) frames "
            "every tool error as `ModelRetry`, while the text says \"Retrying will not help\"", busy)
    signals_row(label, v, "names, descriptions, input schemas as they are", "a tool return with outcome `retried`")
    finish()


main(sys.argv[1])
