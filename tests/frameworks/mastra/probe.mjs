// Mastra's MCPClient (@mastra/mcp) through the probes. Each tool is run as a Mastra
// agent runs it — `execute`, then the tool's `toModelOutput` when it has one (tools with an
// outputSchema), else the output as JSON — and what the model would be handed is printed
// as one JSON object (tests/frameworks/common.py, `judge`): the tools as the model is shown
// them (description and the input schema as JSON Schema), then each probe's answer.
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp [BUSY_URL]
import { MCPClient } from "@mastra/mcp";

const connect = async (url, id) => {
  const mcp = new MCPClient({ id, servers: { demo: { url: new URL(url) } } });
  return { mcp, tools: await mcp.listTools() };
};
const call = async (tools, name, input) => {
  const tool = tools[`demo_${name}`];
  try {
    const output = await tool.execute(input, {});
    // A refused input comes back as a validation error object, which the agent hands the model.
    if (output?.error === true) return { text: String(output.message ?? JSON.stringify(output)), error: true };
    const model = tool.toModelOutput ? await tool.toModelOutput(output) : { type: "json", value: output };
    return { text: model.type === "text" ? model.value : JSON.stringify(model.value), error: false };
  } catch (e) {
    // The agent hands the model a tool error with the message.
    return { text: String(e?.message ?? e), error: true };
  }
};
const demo = await connect(process.argv[2], "toolgate-frameworks");
const out = {
  tools: Object.fromEntries(Object.entries(demo.tools).map(([n, t]) => {
    const schema = t.inputSchema["~standard"].jsonSchema.input({ target: "draft-07" });
    return [n.replace(/^demo_/, ""), { description: t.description ?? "", schema }];
  })),
};
out.healthy = await call(demo.tools, "web_search", { query: "rust" });
out.note = await call(demo.tools, "legacy_search", { query: "rust" });
out.refused = await call(demo.tools, "web_search", { query: "rust", limit: 50 });
await call(demo.tools, "demo_control", { search_field: "excerpt" });
out.drift = await call(demo.tools, "web_search", { query: "rust" });
await demo.mcp.disconnect();
if (process.argv[3]) {
  const busy = await connect(process.argv[3], "toolgate-frameworks-busy");
  out.throttle = await call(busy.tools, "busy_search", { query: "rust" });
  await busy.mcp.disconnect();
}
console.log(JSON.stringify(out));
