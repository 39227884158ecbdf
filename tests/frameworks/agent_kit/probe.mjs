// Inngest AgentKit (@inngest/agent-kit): an agent's MCP tools (`initMCP`), each run as
// `Agent.invokeTools` runs it — the handler returns the result's content blocks, wrapped as
// `{data: …}` (or `{error: …}` when it throws) — and handed the model as the OpenAI adapter
// hands a tool result that is not a string, as JSON. The listing is what that adapter sends:
// the name, the description, and the zod schema as JSON Schema. Prints what the model would
// be handed as one JSON object (tests/frameworks/common.py, `judge`).
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp [BUSY_URL]
import { createAgent } from "@inngest/agent-kit";
import { z } from "zod";

const connect = async (url) => {
  const agent = createAgent({ name: "probe", system: "", mcpServers: [{ name: "demo", transport: { type: "streamable-http", url } }] });
  await agent.initMCP();
  return agent;
};
const call = async (agent, name, input) => {
  const tool = agent.tools.get(`demo-${name}`);
  const wrapped = await Promise.resolve(tool.handler(input, { agent }))
    .then((r) => ({ data: r === undefined ? `${tool.name} successfully executed` : r }))
    .catch((err) => ({ error: { message: String(err?.message ?? err) } }));
  return { text: JSON.stringify(wrapped), error: "error" in wrapped };
};
const demo = await connect(process.argv[2]);
// The model adapters turn each tool's zod schema into JSON Schema with zod 4's
// `toJSONSchema`, while the MCP tools' schemas are built with zod 3 (by
// @dmitryrechkin/json-schema-to-zod): that throws, and no request is sent. What is recorded
// is that error, and the listing as the MCP tool's own JSON Schema.
const out = { tools: {} };
for (const t of demo.tools.values()) {
  try {
    z.toJSONSchema(t.parameters, { target: "draft-7" });
  } catch (e) {
    out.listing_error ??= String(e?.message ?? e);
  }
  out.tools[t.name.replace(/^demo-/, "")] = { description: t.description ?? "", schema: t.mcp.tool.inputSchema };
}
out.healthy = await call(demo, "web_search", { query: "rust" });
out.note = await call(demo, "legacy_search", { query: "rust" });
out.refused = await call(demo, "web_search", { query: "rust", limit: 50 });
await call(demo, "demo_control", { search_field: "excerpt" });
out.drift = await call(demo, "web_search", { query: "rust" });
if (process.argv[3]) {
  const busy = await connect(process.argv[3]);
  out.throttle = await call(busy, "busy_search", { query: "rust" });
}
console.log(JSON.stringify(out));
// The agent keeps its MCP clients open and has no call to close them.
process.exit(0);
