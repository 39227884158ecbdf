// BeeAI Framework for TypeScript's MCPTool (beeai-framework/tools/mcp) through the probes.
// Each tool is run as the ToolCallingAgent runs it — `tool.run(input)`, whose output's
// `getTextContent()` is the tool message; a ToolError (the input refused by the tool's own
// schema check, or the call failing) becomes a tool message of type "error-text" with
// `e.explain()` — and what the model would be handed is printed as one JSON object
// (tests/frameworks/common.py, `judge`): the tools as the model is shown them (description
// and `getInputJsonSchema()`), then each probe's answer.
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp [BUSY_URL]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MCPTool } from "beeai-framework/tools/mcp";
import { ToolError } from "beeai-framework/tools/base";

const connect = async (url) => {
  const client = new Client({ name: "toolgate-frameworks", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const tools = Object.fromEntries((await MCPTool.fromClient(client)).map((t) => [t.name, t]));
  return { client, tools };
};
const call = async (tools, name, input) => {
  try {
    const output = await tools[name].run(input);
    return { text: output.getTextContent(), error: false };
  } catch (e) {
    if (e instanceof ToolError) return { text: e.explain(), error: true };
    throw e;
  }
};
const demo = await connect(process.argv[2]);
const out = { tools: {} };
for (const [n, t] of Object.entries(demo.tools)) {
  out.tools[n] = { description: t.description ?? "", schema: await t.getInputJsonSchema() };
}
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
