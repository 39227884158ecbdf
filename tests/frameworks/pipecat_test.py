"""pipecat: the tools `MCPClient.tools()` advertises, each run through the handler it carries
as the LLM service runs a function call (`FunctionCallParams`, the result delivered to
`result_callback`). The model is handed what the assistant aggregator writes into the tool
message: the result as JSON (`json.dumps(frame.result)`, `llm_response_universal.py`), here
a JSON string. The listing is each tool's `FunctionSchema` as the adapters send it
(`to_default_dict`: name, description, parameters).

Usage: python pipecat_test.py path/to/toolgate
"""

import json
import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed_async, run_modes, signals_row, throttled, version


async def connect(url: str):
    from mcp.client.session_group import StreamableHttpParameters
    from pipecat.services.llm_service import FunctionCallParams
    from pipecat.services.mcp_service import MCPClient

    client = MCPClient(server_params=StreamableHttpParameters(url=url))
    schemas = {s.name: s for s in (await client.tools()).standard_tools}
    calls = iter(range(1_000))

    async def invoke(name: str, args: dict) -> dict:
        delivered = []

        async def result_callback(result, *, properties=None) -> None:
            delivered.append(result)

        params = FunctionCallParams(function_name=name, tool_call_id=f"call_{next(calls)}", arguments=args, llm=None,
                                    pipeline_worker=None, context=None, result_callback=result_callback)
        await schemas[name].handler(params)
        # The aggregator's tool message; pipecat has no way to mark a tool result as failed.
        return {"text": json.dumps(delivered[-1], ensure_ascii=False) if delivered[-1] else "COMPLETED", "error": False}

    listing = {}
    for name, s in schemas.items():
        d = s.to_default_dict()
        listing[name] = {"description": d.get("description") or "", "schema": d.get("parameters", {})}
    return client, listing, invoke


async def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, pipecat"
    body = healthy_body_chars(url)
    client, listing, invoke = await connect(url)
    try:
        out = {"tools": listing, "busy_url": busy, **await probed_async(invoke)}
    finally:
        await client.close()
    if mode == DEFAULT:
        client, _, invoke = await connect(busy)
        try:
            out["throttle"] = await invoke(*BUSY)
        finally:
            await client.close()
    print(f"  --   {label}: the drift opens {out['drift']['text'][:80]!r}")
    return judge(mode, label, out, body, url, opening='"', misses=("structured",), marked=False)


def main(binary: str) -> None:
    from loguru import logger

    # pipecat logs every call and its result at debug level to stderr.
    logger.remove()
    logger.add(sys.stderr, level="WARNING")
    v = version("pipecat-ai")
    label = "Pipecat `MCPClient`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, v,
            "the text blocks concatenated without a separator (`pipecat/services/mcp_service.py`, "
            "`MCPClient._call_tool_text`), then written into the tool message as a JSON string: `structuredContent`, "
            "`_meta` and `isError` are dropped, so the drift reads as a failure by its opening words", busy)
    signals_row(label, v, "names, descriptions, input schemas' properties and required", "not passed on: the failure reads by its words")
    finish()


main(sys.argv[1])
