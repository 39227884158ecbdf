"""mcp-use: the LangChain tools `LangChainAdapter.create_tools` builds (what `MCPAgent`
uses), invoked as an agent's tool node invokes them (a ToolCall in, a ToolMessage out).
The ToolMessage's content is what the model is handed.

Usage: python mcp_use_test.py path/to/toolgate
"""

import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, text_of, version


async def probe(url: str, mode: str) -> tuple[bool, bool]:
    import logging

    from mcp_use import MCPClient
    from mcp_use.agents.adapters.langchain_adapter import LangChainAdapter

    body = healthy_body_chars(url)
    logging.getLogger("mcp_use").setLevel(logging.CRITICAL)
    client = MCPClient.from_dict({"mcpServers": {"demo": {"url": url}}})
    try:
        tools = {t.name: t for t in await LangChainAdapter().create_tools(client)}
        ws = tools.get("web_search")
        schema = ws.args_schema.model_json_schema() if ws else {}
        check(f"{mode}: tools: web_search with its input schema", "query" in schema.get("properties", {}), f"{list(tools)} {schema}")
        sent: list[dict] = []
        connector = ws.tool_connector
        original = connector.call_tool

        async def spy(name, arguments, *a, **kw):
            sent.append(dict(arguments))
            return await original(name, arguments, *a, **kw)

        connector.call_tool = spy

        async def invoke(name: str, args: dict) -> tuple[str, str]:
            msg = await tools[name].ainvoke({"type": "tool_call", "id": "1", "name": name, "args": args})
            content = msg.content
            if isinstance(content, list):
                content = "\n".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
            return text_of(content), msg.status

        healthy, status = await invoke("web_search", {"query": "rust"})
        # The optional `limit` the model left out goes to the server as null.
        check(f"{mode}: null: the left-out optional argument is sent as null", sent and sent[-1].get("limit", "absent") is None, str(sent))
        check(f"{mode}: null: and the call succeeds", "results" in healthy and "error" not in healthy[:20], f"{status} {healthy[:300]}")
        report_size(mode, body, healthy)
        note, _ = await invoke("legacy_search", {"query": "rust"})
        got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note)
        await invoke("demo_control", {"search_field": "excerpt"})
        drift, status = await invoke("web_search", {"query": "rust", "limit": 3})
        got_drift = check(f"{mode}: drift: an error text with the failure", "RuntimeError" in drift and DRIFT in drift, f"{status} {drift[:600]}")
    finally:
        await client.close_all_sessions()
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "mcp-use (`LangChainAdapter`)", f"{version('mcp-use')} (mcp {version('mcp')})",
        "one text block as a string, several as LangChain text blocks (`mcp_use/agents/adapters/langchain_adapter.py`, "
        "`_arun` → `_mcp_content_to_langchain`); on `isError`, a dict `{'error': 'RuntimeError', 'details': …}` "
        "rendered as text, with a Python traceback in it; every optional argument left out is sent as `null`")
    finish()


main(sys.argv[1])
