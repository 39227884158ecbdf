// The TypeScript SDK's Client (streamable HTTP) through the probes; prints, as one JSON
// object, what `listTools` and `callTool` return (what an application hands the model).
// Usage: node probe.mjs http://127.0.0.1:PORT/mcp [BUSY_URL]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const connect = async (url) => {
  const client = new Client({ name: "toolgate-frameworks", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
};
const call = async (client, name, args) => {
  try {
    return await client.callTool({ name, arguments: args });
  } catch (e) {
    return { thrown: String(e) };
  }
};
const client = await connect(process.argv[2]);
const out = {};
out.tools = (await client.listTools()).tools;
out.healthy = await call(client, "web_search", { query: "rust" });
out.note = await call(client, "legacy_search", { query: "rust" });
out.refused = await call(client, "web_search", { query: "rust", limit: 50 });
await call(client, "demo_control", { search_field: "excerpt" });
out.drift = await call(client, "web_search", { query: "rust" });
await client.close();
if (process.argv[3]) {
  const busy = await connect(process.argv[3]);
  out.throttle = await call(busy, "busy_search", { query: "rust" });
  await busy.close();
}
console.log(JSON.stringify(out));
