// LlamaIndex.TS's MCP client (@llamaindex/tools `mcp()`) through the probes. Each tool
// is run as an LLMAgent's step runs it — `callTool` from @llamaindex/core/agent, whose
// output becomes the tool message's content through `stringifyJSONToMessageContent` — and
// what the model would be handed is printed as one JSON object (tests/frameworks/common.py,
// `judge`): the tools as the model is shown them, then each probe's answer.
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp [BUSY_URL]
import { callTool } from "@llamaindex/core/agent";
import { stringifyJSONToMessageContent } from "@llamaindex/core/utils";
import { mcp } from "@llamaindex/tools";

const connect = async (url) => {
  const client = mcp({ url });
  return { client, tools: Object.fromEntries((await client.tools()).map((t) => [t.metadata.name, t])) };
};
// callTool reports a failure through the logger and returns it as an output marked isError.
const logger = { log() {}, warn() {}, error() {} };
const call = async (tools, name, input) => {
  const output = await callTool(tools[name], { id: "1", name, input }, logger);
  return { text: stringifyJSONToMessageContent(output.output), error: output.isError };
};
const demo = await connect(process.argv[2]);
const out = {
  tools: Object.fromEntries(Object.entries(demo.tools).map(([n, t]) => [n, { description: t.metadata.description ?? "", schema: t.metadata.parameters ?? {} }])),
};
out.healthy = await call(demo.tools, "web_search", { query: "rust" });
out.note = await call(demo.tools, "legacy_search", { query: "rust" });
out.refused = await call(demo.tools, "web_search", { query: "rust", limit: 50 });
await call(demo.tools, "demo_control", { search_field: "excerpt" });
out.drift = await call(demo.tools, "web_search", { query: "rust" });
await demo.client.cleanup();
if (process.argv[3]) {
  const busy = await connect(process.argv[3]);
  out.throttle = await call(busy.tools, "busy_search", { query: "rust" });
  await busy.client.cleanup();
}
console.log(JSON.stringify(out));
