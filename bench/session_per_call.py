#!/usr/bin/env python3
"""Clients that open a session per call (langchain-mcp-adapters, llama-index) pay for
initialize + notifications/initialized + tools/call + DELETE on every call. This measures
that cycle against a plain call in a session kept open, over one keep-alive connection
(c=1, the same client code for both, so the ratio is toolgate's own cost).

Usage: session_per_call.py URL TOOL N MODE   (MODE: plain or cycle)
  -> prints "RESULT us=<mean microseconds per call> errors=<count>"
Run once per mode, so the caller can read the server's CPU time around each.
Standard library only.
"""
import http.client
import json
import sys
import time
import urllib.parse

url, tool, n, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
u = urllib.parse.urlsplit(url)
conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
VERSION = "2025-11-25"
BASE = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
errors = 0


def post(body, session=None):
    headers = dict(BASE, **{"mcp-protocol-version": VERSION})
    if session:
        headers["mcp-session-id"] = session
    conn.request("POST", u.path, json.dumps(body), headers)
    r = conn.getresponse()
    data = r.read()
    return r.status, r.getheader("mcp-session-id"), data


def open_session():
    status, sid, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    return sid if status == 200 else None


def call(sid, i):
    global errors
    status, _, data = post({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                            "params": {"name": tool, "arguments": {"query": "rust"}}}, sid)
    if status != 200 or b'"isError":false' not in data:
        errors += 1


def close(sid):
    global errors
    conn.request("DELETE", u.path, headers={"mcp-session-id": sid, "mcp-protocol-version": VERSION})
    r = conn.getresponse()
    r.read()
    if r.status >= 300:
        errors += 1


sid = open_session()
for i in range(50):  # warm-up: the connection, the session, the upstream's pool
    call(sid, i)
t0 = time.perf_counter()
if mode == "plain":
    for i in range(n):
        call(sid, i)
    close(sid)
else:
    close(sid)
    for i in range(n):
        s = open_session()
        if s is None:
            errors += 1
            continue
        call(s, i)
        close(s)
mean = (time.perf_counter() - t0) / n
print(f"RESULT us={mean * 1e6:.0f} errors={errors}")
