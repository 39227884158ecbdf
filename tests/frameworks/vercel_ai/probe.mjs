// The Vercel AI SDK's MCP client (@ai-sdk/mcp) through the four probes. Each tool is run as
// `generateText` runs it — `execute`, then the tool's `toModelOutput` — and what the model
// would be handed is printed as one JSON object. Usage: node probe.mjs http://127.0.0.1:PORT/mcp
import { createMCPClient } from "@ai-sdk/mcp";

const client = await createMCPClient({ transport: { type: "http", url: process.argv[2] } });
const tools = await client.tools();
const sent = [];
const call = async (name, input) => {
  sent.push(input);
  try {
    const output = await tools[name].execute(input, { toolCallId: "1", messages: [] });
    const model = await tools[name].toModelOutput({ toolCallId: "1", input, output });
    const text = model.type === "content" ? model.value.map((p) => p.text ?? JSON.stringify(p)).join("\n") : JSON.stringify(model.value);
    // generateText reports a tool error only when execute throws; an isError result is an output.
    return { text, error: false };
  } catch (e) {
    return { text: String(e), error: true };
  }
};
const out = {
  tools: Object.fromEntries(Object.entries(tools).map(([n, t]) => [n, Object.keys(t.inputSchema.jsonSchema.properties ?? {})])),
};
out.healthy = await call("web_search", { query: "rust" });
out.note = await call("legacy_search", { query: "rust" });
await call("demo_control", { search_field: "excerpt" });
out.drift = await call("web_search", { query: "rust" });
out.sent = sent;
await client.close();
console.log(JSON.stringify(out));
