"""langchain-mcp-adapters: the tools `MultiServerMCPClient.get_tools()` builds, invoked
the way an agent's tool node invokes them (a ToolCall in, a ToolMessage out). The
ToolMessage's content and status are what the model is handed; the artifact
(structuredContent) is not sent to the model.

Usage: python langchain_mcp_adapters_test.py path/to/toolgate
"""

import asyncio
import sys

from common import DRIFT, NOTE, check, demo, finish, row, text_of, version


async def main(binary: str) -> None:
    from langchain_mcp_adapters.client import MultiServerMCPClient

    with demo(binary) as url:
        client = MultiServerMCPClient({"demo": {"url": url, "transport": "streamable_http"}})
        tools = {t.name: t for t in await client.get_tools()}
        ws = tools.get("web_search")
        schema = (ws.args_schema if isinstance(ws.args_schema, dict) else ws.args_schema.model_json_schema()) if ws else {}
        check("tools: web_search with its input schema", "query" in (schema.get("properties") or {}), f"{list(tools)} {schema}")

        async def invoke(name: str, args: dict) -> tuple[str, str]:
            msg = await tools[name].ainvoke({"type": "tool_call", "id": "1", "name": name, "args": args})
            content = msg.content
            if isinstance(content, list):
                content = "\n".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
            return content, msg.status

        healthy, status = await invoke("web_search", {"query": "rust"})
        check("healthy: results reach the model", '"results"' in healthy and status == "success", f"{status} {healthy}")
        note, _ = await invoke("legacy_search", {"query": "rust"})
        got_note = check("note: the deprecation reaches the model", NOTE in note, note)
        await invoke("demo_control", {"search_field": "excerpt"})
        drift, status = await invoke("web_search", {"query": "rust"})
        got_drift = check("drift: an error the model reads as one", drift.startswith(DRIFT) and status == "error", f"{status} {drift}")
        row("langchain-mcp-adapters", version("langchain-mcp-adapters"), got_note, got_drift,
            "ToolMessage content = the text blocks (notes included); drift: status='error', text opens 'web_search failed:'")
    finish()


asyncio.run(main(sys.argv[1]))
