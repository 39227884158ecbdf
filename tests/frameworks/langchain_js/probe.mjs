// LangChain.js's MCP adapters (@langchain/mcp-adapters) through the four probes. Each tool
// is run by LangGraph's ToolNode, as a ReAct agent runs it: a tool call in, a ToolMessage
// out, whose content and status are what the model is handed (the artifact is not).
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp
import { AIMessage } from "@langchain/core/messages";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";

const client = new MultiServerMCPClient({ mcpServers: { demo: { transport: "http", url: process.argv[2] } } });
const tools = await client.getTools();
const node = new ToolNode(tools);
const textOf = (c) => (typeof c === "string" ? c : c.map((b) => (b.type === "text" ? b.text : JSON.stringify(b))).join("\n"));
let id = 0;
const call = async (name, args) => {
  id += 1;
  const ai = new AIMessage({ content: "", tool_calls: [{ id: String(id), name, args, type: "tool_call" }] });
  const { messages } = await node.invoke({ messages: [ai] });
  const msg = messages[0];
  return { text: textOf(msg.content), error: msg.status === "error" };
};
const out = {
  tools: Object.fromEntries(tools.map((t) => {
    const schema = t.schema?.properties ? t.schema : (t.schema?.toJSONSchema?.() ?? {});
    return [t.name, Object.keys(schema.properties ?? {})];
  })),
};
out.healthy = await call("web_search", { query: "rust" });
out.note = await call("legacy_search", { query: "rust" });
await call("demo_control", { search_field: "excerpt" });
out.drift = await call("web_search", { query: "rust" });
await client.close();
console.log(JSON.stringify(out));
