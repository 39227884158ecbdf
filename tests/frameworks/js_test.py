"""The JavaScript frameworks, each in its own directory with a pinned package-lock.json:
`node DIR/probe.mjs URL [variant]` runs the four probes through the framework's own tool
adapter and prints what the model would be handed. Run with any python3 (stdlib only).

The ones in `JUDGED` also go through the listing, refused-argument, once and throttle
probes (common.py, `judge`) and print a row of the second table.

Usage: python js_test.py vercel_ai|mastra|openai_agents_js|langchain_js|genkit|llamaindex_js|NAME in JUDGED path/to/toolgate
"""

import json
import os
import subprocess
import sys

from common import DEFAULT, DRIFT, check, finish, healthy_body_chars, judge, note_check, report_size, run_modes, signals_row, throttled

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


# name: (label, package whose version is shown, how, what of the tool list reaches the model,
# how a failure is marked, what the framework puts before a failure's text (or, as an
# int, within how many characters of the start the failure text is), whether the framework
# refuses `limit: 50` itself, the notes settings under which it is known to lose the note);
# each DIR/probe.mjs takes the busy URL as its second argument.
JUDGED = {
    "google_genai_js": ("Google Gen AI SDK for JavaScript `mcpToTool`", "@google/genai",
                        "the whole result as the function response (`@google/genai`, `McpCallableTool.callTool`): `_meta`, the "
                        "text blocks, `structuredContent` and `isError`, so the body twice; on `isError` the same object under "
                        "`error`, which opens with `_meta`'s `dev.toolgate/error` (the failure)",
                        "names, descriptions, input schemas as `parametersJsonSchema`", "the response's `error` member",
                        60, False, ()),
    "anthropic_js": ("Anthropic TypeScript SDK `mcpTools` (tool runner)", "@anthropic-ai/sdk",
                     "the text blocks as the `tool_result` content (`@anthropic-ai/sdk/helpers/beta/mcp`, `mcpTool`'s `run`; "
                     "`structuredContent` only when there is no content block); `isError` throws `ToolError` with the blocks, "
                     "which the tool runner sends as a `tool_result` with `is_error: true`",
                     "names, descriptions, input schemas as they are", "`is_error: true`", "", False, ("structured",)),
    "voltagent": ("VoltAgent `MCPConfiguration` (`@voltagent/core`)", "@voltagent/core",
                  "the whole result as the tool's output, JSON (`@voltagent/core`, `MCPClient.getAgentTools`' `execute` "
                  "returns `callTool`'s `{content: result}`' `content`, the whole `CallToolResult`): `_meta`, the text blocks, "
                  "`structuredContent` and `isError`, so the body twice; an `isError` result is an ordinary output, which "
                  "opens with `_meta`'s `dev.toolgate/error` (the failure); the input is checked against the tool's schema "
                  "(converted to zod) before the call",
                  "names, descriptions, input schemas converted to zod and back", "`isError: true` inside the output",
                  60, True, ()),
    "agent_kit": ("Inngest AgentKit (`@inngest/agent-kit`)", "@inngest/agent-kit",
                  "the content blocks as JSON, `{\"data\": [{\"type\": \"text\", \"text\": …}]}` (`@inngest/agent-kit`, "
                  "`Agent.listMCPTools`' handler returns `result.content`, which `invokeTools` wraps in `{data}` and the "
                  "OpenAI adapter sends as JSON): `structuredContent`, `_meta` and `isError` are dropped, so the drift reads "
                  "as a failure by its opening words, after `{\"data\":[{\"type\":\"text\",\"text\":\"`; but no request "
                  "reaches a model while an MCP server is attached: the adapters' zod 4 `toJSONSchema` throws on the zod 3 "
                  "schemas `listMCPTools` builds (\"Cannot read properties of undefined (reading 'def')\"), a known bug of this "
                  "release; the columns are what the model would read once it is fixed",
                  "**none**: building the request throws on every MCP tool's schema", "not passed on: the failure reads by its words",
                  '{"data":[{"type":"text","text":"', False, ("structured",)),
}

# The frameworks whose tool listing is known to throw before any request: the error, asserted.
LISTING_THROWS = {"agent_kit": "reading 'def'"}


def judged_probe(url: str, mode: str, name: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, {name}"
    body = healthy_body_chars(url)
    args = [url] + ([busy] if mode == DEFAULT else [])
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
    opening = JUDGED[name][5]
    return judge(mode, label, out, body, url, opening=opening if isinstance(opening, str) else "",
                 near_start=opening if isinstance(opening, int) else 0, refused_by_framework=JUDGED[name][6], misses=JUDGED[name][7])


def main_judged(name: str, binary: str) -> None:
    label, package, how, listing, marked, *_ = JUDGED[name]
    version = json.load(open(os.path.join(HERE, name, "node_modules", *package.split("/"), "package.json")))["version"]
    with throttled(binary) as busy:
        run_modes(binary, judged_probe, label, version, how, name, busy)
    signals_row(label, version, listing, marked)
    finish()


def main(name: str, binary: str) -> None:
    if name in JUDGED:
        return main_judged(name, binary)
    label, package, variants, thrown, how = FRAMEWORKS[name]
    version = json.load(open(os.path.join(HERE, name, "node_modules", *package.split("/"), "package.json")))["version"]
    for variant, shown in variants:
        run_modes(binary, probe, label, f"{version}{', ' + shown if shown else ''}", how, name, variant, thrown, ())
    finish()


main(sys.argv[1], sys.argv[2])
