// The OpenAI Agents SDK for JavaScript (@openai/agents) through the probes, with the
// default and with `useStructuredContent: true` (argv[4] = "structured"). Each tool is the
// FunctionTool `mcpToFunctionTool` builds, invoked as the Runner invokes it; its output is
// what the Runner hands the model. Prints what the model would be handed as one JSON object
// (tests/frameworks/common.py, `judge`): the tools as the model is shown them, then each
// probe's answer.
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp [BUSY_URL] [structured]
import { MCPServerStreamableHttp, mcpToFunctionTool, RunContext } from "@openai/agents";

const structured = process.argv[4] === "structured";
const connect = async (url) => {
  const server = new MCPServerStreamableHttp({ url, useStructuredContent: structured });
  await server.connect();
  const listed = await server.listTools();
  return { server, tools: Object.fromEntries(listed.map((t) => [t.name, mcpToFunctionTool(t, server, false)])) };
};
const ctx = new RunContext({});
const textOf = (o) => (typeof o === "string" ? o : Array.isArray(o) ? o.map(textOf).join("\n") : o?.type === "text" ? o.text : JSON.stringify(o));
const call = async (tools, name, input) => {
  try {
    const output = await tools[name].invoke(ctx, JSON.stringify(input), { toolCall: { callId: "1", name, arguments: JSON.stringify(input), type: "function_call" } });
    return { text: textOf(output), error: false };
  } catch (e) {
    return { text: String(e?.message ?? e), error: true };
  }
};
const demo = await connect(process.argv[2]);
const out = {
  tools: Object.fromEntries(Object.entries(demo.tools).map(([n, t]) => [n, { description: t.description ?? "", schema: t.parameters }])),
};
out.healthy = await call(demo.tools, "web_search", { query: "rust" });
out.note = await call(demo.tools, "legacy_search", { query: "rust" });
out.refused = await call(demo.tools, "web_search", { query: "rust", limit: 50 });
await call(demo.tools, "demo_control", { search_field: "excerpt" });
out.drift = await call(demo.tools, "web_search", { query: "rust" });
await demo.server.close();
if (process.argv[3]) {
  const busy = await connect(process.argv[3]);
  out.throttle = await call(busy.tools, "busy_search", { query: "rust" });
  await busy.server.close();
}
console.log(JSON.stringify(out));
