"""The JavaScript frameworks, each in its own directory with a pinned package-lock.json:
`node DIR/probe.mjs URL [variant]` runs the four probes through the framework's own tool
adapter and prints what the model would be handed. Run with any python3 (stdlib only).

Usage: python js_test.py vercel_ai|mastra|openai_agents_js|langchain_js|genkit|llamaindex_js path/to/toolgate
"""

import json
import os
import subprocess
import sys

from common import DRIFT, check, finish, healthy_body_chars, note_check, report_size, run_modes

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (label, package whose version is shown, variants, the drift arrives thrown?, how);
# the drift text is expected to open the output, after what `DRIFT_OPENING` names.
FRAMEWORKS = {
    "vercel_ai": ("Vercel AI SDK (`@ai-sdk/mcp`)", "@ai-sdk/mcp", [("", "")], False,
                  "the text blocks (`@ai-sdk/mcp`, `tools()` → `execute`, then `mcpToModelOutput`); an `isError` result is "
                  "returned as an ordinary output, so the drift reads as a failure by its opening words"),
    "mastra": ("Mastra `MCPClient` (`@mastra/mcp`)", "@mastra/mcp", [("", "")], True,
               "the text blocks, joined (`@mastra/mcp`, `buildToolFromListEntry`'s `execute` returns `structuredContent`, "
               "`createStructuredToolToModelOutput` hands the model the content text); `isError` throws "
               "(`onToolError: 'throw'`, the default) with the text"),
    "openai_agents_js": ("OpenAI Agents SDK for JavaScript", "@openai/agents", [("", "default"), ("structured", "`useStructuredContent: true`")], False,
                         "the text blocks; with `useStructuredContent` the `structuredContent` only, on success "
                         "(`@openai/agents-core` `mcp.mjs`, `mcpToFunctionTool` → `invoke`); `isError` is not passed on"),
    "langchain_js": ("LangChain.js `MultiServerMCPClient` (`@langchain/mcp-adapters`)", "@langchain/mcp-adapters", [("", "")], True,
                     "one text block with `structuredContent` or `_meta` beside it becomes the JSON of "
                     "`{type, text, structuredContent, meta}` (`@langchain/mcp-adapters` `tools.js`, `_convertCallToolResult`, "
                     "then `@langchain/core`'s `_formatToolOutput` stringifies what is not a string or a list of blocks): "
                     "the body twice, the text JSON-escaped, and `_meta`; several text blocks go as blocks, without either; "
                     "`isError` throws `ToolException`, which LangGraph's `ToolNode` hands the model as a `status: 'error'` message "
                     "\"Error: MCP tool 'web_search' on server 'demo' returned an error: web_search failed: …\""),
    "genkit": ("Genkit (`@genkit-ai/mcp`)", "@genkit-ai/mcp", [("", "")], False,
               "`structuredContent` when set, else the text blocks joined (parsed as JSON when they look like it), sent "
               "as the tool response's JSON (`@genkit-ai/mcp` `util/tools.mjs`, `processResult`); on `isError` the output "
               "`{\"error\": text}`, an ordinary tool response, so the drift reads as a failure by its words"),
    "llamaindex_js": ("LlamaIndex.TS `mcp()` (`@llamaindex/tools`)", "@llamaindex/tools", [("", "")], False,
                      "the whole result — `_meta`, the text blocks, `structuredContent` and `isError` — as "
                      "`JSON.stringify(…, null, 2)` with every pair of double quotes dropped (`@llamaindex/tools`, `MCPClient.tools()` "
                      "returns the raw result; `@llamaindex/core` `callTool`, then `stringifyJSONToMessageContent`): the body "
                      "twice, the text block's JSON mangled; the result is not thrown, so the tool message is not marked as an "
                      "error, but the text opens with `_meta`'s `dev.toolgate/error` (the failure) and ends `isError: true`"),
}

# What a framework puts before the failure text it hands the model.
DRIFT_OPENING = {"langchain_js": "Error: MCP tool 'web_search' on server 'demo' returned an error: ", "genkit": '{"error":"'}
# The frameworks that hand the model the whole result: the failure text must be within
# this many characters of the start (toolgate's `_meta` opens with it).
DRIFT_NEAR_START = {"llamaindex_js": 60}


def opens_with_failure(name: str, text: str) -> bool:
    if name in DRIFT_NEAR_START:
        return DRIFT in text[:DRIFT_NEAR_START[name] + len(DRIFT)]
    return text.removeprefix(DRIFT_OPENING.get(name, "Error: ")).startswith(DRIFT)


def probe(url: str, mode: str, name: str, variant: str, thrown: bool, misses: tuple[str, ...]) -> tuple[bool, bool]:
    label = f"{mode}{', ' + variant if variant else ''}"
    body = healthy_body_chars(url)
    done = subprocess.run(["node", os.path.join(HERE, name, "probe.mjs"), url, variant], capture_output=True, text=True, timeout=120)
    if not check(f"{label}: node {name}/probe.mjs ran", done.returncode == 0, done.stderr[-600:]):
        return False, False
    out = json.loads(done.stdout)
    check(f"{label}: tools: web_search with its input schema", "query" in out["tools"].get("web_search", []), str(out["tools"]))
    healthy = out["healthy"]
    check(f"{label}: healthy: results reach the model", "results" in healthy["text"] and not healthy["error"], str(healthy)[:300])
    note = out["note"]["text"]
    got_note = note_check(mode, f"{label}: note: the deprecation reaches the model", "legacy_search is deprecated" in note, note, misses)
    drift = out["drift"]
    got_drift = check(f"{label}: drift: the model reads the failure" + (" as a tool error" if thrown else " opening its output"),
                      drift["error"] == thrown and opens_with_failure(name, drift["text"]),
                      str(drift)[:400])
    report_size(mode, body, healthy["text"], label)
    return got_note, got_drift


def main(name: str, binary: str) -> None:
    label, package, variants, thrown, how = FRAMEWORKS[name]
    version = json.load(open(os.path.join(HERE, name, "node_modules", *package.split("/"), "package.json")))["version"]
    for variant, shown in variants:
        run_modes(binary, probe, label, f"{version}{', ' + shown if shown else ''}", how, name, variant, thrown, ())
    finish()


main(sys.argv[1], sys.argv[2])
