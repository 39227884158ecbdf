// LlamaIndex.TS's MCP client (@llamaindex/tools `mcp()`) through the four probes. Each tool
// is run as an LLMAgent's step runs it — `callTool` from @llamaindex/core/agent, whose
// output becomes the tool message's content through `stringifyJSONToMessageContent` — and
// what the model would be handed is printed as one JSON object.
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp
import { callTool } from "@llamaindex/core/agent";
import { stringifyJSONToMessageContent } from "@llamaindex/core/utils";
import { mcp } from "@llamaindex/tools";

const client = mcp({ url: process.argv[2] });
const tools = Object.fromEntries((await client.tools()).map((t) => [t.metadata.name, t]));
// callTool reports a failure through the logger and returns it as an output marked isError.
const logger = { log() {}, warn() {}, error() {} };
const call = async (name, input) => {
  const output = await callTool(tools[name], { id: "1", name, input }, logger);
  return { text: stringifyJSONToMessageContent(output.output), error: output.isError };
};
const out = {
  tools: Object.fromEntries(Object.entries(tools).map(([n, t]) => [n, Object.keys(t.metadata.parameters?.properties ?? {})])),
};
out.healthy = await call("web_search", { query: "rust" });
out.note = await call("legacy_search", { query: "rust" });
await call("demo_control", { search_field: "excerpt" });
out.drift = await call("web_search", { query: "rust" });
await client.cleanup();
console.log(JSON.stringify(out));
