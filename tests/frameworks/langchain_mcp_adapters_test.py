"""langchain-mcp-adapters: the tools `MultiServerMCPClient.get_tools()` builds, invoked
the way an agent's tool node invokes them (a ToolCall in, a ToolMessage out). The
ToolMessage's content and status are what the model is handed; the artifact
(structuredContent) is not sent to the model.

Usage: python langchain_mcp_adapters_test.py path/to/toolgate
"""

import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, text_of, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    from langchain_mcp_adapters.client import MultiServerMCPClient

    body = healthy_body_chars(url)
    client = MultiServerMCPClient({"demo": {"url": url, "transport": "streamable_http"}})
    tools = {t.name: t for t in await client.get_tools()}
    ws = tools.get("web_search")
    schema = (ws.args_schema if isinstance(ws.args_schema, dict) else ws.args_schema.model_json_schema()) if ws else {}
    check(f"{mode}: tools: web_search with its input schema", "query" in (schema.get("properties") or {}), f"{list(tools)} {schema}")

    async def invoke(name: str, args: dict) -> tuple[str, str]:
        msg = await tools[name].ainvoke({"type": "tool_call", "id": "1", "name": name, "args": args})
        content = msg.content
        if isinstance(content, list):
            content = "\n".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
        return text_of(content), msg.status

    healthy, status = await invoke("web_search", {"query": "rust"})
    check(f"{mode}: healthy: results reach the model", "results" in healthy and status == "success", f"{status} {healthy}")
    report_size(mode, body, healthy)
    note, _ = await invoke("legacy_search", {"query": "rust"})
    got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note)
    await invoke("demo_control", {"search_field": "excerpt"})
    drift, status = await invoke("web_search", {"query": "rust"})
    got_drift = check(f"{mode}: drift: an error the model reads as one", drift.startswith(DRIFT) and status == "error", f"{status} {drift}")
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "langchain-mcp-adapters", version("langchain-mcp-adapters"),
        "`ToolMessage.content` is the text blocks (`structuredContent` goes to the artifact, which the model does "
        "not see); drift: `status='error'`, the text opens \"web_search failed:\"")
    finish()


main(sys.argv[1])
