"""beeai-framework: the tools `MCPTool.from_client` builds, run as the RequirementAgent
runs a turn's tool calls (`run_tools`, then `_invoke_tool_calls`): the output's
`get_text_content()` is the tool message, and a `ToolError` becomes the agent's
tool-error prompt around `error.explain()`.

Usage: python beeai_test.py path/to/toolgate
"""

import json
import sys

from common import DRIFT, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from beeai_framework.agents._utils import run_tools
    from beeai_framework.agents.requirement.prompts import RequirementAgentToolErrorPrompt, RequirementAgentToolErrorPromptInput
    from beeai_framework.backend.message import MessageToolCallContent
    from beeai_framework.tools.mcp import MCPTool
    from mcp.client.streamable_http import streamablehttp_client

    body = healthy_body_chars(url)
    tools = await MCPTool.from_client(streamablehttp_client(url))
    by_name = {t.name: t for t in tools}
    ws = by_name.get("web_search")
    schema = ws.input_schema.model_json_schema() if ws else {}
    check(f"{mode}: tools: web_search with its input schema", "query" in schema.get("properties", {}), f"{list(by_name)} {schema}")

    async def invoke(name: str, args: dict) -> tuple[str, bool]:
        (result,) = await run_tools(tools, [MessageToolCallContent(id="1", tool_name=name, args=json.dumps(args))], {})
        if result.error is not None:
            return RequirementAgentToolErrorPrompt.render(RequirementAgentToolErrorPromptInput(reason=result.error.explain())), True
        return result.output.get_text_content(), False

    healthy, err = await invoke("web_search", {"query": "rust"})
    check(f"{mode}: healthy: results reach the model", "results" in healthy and not err, healthy)
    report_size(mode, body, healthy)
    note, _ = await invoke("legacy_search", {"query": "rust"})
    got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", "legacy_search is deprecated" in note, note)
    await invoke("demo_control", {"search_field": "excerpt"})
    drift, err = await invoke("web_search", {"query": "rust"})
    got_drift = check(f"{mode}: drift: the tool-error prompt with the failure text", err and DRIFT in drift, f"{err} {drift}")
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "beeai-framework `MCPTool`", f"{version('beeai-framework')} (mcp {version('mcp')})",
        "`structuredContent` as JSON when set, else the text blocks, each parsed as JSON where it is "
        "(`beeai_framework/tools/mcp/mcp.py`, `MCPTool._run` → `JSONToolOutput.get_text_content`); on `isError` a "
        "`ToolError` with the content as JSON, which the RequirementAgent hands the model inside its prompt "
        "\"The tool has failed; the error log is shown below. …\"")
    finish()


main(sys.argv[1])
