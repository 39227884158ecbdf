"""The TypeScript MCP SDK's `Client` (tests/frameworks/ts, pinned in its package.json):
`callTool` validates `structuredContent` against the tool's `outputSchema` — even when
`isError` is set — and returns the raw result. What is judged as the model's reading is
the content's text and `isError`. Run with any python3 (stdlib only here).

Usage: python ts_sdk_test.py path/to/toolgate
"""

import json
import os
import subprocess
import sys

from common import DEFAULT, TEXT_ONLY, check, finish, healthy_body_chars, judge, note_check, run_modes, signals_row, throttled

HERE = os.path.dirname(os.path.abspath(__file__))


def handed(result: dict) -> dict:
    if "thrown" in result:
        return {"text": result["thrown"], "error": True}
    return {"text": " ".join(c.get("text", "") for c in result.get("content", [])), "error": result.get("isError") is True}


def probe(url: str, mode: str, busy: str) -> tuple[bool, bool]:
    label = f"{mode}, ts-sdk"
    body = healthy_body_chars(url)
    args = [url] + ([busy] if mode == DEFAULT else [])
    done = subprocess.run(["node", os.path.join(HERE, "ts", "probe.mjs"), *args], capture_output=True, text=True, timeout=120)
    if not check(f"{label}: node probe.mjs ran", done.returncode == 0, done.stderr):
        return False, False
    raw = json.loads(done.stdout)
    ws = next((t for t in raw["tools"] if t["name"] == "web_search"), None)
    # Without `structuredContent` a tool lists no output schema, and the body is the text alone.
    text_only = mode == TEXT_ONLY
    check(f"{label}: tools: web_search with {'no ' if text_only else 'an '}output schema", ws is not None and bool(ws.get("outputSchema")) != text_only,
          str(raw["tools"])[:300])
    healthy = raw["healthy"]
    if text_only:
        check(f"{label}: healthy: no structuredContent", "structuredContent" not in healthy, str(healthy)[:300])
    else:
        check(f"{label}: healthy: structuredContent validated and returned", "results" in (healthy.get("structuredContent") or {}), str(healthy)[:300])
    note = raw["note"]
    in_structured = text_only or "legacy_search is deprecated" in json.dumps(note.get("structuredContent"))
    in_structured = note_check(mode, f"{label}: note: in structuredContent", in_structured, str(note)[:400], misses=("text",))
    out = {"tools": {t["name"]: {"description": t.get("description", ""), "schema": t["inputSchema"]} for t in raw["tools"]},
           "busy_url": busy, **{key: handed(raw[key]) for key in ("healthy", "note", "refused", "drift", "throttle") if key in raw}}
    got_note, got_drift = judge(mode, label, out, body, url, misses=("structured",), marked=True)
    return got_note and in_structured, got_drift


def main(binary: str) -> None:
    version = json.load(open(os.path.join(HERE, "ts", "node_modules", "@modelcontextprotocol", "sdk", "package.json")))["version"]
    label = "TypeScript SDK `Client`"
    with throttled(binary) as busy:
        run_modes(binary, probe, label, version,
            "the raw result (\"yes\" = in both the content and `structuredContent`, or in the content where there is no "
            "`structuredContent`); `callTool` validates "
            "`structuredContent` against `outputSchema` even with `isError` (`client/index.js`), which is why a failure "
            "carries none", busy)
    signals_row(label, version, "names, descriptions, input schemas as they are", "`isError: true`")
    finish()


main(sys.argv[1])
