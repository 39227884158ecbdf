"""fast-agent (`fast-agent-mcp`): an agent of a `FastAgent` app given the server in its
settings, a tool called as the OpenAI provider's loop calls it
(`mcp_agent/llm/providers/augmented_llm_openai.py`, `OpenAIAugmentedLLM.generate`:
`AugmentedLLM.call_tool` with a `CallToolRequest`, then
`OpenAIConverter.convert_function_results_to_openai`, in
`mcp_agent/llm/providers/multipart_converter_openai.py`); the tool message's `content` is
what the model reads. The agent's own model is `passthrough` (no model runs).

fast-agent-mcp 0.2.36 is the last release for Python 3.11 (later ones need 3.12).

Its `mcp` 1.10.1 parses every server-sent event's data as a JSON-RPC message, the
rule before 2025-11-25, and logs "Error parsing SSE message" for one it cannot parse;
the driver asserts that toolgate's streams give it none.

Usage: python fast_agent_test.py path/to/toolgate
"""

import logging
import os
import sys
import tempfile

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version

SETTINGS = """
logger: {{ type: none, progress_display: false, show_chat: false, show_tools: false }}
mcp:
  servers:
    demo: {{ transport: http, url: "{url}" }}
"""


class Unparsed(logging.Handler):
    """The events of toolgate's streams the client's transport could not parse."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from mcp.types import CallToolRequest, CallToolRequestParams
    from mcp_agent.core.fastagent import FastAgent
    from mcp_agent.llm.providers.multipart_converter_openai import OpenAIConverter

    body = healthy_body_chars(url)
    unparsed = Unparsed()
    transport = logging.getLogger("mcp.client.streamable_http")
    transport.addHandler(unparsed)
    with tempfile.TemporaryDirectory(prefix="toolgate-fast-agent-") as work:
        config = os.path.join(work, "fastagent.config.yaml")
        with open(config, "w") as f:
            f.write(SETTINGS.format(url=url))
        fast = FastAgent("toolgate-frameworks", config_path=config, parse_cli_args=False)

        @fast.agent(name="probe", servers=["demo"], model="passthrough")
        async def _probe() -> None:
            pass

        async with fast.run() as app:
            agent = app["probe"]
            # The model sees every tool namespaced by its server: "demo-web_search".
            listed = await agent.list_tools()
            schemas = {t.name.removeprefix("demo-"): t.inputSchema for t in listed.tools}
            check(f"{mode}: tools: web_search with its input schema", "query" in schemas.get("web_search", {}).get("properties", {}),
                  f"{list(schemas)}")

            async def invoke(name: str, args: dict) -> str:
                request = CallToolRequest(method="tools/call", params=CallToolRequestParams(name=f"demo-{name}", arguments=args))
                result = await agent._llm.call_tool(request, f"call-{name}")
                (message,) = OpenAIConverter.convert_function_results_to_openai([(f"call-{name}", result)])
                return message["content"]

            healthy = await invoke("web_search", {"query": "rust"})
            check(f"{mode}: healthy: results reach the model", "results" in healthy, healthy)
            report_size(mode, body, healthy)
            note = await invoke("legacy_search", {"query": "rust"})
            got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note, misses=("structured",))
            await invoke("demo_control", {"search_field": "excerpt"})
            drift = await invoke("web_search", {"query": "rust"})
            got_drift = check(f"{mode}: drift: the text opens with the failure", drift.startswith(DRIFT), drift)
    transport.removeHandler(unparsed)
    check(f"{mode}: every event toolgate streamed parsed as a JSON-RPC message", not unparsed.messages, str(unparsed.messages))
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "fast-agent `FastAgent`", f"{version('fast-agent-mcp')} (mcp {version('mcp')})",
        "the text blocks, one per line, as the tool message (`mcp_agent/llm/providers/multipart_converter_openai.py`, "
        "`OpenAIConverter.convert_tool_result_to_openai`); `isError` is not passed on, so the drift reads as a failure "
        "by its opening words")
    finish()


main(sys.argv[1])
