// LangChain.js's MCP adapters (@langchain/mcp-adapters) through the probes. Each tool
// is run by LangGraph's ToolNode, as a ReAct agent runs it: a tool call in, a ToolMessage
// out, whose content and status are what the model is handed (the artifact is not).
// Prints what the model would be handed as one JSON object (tests/frameworks/common.py,
// `judge`): the tools as the model is shown them, then each probe's answer.
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp [BUSY_URL]
import { AIMessage } from "@langchain/core/messages";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";

const textOf = (c) => (typeof c === "string" ? c : c.map((b) => (b.type === "text" ? b.text : JSON.stringify(b))).join("\n"));
const connect = async (url) => {
  const client = new MultiServerMCPClient({ mcpServers: { demo: { transport: "http", url } } });
  const tools = await client.getTools();
  return { client, tools, node: new ToolNode(tools) };
};
let id = 0;
const call = async (node, name, args) => {
  id += 1;
  const ai = new AIMessage({ content: "", tool_calls: [{ id: String(id), name, args, type: "tool_call" }] });
  const { messages } = await node.invoke({ messages: [ai] });
  const msg = messages[0];
  return { text: textOf(msg.content), error: msg.status === "error" };
};
const demo = await connect(process.argv[2]);
const out = {
  tools: Object.fromEntries(demo.tools.map((t) => {
    const schema = t.schema?.properties ? t.schema : (t.schema?.toJSONSchema?.() ?? {});
    return [t.name, { description: t.description ?? "", schema }];
  })),
};
out.healthy = await call(demo.node, "web_search", { query: "rust" });
out.note = await call(demo.node, "legacy_search", { query: "rust" });
out.refused = await call(demo.node, "web_search", { query: "rust", limit: 50 });
await call(demo.node, "demo_control", { search_field: "excerpt" });
out.drift = await call(demo.node, "web_search", { query: "rust" });
await demo.client.close();
if (process.argv[3]) {
  const busy = await connect(process.argv[3]);
  out.throttle = await call(busy.node, "busy_search", { query: "rust" });
  await busy.client.close();
}
console.log(JSON.stringify(out));
