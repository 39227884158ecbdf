"""griptape: the activities `MCPTool` builds, one per server tool, run as the tool step
runs them (`BaseTool.try_run`: the activity with `{"values": input}`); the artifact's
`to_text()` is what the prompt drivers hand the model as the tool message.

Usage: python griptape_test.py path/to/toolgate
"""

import json
import sys

from common import DRIFT, NOTE, check, finish, healthy_body_chars, note_check, report_size, run_modes, version


def probe(url: str, mode: str) -> tuple[bool, bool]:
    from griptape.artifacts import ErrorArtifact
    from griptape.tools import MCPTool

    body = healthy_body_chars(url)
    tool = MCPTool(connection={"transport": "streamable_http", "url": url})
    activities = {tool.activity_name(a): a for a in tool.activities()}
    ws = activities.get("web_search")
    schema = json.dumps(tool.to_activity_json_schema(ws, "web_search")) if ws else ""
    check(f"{mode}: tools: web_search with its input schema", '"query"' in schema, f"{list(activities)} {schema[:300]}")

    def invoke(name: str, args: dict) -> tuple[str, bool]:
        # `run` adds to `try_run` only the output memory, which an MCPTool has none of by default.
        artifact = tool.try_run(activities[name], None, None, args)
        return artifact.to_text(), isinstance(artifact, ErrorArtifact)

    healthy, err = invoke("web_search", {"query": "rust"})
    check(f"{mode}: healthy: results reach the model", "results" in healthy and not err, healthy)
    report_size(mode, body, healthy)
    note, _ = invoke("legacy_search", {"query": "rust"})
    got_note = note_check(mode, f"{mode}: note: the deprecation reaches the model", NOTE in note, note)
    invoke("demo_control", {"search_field": "excerpt"})
    drift, err = invoke("web_search", {"query": "rust"})
    got_drift = check(f"{mode}: drift: an error artifact whose text opens with the failure", err and drift.startswith(DRIFT), f"{err} {drift}")
    return got_note, got_drift


def main(binary: str) -> None:
    run_modes(binary, probe, "griptape `MCPTool`", f"{version('griptape')} (mcp {version('mcp')})",
        "the text blocks, separated by a blank line (`griptape/tools/mcp/tool.py`, `MCPTool._run_activity` → "
        "`_convert_call_tool_result_to_artifact`, a `ListArtifact` whose `to_text()` the prompt driver sends); "
        "on `isError` an `ErrorArtifact` of the FIRST text block only, sent as an ordinary tool message, so the "
        "drift reads as a failure by its opening words")
    finish()


main(sys.argv[1])
