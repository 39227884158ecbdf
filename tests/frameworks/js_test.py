"""The JavaScript frameworks, each in its own directory with a pinned package-lock.json:
`node DIR/probe.mjs URL [BUSY_URL] [variant]` runs the probes through the framework's own
tool adapter and prints what the model would be handed as one JSON object: the tools as
the model is shown them, then each probe's answer (common.py, `judge`). Every framework
prints a row of both tables. Run with any python3 (stdlib only).

Usage: python js_test.py NAME path/to/toolgate   (NAME a key of `FRAMEWORKS`)
"""

import json
import os
import subprocess
import sys
from typing import NamedTuple

from common import DEFAULT, check, finish, healthy_body_chars, judge, run_modes, signals_row, throttled

HERE = os.path.dirname(os.path.abspath(__file__))


class Framework(NamedTuple):
    label: str
    package: str  # whose version is shown
    how: str  # the first table's last column
    listing: str  # what of the tool list reaches the model (the second table)
    marked: str  # how a failure is marked (the second table)
    # What the framework puts before a failure's text, or (an int) within how many
    # characters of the start the failure text is.
    opening: str | int = ""
    drift_marked: bool | None = None  # whether the drift's answer is marked as a failure (asserted)
    refused_by_framework: bool = False  # the framework refuses `limit: 50` itself
    refusal_named: bool = True  # …and says that `limit` is what is wrong
    # The notes settings under which it is known to lose the note (by variant, where they differ).
    misses: tuple[str, ...] | dict[str, tuple[str, ...]] = ()
    variants: tuple[tuple[str, str], ...] = (("", ""),)  # (argument to probe.mjs, as shown in the table)


FRAMEWORKS = {
    "vercel_ai": Framework(
        "Vercel AI SDK (`@ai-sdk/mcp`)", "@ai-sdk/mcp",
        "the text blocks (`@ai-sdk/mcp`, `tools()` → `execute`, then `mcpToModelOutput`); an `isError` result is "
        "returned as an ordinary output, so the drift reads as a failure by its opening words",
        "names, descriptions, input schemas as they are", "not passed on: the failure reads by its words",
        drift_marked=False, misses=("structured",)),
    "mastra": Framework(
        "Mastra `MCPClient` (`@mastra/mcp`)", "@mastra/mcp",
        "the text blocks, joined (`@mastra/mcp`, `buildToolFromListEntry`'s `execute` returns `structuredContent`, "
        "`createStructuredToolToModelOutput` hands the model the content text); `isError` throws "
        "(`onToolError: 'throw'`, the default) with the text; the input is checked against the tool's schema before the call",
        "names, descriptions, input schemas converted to zod and back", "a thrown tool error",
        drift_marked=True, refused_by_framework=True, misses=("structured",)),
    "openai_agents_js": Framework(
        "OpenAI Agents SDK for JavaScript", "@openai/agents",
        "the text blocks; with `useStructuredContent` the `structuredContent` only, on success "
        "(`@openai/agents-core` `mcp.mjs`, `mcpToFunctionTool` → `invoke`); `isError` is not passed on",
        "names, descriptions, input schemas as they are", "not passed on: the failure reads by its words",
        drift_marked=False, misses={"": ("structured",), "structured": ("text",)},
        variants=(("", "default"), ("structured", "`useStructuredContent: true`"))),
    "langchain_js": Framework(
        "LangChain.js `MultiServerMCPClient` (`@langchain/mcp-adapters`)", "@langchain/mcp-adapters",
        "one text block with `structuredContent` or `_meta` beside it becomes the JSON of "
        "`{type, text, structuredContent, meta}` (`@langchain/mcp-adapters` `tools.js`, `_convertCallToolResult`, "
        "then `@langchain/core`'s `_formatToolOutput` stringifies what is not a string or a list of blocks): "
        "the body twice, the text JSON-escaped, and `_meta`; several text blocks go as blocks, without either; "
        "`isError` throws `ToolException`, which LangGraph's `ToolNode` hands the model as a `status: 'error'` message "
        "\"Error: MCP tool 'web_search' on server 'demo' returned an error: web_search failed: …\"; the input is "
        "checked against the tool's schema before the call",
        "names, descriptions, input schemas as they are", "`status: 'error'`",
        opening=70, drift_marked=True, refused_by_framework=True, refusal_named=False),
    "genkit": Framework(
        "Genkit (`@genkit-ai/mcp`)", "@genkit-ai/mcp",
        "`structuredContent` when set, else the text blocks joined (parsed as JSON when they look like it), sent "
        "as the tool response's JSON (`@genkit-ai/mcp` `util/tools.mjs`, `processResult`); on `isError` the output "
        "`{\"error\": text}`, an ordinary tool response, so the drift reads as a failure by its words; the input is "
        "checked against the tool's schema before the call",
        "names, descriptions, input schemas as they are", "`{\"error\": …}`, an ordinary tool response",
        opening='{"error":"', drift_marked=False, refused_by_framework=True, misses=("text",)),
    "llamaindex_js": Framework(
        "LlamaIndex.TS `mcp()` (`@llamaindex/tools`)", "@llamaindex/tools",
        "the whole result — `_meta`, the text blocks, `structuredContent` and `isError` — as "
        "`JSON.stringify(…, null, 2)` with every pair of double quotes dropped (`@llamaindex/tools`, `MCPClient.tools()` "
        "returns the raw result; `@llamaindex/core` `callTool`, then `stringifyJSONToMessageContent`): the body "
        "twice, the text block's JSON mangled; the result is not thrown, so the tool message is not marked as an "
        "error, but the text opens with `_meta`'s `dev.toolgate/error` (the failure) and ends `isError: true`",
        "names, descriptions, input schemas as they are", "`isError: true` inside the output",
        opening=60, drift_marked=False),
    "google_genai_js": Framework(
        "Google Gen AI SDK for JavaScript `mcpToTool`", "@google/genai",
        "the whole result as the function response (`@google/genai`, `McpCallableTool.callTool`): `_meta`, the "
        "text blocks, `structuredContent` and `isError`, so the body twice; on `isError` the same object under "
        "`error`, which opens with `_meta`'s `dev.toolgate/error` (the failure)",
        "names, descriptions, input schemas as `parametersJsonSchema`", "the response's `error` member",
        opening=60, drift_marked=True),
    "anthropic_js": Framework(
        "Anthropic TypeScript SDK `mcpTools` (tool runner)", "@anthropic-ai/sdk",
        "the text blocks as the `tool_result` content (`@anthropic-ai/sdk/helpers/beta/mcp`, `mcpTool`'s `run`; "
        "`structuredContent` only when there is no content block); `isError` throws `ToolError` with the blocks, "
        "which the tool runner sends as a `tool_result` with `is_error: true`",
        "names, descriptions, input schemas as they are", "`is_error: true`",
        drift_marked=True, misses=("structured",)),
    "voltagent": Framework(
        "VoltAgent `MCPConfiguration` (`@voltagent/core`)", "@voltagent/core",
        "the whole result as the tool's output, JSON (`@voltagent/core`, `MCPClient.getAgentTools`' `execute` "
        "returns `callTool`'s `{content: result}`' `content`, the whole `CallToolResult`): `_meta`, the text blocks, "
        "`structuredContent` and `isError`, so the body twice; an `isError` result is an ordinary output, which "
        "opens with `_meta`'s `dev.toolgate/error` (the failure); the input is checked against the tool's schema "
        "(converted to zod) before the call",
        "names, descriptions, input schemas converted to zod and back", "`isError: true` inside the output",
        opening=60, drift_marked=False, refused_by_framework=True),
    "agent_kit": Framework(
        "Inngest AgentKit (`@inngest/agent-kit`)", "@inngest/agent-kit",
        "the content blocks as JSON, `{\"data\": [{\"type\": \"text\", \"text\": …}]}` (`@inngest/agent-kit`, "
        "`Agent.listMCPTools`' handler returns `result.content`, which `invokeTools` wraps in `{data}` and the "
        "OpenAI adapter sends as JSON): `structuredContent`, `_meta` and `isError` are dropped, so the drift reads "
        "as a failure by its opening words, after `{\"data\":[{\"type\":\"text\",\"text\":\"`; but no request "
        "reaches a model while an MCP server is attached: the adapters' zod 4 `toJSONSchema` throws on the zod 3 "
        "schemas `listMCPTools` builds (\"Cannot read properties of undefined (reading 'def')\"), a known bug of this "
        "release; the columns are what the model would read once it is fixed",
        "**none**: building the request throws on every MCP tool's schema", "not passed on: the failure reads by its words",
        opening='{"data":[{"type":"text","text":"', drift_marked=False, misses=("structured",)),
    "beeai_js": Framework(
        "BeeAI Framework for TypeScript `MCPTool`", "beeai-framework",
        "the whole result as JSON (`beeai-framework` `tools/mcp`, `MCPTool._run` returns `MCPToolOutput`, a "
        "`JSONToolOutput`, whose `getTextContent()` is `JSON.stringify(result)`, the `ToolCallingAgent`'s tool message): "
        "the text blocks, `structuredContent`, `_meta` and `isError`, so the body twice; an `isError` result is an "
        "ordinary output, which opens with `_meta`'s `dev.toolgate/error` (the failure); the input is checked against "
        "the tool's schema before the call and a refusal is an `error-text` tool message",
        "names, descriptions, input schemas as they are", "`isError: true` inside the output",
        opening=60, drift_marked=False, refused_by_framework=True),
}

# The frameworks whose tool listing is known to throw before any request: the error, asserted.
LISTING_THROWS = {"agent_kit": "reading 'def'"}


def probe(url: str, mode: str, name: str, variant: str, busy: str) -> tuple[bool, bool]:
    fw = FRAMEWORKS[name]
    label = f"{mode}, {name}{', ' + variant if variant else ''}"
    body = healthy_body_chars(url)
    args = [url, busy if mode == DEFAULT else "", variant]
    # NODE_ENV=production: VoltAgent otherwise starts refreshing a model registry over the
    # network at import.
    done = subprocess.run(["node", os.path.join(HERE, name, "probe.mjs"), *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NODE_ENV": "production"})
    if not check(f"{label}: node {name}/probe.mjs ran", done.returncode == 0, done.stderr[-600:]):
        return False, False
    # Some frameworks log to stdout: the probe's JSON is its last line.
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["busy_url"] = busy
    if name in LISTING_THROWS:
        check(f"{label}: tools: building the model's request throws (known to)", LISTING_THROWS[name] in out.get("listing_error", ""),
              f"it now does not: update the table ({out.get('listing_error')})")
    for key in ("drift", "refused", "throttle"):
        # The failure text sits JSON-escaped inside the framework's JSON.
        if key in out:
            out[key]["text"] = out[key]["text"].replace('\\"', '"')
    return judge(mode, label, out, body, url, opening=fw.opening if isinstance(fw.opening, str) else "",
                 near_start=fw.opening if isinstance(fw.opening, int) else 0, refused_by_framework=fw.refused_by_framework,
                 refusal_named=fw.refusal_named, misses=fw.misses if isinstance(fw.misses, tuple) else fw.misses[variant],
                 marked=fw.drift_marked)


def main(name: str, binary: str) -> None:
    fw = FRAMEWORKS[name]
    version = json.load(open(os.path.join(HERE, name, "node_modules", *fw.package.split("/"), "package.json")))["version"]
    for variant, shown in fw.variants:
        shown = f"{version}{', ' + shown if shown else ''}"
        # Each variant its own throttled toolgate: a second call of the first would be refused
        # without reaching the upstream (the wait it was told is not over).
        with throttled(binary) as busy:
            run_modes(binary, probe, fw.label, shown, fw.how, name, variant, busy)
        signals_row(fw.label, shown, fw.listing, fw.marked)
    finish()


main(sys.argv[1], sys.argv[2])
