// The Google Gen AI SDK for JavaScript's `mcpToTool` over the MCP SDK's Client: the
// function declarations `tool()` gives the model, and the `functionResponse` parts
// `callTool` builds (what automatic function calling sends back), whose `response` is
// the whole result, or `{error: result}` on `isError`. Prints what the model would be
// handed as one JSON object (tests/frameworks/common.py, `judge`).
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp [BUSY_URL]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mcpToTool } from "@google/genai";

const connect = async (url) => {
  const client = new Client({ name: "toolgate-frameworks", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, tool: mcpToTool(client) };
};
const call = async (tool, name, args) => {
  const [part] = await tool.callTool([{ name, args }]);
  const response = part.functionResponse.response;
  return { text: JSON.stringify(response), error: "error" in response };
};
const demo = await connect(process.argv[2]);
const declarations = (await demo.tool.tool()).functionDeclarations;
const out = {
  tools: Object.fromEntries(declarations.map((d) => [d.name, { description: d.description ?? "", schema: d.parametersJsonSchema ?? d.parameters }])),
};
out.healthy = await call(demo.tool, "web_search", { query: "rust" });
out.note = await call(demo.tool, "legacy_search", { query: "rust" });
out.refused = await call(demo.tool, "web_search", { query: "rust", limit: 50 });
await call(demo.tool, "demo_control", { search_field: "excerpt" });
out.drift = await call(demo.tool, "web_search", { query: "rust" });
await demo.client.close();
if (process.argv[3]) {
  const busy = await connect(process.argv[3]);
  out.throttle = await call(busy.tool, "busy_search", { query: "rust" });
  await busy.client.close();
}
console.log(JSON.stringify(out));
