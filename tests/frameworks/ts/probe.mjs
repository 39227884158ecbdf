// The TypeScript SDK's Client (streamable HTTP) through the four probes; prints, as one
// JSON object, what `listTools` and `callTool` return (what an application hands the
// model). Usage: node probe.mjs http://127.0.0.1:PORT/mcp
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const client = new Client({ name: "toolgate-frameworks", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));
const out = {};
const call = async (name, args) => {
  try {
    return await client.callTool({ name, arguments: args });
  } catch (e) {
    return { thrown: String(e) };
  }
};
out.tools = (await client.listTools()).tools;
out.healthy = await call("web_search", { query: "rust" });
out.note = await call("legacy_search", { query: "rust" });
await call("demo_control", { search_field: "excerpt" });
out.drift = await call("web_search", { query: "rust" });
await client.close();
console.log(JSON.stringify(out));
