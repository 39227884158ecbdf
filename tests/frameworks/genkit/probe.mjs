// Genkit's MCP client (@genkit-ai/mcp) through the four probes. Each tool is the Genkit
// tool `getActiveTools` builds, run as `generate` runs a tool request; its output is what
// `generate` puts in the tool response part, which the model plugins send as JSON.
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp
import { genkit } from "genkit";
import { createMcpClient } from "@genkit-ai/mcp";

const ai = genkit({});
const client = createMcpClient({ name: "demo", mcpServer: { url: process.argv[2] } });
await client.ready();
const tools = Object.fromEntries((await client.getActiveTools(ai)).map((t) => [t.__action.name.replace(/^[^/]*\//, ""), t]));
const call = async (name, input) => {
  try {
    const output = await tools[name](input);
    return { text: typeof output === "string" ? output : JSON.stringify(output), error: false };
  } catch (e) {
    return { text: String(e?.message ?? e), error: true };
  }
};
const out = {
  tools: Object.fromEntries(Object.entries(tools).map(([n, t]) => [n, Object.keys(t.__action.inputJsonSchema?.properties ?? {})])),
};
out.healthy = await call("web_search", { query: "rust" });
out.note = await call("legacy_search", { query: "rust" });
await call("demo_control", { search_field: "excerpt" });
out.drift = await call("web_search", { query: "rust" });
await client.disable();
console.log(JSON.stringify(out));
