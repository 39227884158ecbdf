// The OpenAI Agents SDK for JavaScript (@openai/agents) through the four probes, with the
// default and with `useStructuredContent: true` (argv[3] = "structured"). Each tool is the
// FunctionTool `mcpToFunctionTool` builds, invoked as the Runner invokes it; its output is
// what the Runner hands the model. Usage: node probe.mjs http://127.0.0.1:PORT/mcp [structured]
import { MCPServerStreamableHttp, mcpToFunctionTool, RunContext } from "@openai/agents";

const server = new MCPServerStreamableHttp({ url: process.argv[2], useStructuredContent: process.argv[3] === "structured" });
await server.connect();
const listed = await server.listTools();
const tools = Object.fromEntries(listed.map((t) => [t.name, mcpToFunctionTool(t, server, false)]));
const ctx = new RunContext({});
const textOf = (o) => (typeof o === "string" ? o : Array.isArray(o) ? o.map(textOf).join("\n") : o?.type === "text" ? o.text : JSON.stringify(o));
const call = async (name, input) => {
  try {
    const output = await tools[name].invoke(ctx, JSON.stringify(input), { toolCall: { callId: "1", name, arguments: JSON.stringify(input), type: "function_call" } });
    return { text: textOf(output), error: false };
  } catch (e) {
    return { text: String(e?.message ?? e), error: true };
  }
};
const out = { tools: Object.fromEntries(listed.map((t) => [t.name, Object.keys(t.inputSchema?.properties ?? {})])) };
out.healthy = await call("web_search", { query: "rust" });
out.note = await call("legacy_search", { query: "rust" });
await call("demo_control", { search_field: "excerpt" });
out.drift = await call("web_search", { query: "rust" });
await server.close();
console.log(JSON.stringify(out));
