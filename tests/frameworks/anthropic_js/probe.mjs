// The Anthropic TypeScript SDK's MCP helpers (`mcpTools`, @anthropic-ai/sdk/helpers/beta/mcp)
// over the MCP SDK's Client, each tool run as the tool runner runs it (`runRunnableTool`):
// the outcome's content is the `tool_result` the model reads, `isError` its `is_error`.
// Prints what the model would be handed as one JSON object (tests/frameworks/common.py, `judge`).
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp [BUSY_URL]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mcpTools } from "@anthropic-ai/sdk/helpers/beta/mcp";
import { runRunnableTool } from "@anthropic-ai/sdk/lib/tools/BetaRunnableTool";

const connect = async (url) => {
  const client = new Client({ name: "toolgate-frameworks", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const tools = mcpTools((await client.listTools()).tools, client);
  return { client, tools: Object.fromEntries(tools.map((t) => [t.name, t])) };
};
// The `tool_result` content: a string, or blocks whose texts the model reads in order.
const text = (content) => (typeof content === "string" ? content : content.map((b) => b.text ?? JSON.stringify(b)).join("\n"));
const call = async (tools, name, input) => {
  const outcome = await runRunnableTool(tools[name], input, {});
  return { text: text(outcome.content), error: outcome.isError };
};
const demo = await connect(process.argv[2]);
const out = {
  tools: Object.fromEntries(Object.values(demo.tools).map((t) => [t.name, { description: t.description ?? "", schema: t.input_schema }])),
};
out.healthy = await call(demo.tools, "web_search", { query: "rust" });
out.note = await call(demo.tools, "legacy_search", { query: "rust" });
out.refused = await call(demo.tools, "web_search", { query: "rust", limit: 50 });
await call(demo.tools, "demo_control", { search_field: "excerpt" });
out.drift = await call(demo.tools, "web_search", { query: "rust" });
await demo.client.close();
if (process.argv[3]) {
  const busy = await connect(process.argv[3]);
  out.throttle = await call(busy.tools, "busy_search", { query: "rust" });
  await busy.client.close();
}
console.log(JSON.stringify(out));
