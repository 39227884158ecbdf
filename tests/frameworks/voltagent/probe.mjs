// VoltAgent's MCPConfiguration (@voltagent/core) through the probes: the tools
// `getTools()` gives an agent, each run as the agent runs it (`execute`); the output is
// handed the model as the AI SDK hands it a tool's output that is not a string, as JSON
// (the tool returns the whole CallToolResult).
// Prints what the model would be handed as one JSON object (tests/frameworks/common.py, `judge`).
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp [BUSY_URL]
import { MCPConfiguration } from "@voltagent/core";
import { z } from "zod";

const connect = async (url) => {
  const mcp = new MCPConfiguration({ servers: { demo: { type: "streamable-http", url } } });
  const tools = Object.fromEntries((await mcp.getTools()).map((t) => [t.name.replace(/^demo_/, ""), t]));
  return { mcp, tools };
};
const call = async (tools, name, args) => {
  // The AI SDK under the agent checks the model's input against the tool's schema first,
  // and hands the model the failure as a tool error.
  const input = tools[name].parameters.safeParse(args);
  if (!input.success) return { text: `Invalid input for tool ${name}: ${input.error.message}`, error: true };
  try {
    const output = await tools[name].execute(args, {});
    return { text: typeof output === "string" ? output : JSON.stringify(output), error: false };
  } catch (e) {
    // The agent hands the model the error's message as a tool error.
    return { text: String(e?.message ?? e), error: true };
  }
};
const demo = await connect(process.argv[2]);
const out = {
  tools: Object.fromEntries(Object.entries(demo.tools).map(([n, t]) => [n, { description: t.description ?? "", schema: z.toJSONSchema(t.parameters) }])),
};
out.healthy = await call(demo.tools, "web_search", { query: "rust" });
out.note = await call(demo.tools, "legacy_search", { query: "rust" });
out.refused = await call(demo.tools, "web_search", { query: "rust", limit: 50 });
await call(demo.tools, "demo_control", { search_field: "excerpt" });
out.drift = await call(demo.tools, "web_search", { query: "rust" });
await demo.mcp.disconnect();
if (process.argv[3]) {
  const busy = await connect(process.argv[3]);
  out.throttle = await call(busy.tools, "busy_search", { query: "rust" });
  await busy.mcp.disconnect();
}
console.log(JSON.stringify(out));
