"""The TypeScript MCP SDK's `Client` (tests/frameworks/ts, pinned in its package.json):
`callTool` validates `structuredContent` against the tool's `outputSchema` — even when
`isError` is set — and returns the raw result. Run with any python3 (stdlib only here).

Usage: python ts_sdk_test.py path/to/toolgate
"""

import json
import os
import subprocess
import sys

from common import DRIFT, NOTE, TEXT_ONLY, check, finish, note_check, run_modes


def probe(url: str, mode: str) -> tuple[bool, bool]:
    here = os.path.dirname(os.path.abspath(__file__))
    done = subprocess.run(["node", os.path.join(here, "ts", "probe.mjs"), url], capture_output=True, text=True, timeout=120)
    if not check(f"{mode}: node probe.mjs ran", done.returncode == 0, done.stderr):
        return False, False
    out = json.loads(done.stdout)
    ws = next((t for t in out["tools"] if t["name"] == "web_search"), None)
    # Without `structuredContent` a tool lists no output schema, and the body is the text alone.
    text_only = mode == TEXT_ONLY
    check(f"{mode}: tools: web_search with input and {'no ' if text_only else ''}output schema",
          ws is not None and "query" in ws["inputSchema"].get("properties", {}) and bool(ws.get("outputSchema")) != text_only,
          str(out["tools"])[:300])
    healthy = out["healthy"]
    if text_only:
        healthy_text = " ".join(c.get("text", "") for c in healthy.get("content", []))
        check(f"{mode}: healthy: the text carries the results", "results" in healthy_text and "structuredContent" not in healthy, str(healthy)[:300])
    else:
        check(f"{mode}: healthy: structuredContent validated and returned", "results" in (healthy.get("structuredContent") or {}), str(healthy)[:300])
    note = out["note"]
    texts = " ".join(c.get("text", "") for c in note.get("content", []))
    in_text = NOTE in texts
    in_structured = text_only or "legacy_search is deprecated" in json.dumps(note.get("structuredContent"))
    got_note = note_check(mode, f"{mode}: note: in the content and in structuredContent", in_text and in_structured and "thrown" not in note, str(note)[:400])
    drift = out["drift"]
    first = (drift.get("content") or [{}])[0].get("text", "")
    got_drift = check(f"{mode}: drift: isError with the failure text", drift.get("isError") is True and first.startswith(DRIFT), str(drift)[:400])
    return got_note, got_drift


def main(binary: str) -> None:
    version = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ts", "node_modules", "@modelcontextprotocol", "sdk", "package.json")))["version"]
    run_modes(binary, probe, "TypeScript SDK `Client`", version,
        "the raw result (\"yes\" = in both the content and `structuredContent`, or in the content where there is no "
        "`structuredContent`); `callTool` validates "
        "`structuredContent` against `outputSchema` even with `isError` (`client/index.js`), which is why a failure "
        "carries none")
    finish()


main(sys.argv[1])
