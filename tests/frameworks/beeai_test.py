"""beeai-framework: the tools `MCPTool.from_client` builds, run as the RequirementAgent
runs a turn's tool calls (`run_tools`, then `_invoke_tool_calls`): the output's
`get_text_content()` is the tool message, and a `ToolError` becomes the agent's
tool-error prompt around `error.explain()`. The listing is each tool's description and
input schema (a pydantic model built from the server's).

Usage: python beeai_test.py path/to/toolgate
"""

import json
import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


async def connect(url: str):
    from beeai_framework.agents._utils import run_tools
    from beeai_framework.agents.requirement.prompts import RequirementAgentToolErrorPrompt, RequirementAgentToolErrorPromptInput
    from beeai_framework.backend.message import MessageToolCallContent
    from beeai_framework.tools.mcp import MCPTool
    from mcp.client.streamable_http import streamablehttp_client

    tools = await MCPTool.from_client(streamablehttp_client(url))

    async def invoke(name: str, args: dict) -> dict:
        (result,) = await run_tools(tools, [MessageToolCallContent(id="1", tool_name=name, args=json.dumps(args))], {})
        if result.error is not None:
            return {"text": RequirementAgentToolErrorPrompt.render(RequirementAgentToolErrorPromptInput(reason=result.error.explain())),
                    "error": True}
        return {"text": result.output.get_text_content(), "error": False}

    return {t.name: {"description": t.description or "", "schema": t.input_schema.model_json_schema()} for t in tools}, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, beeai"
    body = healthy_body_chars(url)
    listing, invoke = await connect(url)
    out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    if mode == DEFAULT:
        _, invoke = await connect(busy)
        out["throttle"] = await invoke(*BUSY)
    # The agent's prompt "The tool has failed; the error log is shown below. …", then
    # "ToolError(beeai_framework.tools.errors): " and the content block as indented JSON, its
    # text escaped: the failure's own text some 240 characters in.
    for key in ("drift", "throttle"):
        if key in out:
            out[key]["text"] = out[key]["text"].replace('\\"', '"')
    return judge(mode, label, out, body, url, near_start=260, refused_by_framework=True, misses=("text",), marked=True)


def main(binary: str) -> None:
    v = version("beeai-framework")
    label = "beeai-framework `MCPTool`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
            "`structuredContent` as JSON when set, else the text blocks, each parsed as JSON where it is "
            "(`beeai_framework/tools/mcp/mcp.py`, `MCPTool._run` → `JSONToolOutput.get_text_content`); on `isError` a "
            "`ToolError` with the content as JSON, which the RequirementAgent hands the model inside its prompt "
            "\"The tool has failed; the error log is shown below. …\"", busy)
    signals_row(label, v, "names, descriptions, input schemas rebuilt as pydantic models", "the agent's tool-error prompt")
    finish()


main(sys.argv[1])
