"""griptape: the activities `MCPTool` builds, one per server tool, run as the tool step
runs them (`BaseTool.try_run`: the activity with `{"values": input}`); the artifact's
`to_text()` is what the prompt drivers hand the model as the tool message. The listing is
each activity's description and JSON schema.

Usage: python griptape_test.py path/to/toolgate
"""

import sys

from common import BUSY, DEFAULT, finish, healthy_body_chars, judge, probed, run_modes, signals_row, throttled, version


def connect(url: str):
    from griptape.artifacts import ErrorArtifact
    from griptape.tools import MCPTool

    tool = MCPTool(connection={"transport": "streamable_http", "url": url})
    activities = {tool.activity_name(a): a for a in tool.activities()}

    def invoke(name: str, args: dict) -> dict:
        # `run` adds to `try_run` only the output memory, which an MCPTool has none of by default.
        artifact = tool.try_run(activities[name], None, None, args)
        return {"text": artifact.to_text(), "error": isinstance(artifact, ErrorArtifact)}

    listing = {n: {"description": tool.activity_description(a) or "", "schema": tool.to_activity_json_schema(a, n)}
               for n, a in activities.items()}
    return listing, invoke


def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, griptape"
    body = healthy_body_chars(url)
    listing, invoke = connect(url)
    out = {"tools": listing, "busy_url": busy, **probed(invoke)}
    if mode == DEFAULT:
        _, invoke = connect(busy)
        out["throttle"] = invoke(*BUSY)
    return judge(mode, label, out, body, url, misses=("structured",), marked=True)


def main(binary: str) -> None:
    v = version("griptape")
    label = "griptape `MCPTool`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, f"{v} (mcp {version('mcp')})",
            "the text blocks, separated by a blank line (`griptape/tools/mcp/tool.py`, `MCPTool._run_activity` → "
            "`_convert_call_tool_result_to_artifact`, a `ListArtifact` whose `to_text()` the prompt driver sends); "
            "on `isError` an `ErrorArtifact` of the FIRST text block only, sent as an ordinary tool message, so the "
            "drift reads as a failure by its opening words", busy)
    signals_row(label, v, "names, descriptions, input schemas as activity schemas", "an `ErrorArtifact`, sent as an ordinary tool message")
    finish()


main(sys.argv[1])
