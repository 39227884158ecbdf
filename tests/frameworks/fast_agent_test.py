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
from contextlib import asynccontextmanager

from common import BUSY, DEFAULT, check, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version

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


@asynccontextmanager
async def connected(url: str):
    from mcp.types import CallToolRequest, CallToolRequestParams
    from mcp_agent.core.fastagent import FastAgent
    from mcp_agent.llm.providers.multipart_converter_openai import OpenAIConverter

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

            async def invoke(name: str, args: dict) -> dict:
                request = CallToolRequest(method="tools/call", params=CallToolRequestParams(name=f"demo-{name}", arguments=args))
                result = await agent._llm.call_tool(request, f"call-{name}")
                (message,) = OpenAIConverter.convert_function_results_to_openai([(f"call-{name}", result)])
                return {"text": message["content"], "error": False}

            yield {t.name.removeprefix("demo-"): {"description": t.description or "", "schema": t.inputSchema} for t in listed.tools}, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, fast-agent"
    body = healthy_body_chars(url)
    unparsed = Unparsed()
    transport = logging.getLogger("mcp.client.streamable_http")
    transport.addHandler(unparsed)
    async with connected(url) as (listing, invoke):
        out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    if mode == DEFAULT:
        async with connected(busy) as (_, invoke):
            out["throttle"] = await invoke(*BUSY)
    transport.removeHandler(unparsed)
    check(f"{label}: every event toolgate streamed parsed as a JSON-RPC message", not unparsed.messages, str(unparsed.messages))
    return judge(mode, label, out, body, url, misses=("structured",), marked=False)


def main(binary: str) -> None:
    v = version("fast-agent-mcp")
    label = "fast-agent `FastAgent`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
                  "the text blocks, one per line, as the tool message (`mcp_agent/llm/providers/multipart_converter_openai.py`, "
                  "`OpenAIConverter.convert_tool_result_to_openai`); `isError` is not passed on, so the drift reads as a failure "
                  "by its opening words", busy)
    signals_row(label, v, "names (prefixed with the server's), descriptions, input schemas as they are",
                "not passed on: the failure reads by its words")
    finish()


main(sys.argv[1])
