// The Vercel AI SDK's MCP client (@ai-sdk/mcp) through the probes. Each tool is run as
// `generateText` runs it — `execute`, then the tool's `toModelOutput` — and what the model
// would be handed is printed as one JSON object (tests/frameworks/common.py, `judge`): the
// tools as the model is shown them (description and JSON Schema), then each probe's answer.
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp [BUSY_URL]
import { createMCPClient } from "@ai-sdk/mcp";

const connect = async (url) => {
  const client = await createMCPClient({ transport: { type: "http", url } });
  return { client, tools: await client.tools() };
};
const call = async (tools, name, input) => {
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
const demo = await connect(process.argv[2]);
const out = {
  tools: Object.fromEntries(Object.entries(demo.tools).map(([n, t]) => [n, { description: t.description ?? "", schema: t.inputSchema.jsonSchema }])),
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
