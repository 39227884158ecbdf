// Mastra's MCPClient (@mastra/mcp) through the four probes. Each tool is run as a Mastra
// agent runs it — `execute`, then the tool's `toModelOutput` when it has one (tools with an
// outputSchema), else the output as JSON — and what the model would be handed is printed
// as one JSON object. Usage: node probe.mjs http://127.0.0.1:PORT/mcp
import { MCPClient } from "@mastra/mcp";

const mcp = new MCPClient({ id: "toolgate-frameworks", servers: { demo: { url: new URL(process.argv[2]) } } });
const tools = await mcp.listTools();
const call = async (name, input) => {
  const tool = tools[`demo_${name}`];
  try {
    const output = await tool.execute(input, {});
    const model = tool.toModelOutput ? await tool.toModelOutput(output) : { type: "json", value: output };
    return { text: model.type === "text" ? model.value : JSON.stringify(model.value), error: false };
  } catch (e) {
    // The agent hands the model a tool error with the message.
    return { text: String(e?.message ?? e), error: true };
  }
};
const out = {
  tools: Object.fromEntries(Object.entries(tools).map(([n, t]) => {
    const schema = t.inputSchema["~standard"].jsonSchema.input({ target: "draft-07" });
    return [n.replace(/^demo_/, ""), Object.keys(schema.properties ?? {})];
  })),
};
out.healthy = await call("web_search", { query: "rust" });
out.note = await call("legacy_search", { query: "rust" });
await call("demo_control", { search_field: "excerpt" });
out.drift = await call("web_search", { query: "rust" });
await mcp.disconnect();
console.log(JSON.stringify(out));
