#!/usr/bin/env python3
"""One MCP tool call made directly against an upstream MCP server, and the same call
through toolgate fronting it: mean and p50/p99 latency per call over N calls per client,
C clients in parallel, each with its own session and keep-alive connection.

Usage: mcp_upstream.py URL TOOL N C
  -> prints "RESULT calls=<n> mean_us=<µs> p50_us=<µs> p99_us=<µs> errors=<count> seconds=<wall>"
Run once against the server and once against toolgate (the caller reads the processes'
CPU time around each run). Standard library only.
"""
import http.client
import json
import sys
import threading
import time
import urllib.parse

url, tool, n, conc = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
u = urllib.parse.urlsplit(url)
VERSION = "2025-11-25"
BASE = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def answer(data: bytes):
    """The JSON-RPC message of a JSON body or of the last SSE `data:` event."""
    text = data.decode("utf-8", "replace")
    if text.lstrip().startswith("{"):
        return json.loads(text)
    last = None
    for line in text.splitlines():
        if line.startswith("data:") and line[5:].strip():
            last = line[5:].strip()
    return json.loads(last) if last else None


def client(latencies, errors, lock):
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)

    def post(body, session=None):
        headers = dict(BASE, **{"mcp-protocol-version": VERSION})
        if session:
            headers["mcp-session-id"] = session
        conn.request("POST", u.path, json.dumps(body), headers)
        r = conn.getresponse()
        return r.status, r.getheader("mcp-session-id"), r.read()

    status, sid, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    mine, bad = [], 0
    for i in range(n):
        body = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                "params": {"name": tool, "arguments": {"message": f"call {i}"}}}
        t0 = time.perf_counter()
        status, _, data = post(body, sid)
        mine.append((time.perf_counter() - t0) * 1e6)
        msg = answer(data) if status == 200 else None
        if not msg or "result" not in msg or msg["result"].get("isError"):
            bad += 1
    with lock:
        latencies.extend(mine)
        errors.append(bad)


latencies, errors, lock = [], [], threading.Lock()
started = time.perf_counter()
threads = [threading.Thread(target=client, args=(latencies, errors, lock)) for _ in range(conc)]
for t in threads:
    t.start()
for t in threads:
    t.join()
wall = time.perf_counter() - started
latencies.sort()
pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else 0
mean = sum(latencies) / len(latencies) if latencies else 0
print(f"RESULT calls={len(latencies)} mean_us={mean:.0f} p50_us={pick(0.5):.0f} p99_us={pick(0.99):.0f} "
      f"errors={sum(errors)} seconds={wall:.2f}")
