// Genkit's MCP client (@genkit-ai/mcp) through the probes. Each tool is the Genkit
// tool `getActiveTools` builds, run as `generate` runs a tool request; its output is what
// `generate` puts in the tool response part, which the model plugins send as JSON.
// Prints what the model would be handed as one JSON object (tests/frameworks/common.py,
// `judge`): the tools as the model is shown them, then each probe's answer.
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp [BUSY_URL]
import { genkit } from "genkit";
import { createMcpClient } from "@genkit-ai/mcp";

const ai = genkit({});
const connect = async (url, name) => {
  const client = createMcpClient({ name, mcpServer: { url } });
  await client.ready();
  const tools = Object.fromEntries((await client.getActiveTools(ai)).map((t) => [t.__action.name.replace(/^[^/]*\//, ""), t]));
  return { client, tools };
};
const call = async (tools, name, input) => {
  try {
    const output = await tools[name](input);
    return { text: typeof output === "string" ? output : JSON.stringify(output), error: false };
  } catch (e) {
    return { text: String(e?.message ?? e), error: true };
  }
};
const demo = await connect(process.argv[2], "demo");
const out = {
  tools: Object.fromEntries(Object.entries(demo.tools).map(([n, t]) => [n, { description: t.__action.description ?? "", schema: t.__action.inputJsonSchema ?? {} }])),
};
out.healthy = await call(demo.tools, "web_search", { query: "rust" });
out.note = await call(demo.tools, "legacy_search", { query: "rust" });
out.refused = await call(demo.tools, "web_search", { query: "rust", limit: 50 });
await call(demo.tools, "demo_control", { search_field: "excerpt" });
out.drift = await call(demo.tools, "web_search", { query: "rust" });
await demo.client.disable();
if (process.argv[3]) {
  const busy = await connect(process.argv[3], "busy");
  out.throttle = await call(busy.tools, "busy_search", { query: "rust" });
  await busy.client.disable();
}
console.log(JSON.stringify(out));
