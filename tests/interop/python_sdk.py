#!/usr/bin/env python3
"""Interop test: the official Python MCP SDK against a real toolgate binary.

    .venv/bin/python tests/interop/python_sdk.py /path/to/toolgate
    python3 tests/interop/python_sdk.py --upstream-only PORT   # just the fake upstream (stdlib only)

For each transport (streamable HTTP with the initialize handshake, streamable HTTP with
the stateless 2026-07-28 revision, stdio) it starts a fresh toolgate with a fresh state
directory in front of an in-process loopback upstream, then checks what an MCP client
sees: the tool list, a valid call, a field rename caught as contract drift on the first
call, a 503 retried into success, a 400 reported as a client error, and arguments that
break the input schema refused before reaching the upstream. One line is printed per
check passed; the first failure exits non-zero with the reason and toolgate's log tail.

`--upstream-only PORT` serves the same upstream on 127.0.0.1:PORT (0 picks a free port)
and prints the port on its first stdout line; `POST /control?field=excerpt` switches the
search results' text field (`snippet` or `excerpt`) and `POST /control?reset=1` starts a
new scenario. tests/interop/inspector.sh uses this.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

# --------------------------------------------------------------------------------------
# The fake upstream (stdlib only, so --upstream-only runs under any python3)
# --------------------------------------------------------------------------------------


class Upstream:
    """A loopback HTTP API: /v3/search, /flaky (503 once per scenario), /bad (400)."""

    def __init__(self, port: int = 0) -> None:
        self.lock = threading.Lock()
        self.field = "snippet"
        self.counts: dict[str, int] = {}
        self.last_body: dict[str, Any] = {}
        self.log: list[str] = []
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
                pass  # keep the test output to one line per check

            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                upstream._handle(self, "GET")

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                upstream._handle(self, "POST")

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, name="upstream", daemon=True)

    def start(self) -> Upstream:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def reset(self) -> None:
        """Starts a scenario: `snippet` again, zero counts, /flaky fails once more."""
        with self.lock:
            self.field = "snippet"
            self.counts = {}
            self.last_body = {}
            self.log = []

    def set_field(self, field: str) -> None:
        with self.lock:
            self.field = field

    def count(self, path: str) -> int:
        with self.lock:
            return self.counts.get(path, 0)

    def _handle(self, h: BaseHTTPRequestHandler, method: str) -> None:
        url = urlsplit(h.path)
        query = parse_qs(url.query)
        length = int(h.headers.get("content-length") or 0)
        if length:
            h.rfile.read(length)
        if method == "POST" and url.path == "/control":
            if "field" in query:
                field = query["field"][0]
                if field not in ("snippet", "excerpt"):
                    return self._send(h, 400, {"error": "field must be snippet or excerpt"})
                self.set_field(field)
            if query.get("reset", ["0"])[0] not in ("0", ""):
                self.reset()
            with self.lock:
                return self._send(h, 200, {"field": self.field, "counts": dict(self.counts)})
        if method == "GET" and url.path == "/counts":
            with self.lock:
                return self._send(h, 200, dict(self.counts))

        with self.lock:
            n = self.counts.get(url.path, 0) + 1
            self.counts[url.path] = n
            self.log.append(f"{method} {h.path}")
            field = self.field
        if method == "GET" and url.path == "/v3/search":
            q = query.get("q", [""])[0]
            body = {
                "query": q,
                "results": [
                    {"title": f"Result {i} for {q}", "url": f"https://example.com/{i}", field: f"…mentions {q} (#{i})…", "score": 0.9}
                    for i in (1, 2)
                ],
            }
            status = 200
        elif method == "GET" and url.path == "/flaky":
            status, body = (503, {"error": "try again"}) if n == 1 else (200, {"status": "ok"})
        elif method == "GET" and url.path == "/bad":
            status, body = 400, {"error": "limit must be at most 10"}
        else:
            status, body = 404, {"error": f"no route for {method} {url.path}"}
        with self.lock:
            self.last_body[url.path] = body
        self._send(h, status, body)

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        h.send_response(status)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)


def upstream_only(port: int) -> int:
    upstream = Upstream(port)
    print(upstream.port, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        upstream.server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


# --------------------------------------------------------------------------------------
# Test plumbing
# --------------------------------------------------------------------------------------


class CheckFailed(Exception):
    pass


PASSED = 0


def ok(label: str, what: str) -> None:
    global PASSED
    PASSED += 1
    print(f"ok   [{label}] {what}", flush=True)


def check(cond: bool, message: str) -> None:
    if not cond:
        raise CheckFailed(message)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url: str, timeout: float = 5) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:  # noqa: S310 - loopback only
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def write_config(dir_: Path, upstream_url: str) -> Path:
    config = f"""\
gateway:
  state: {dir_ / "state.db"}
dependencies:
  search_api:
    base_url: {upstream_url}
    timeout: 2s
    retry: {{ max_attempts: 3, base_delay: 10ms, max_delay: 50ms }}
tools:
  web_search:
    dependency: search_api
    owner: alice@example.com
    description: Search the web.
    request: {{ method: GET, path: /v3/search, query: {{ q: "{{query}}" }} }}
    annotations: {{ readOnlyHint: true, idempotentHint: true }}
    input_schema: {{ type: object, required: [query], properties: {{ query: {{ type: string }} }} }}
    contract:
      version: "3.1"
      response_schema:
        type: object
        required: [results]
        properties:
          query: {{ type: string }}
          results:
            type: array
            items:
              type: object
              required: [title, url, snippet]
              properties: {{ title: {{ type: string }}, url: {{ type: string }}, snippet: {{ type: string }}, score: {{ type: number }} }}
  flaky_status:
    dependency: search_api
    owner: bob@example.com
    request: {{ path: /flaky }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object, required: [status] }} }}
  bad_request:
    dependency: search_api
    owner: bob@example.com
    request: {{ path: /bad }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
"""
    path = dir_ / "toolgate.yaml"
    path.write_text(config)
    return path


def wait_healthy(base: str, proc: subprocess.Popen[bytes] | None, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    last = "no answer"
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise CheckFailed(f"toolgate exited with code {proc.returncode} before {base}/healthz answered")
        try:
            status, body = http_get(f"{base}/healthz", timeout=1)
            if status == 200 and body.strip() == "ok":
                return
            last = f"HTTP {status} {body!r}"
        except OSError as e:
            last = str(e)
        time.sleep(0.1)
    raise CheckFailed(f"{base}/healthz did not answer 200 'ok' within {seconds:.0f} s (last: {last})")


def stop_process(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


# --------------------------------------------------------------------------------------
# The scenario, run once per transport
# --------------------------------------------------------------------------------------


def text_of(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content if getattr(block, "type", None) == "text")


def signals_of(result: Any) -> dict[str, Any]:
    meta = result.meta or {}
    signals = meta.get("dev.toolgate/signals")
    check(isinstance(signals, dict), f'_meta["dev.toolgate/signals"] is not an object: _meta = {meta!r}')
    return signals


def dump(result: Any) -> str:
    return json.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True), ensure_ascii=False)


async def scenario(label: str, client: Any, upstream: Upstream, metrics_url: str | None) -> None:
    # tools/list
    listed = await client.list_tools()
    tools = {t.name: t for t in listed.tools}
    check(
        {"web_search", "flaky_status", "bad_request"} <= set(tools),
        f"tools/list should list web_search, flaky_status, bad_request; got {sorted(tools)}",
    )
    ws = tools["web_search"]
    schema = ws.output_schema
    check(isinstance(schema, dict), f"web_search has no outputSchema: {ws.model_dump(by_alias=True)}")
    item = ((schema.get("properties") or {}).get("results") or {}).get("items") or {}
    check(
        schema.get("type") == "object"
        and "results" in (schema.get("required") or [])
        and "snippet" in (item.get("required") or []),
        f"web_search outputSchema is not contract v3.1's response schema: {json.dumps(schema)}",
    )
    check(
        ws.annotations is not None and ws.annotations.read_only_hint is True,
        f"web_search should carry readOnlyHint: true; annotations = {ws.annotations!r}",
    )
    check(
        "query" in ((ws.input_schema or {}).get("properties") or {}),
        f"web_search inputSchema should have the query property: {json.dumps(ws.input_schema)}",
    )
    ok(label, "tools/list: web_search, flaky_status, bad_request; web_search has outputSchema (contract v3.1) and readOnlyHint")

    # A valid call: structuredContent is the upstream body, validated by the SDK against outputSchema.
    before = upstream.count("/v3/search")
    result = await client.call_tool("web_search", {"query": "rust"})
    check(not result.is_error, f"web_search(query=rust) should succeed; got {dump(result)}")
    body = upstream.last_body.get("/v3/search")
    check(upstream.count("/v3/search") == before + 1, f"expected 1 upstream /v3/search request, saw {upstream.count('/v3/search') - before}")
    check(result.structured_content == body, f"structuredContent should equal the upstream body {json.dumps(body)}; got {json.dumps(result.structured_content)}")
    texts = [b.text for b in result.content if getattr(b, "type", None) == "text"]
    check(bool(texts), f"a successful result should have a text content block; got {dump(result)}")
    try:
        text_json = json.loads(texts[0])
    except ValueError:
        text_json = None
    check(text_json == body, f"the first text block should be the upstream JSON; got {texts[0]!r}")
    sig = signals_of(result)
    check(
        set(sig) == {"tool", "contract_version", "attempts"},
        f"a healthy call's signals should carry only tool, contract_version, attempts; signals = {sig}",
    )
    check(sig.get("tool") == "web_search" and sig.get("attempts") == 1, f"signals should say tool=web_search, attempts=1; signals = {sig}")
    ok(label, "web_search(query=rust): structuredContent == upstream body (SDK validated it against outputSchema), text = JSON, signals ok")

    # The upstream renames results[].snippet to results[].excerpt.
    upstream.set_field("excerpt")
    before = upstream.count("/v3/search")
    result = await client.call_tool("web_search", {"query": "rust"})
    seen = upstream.count("/v3/search") - before
    text = text_of(result)
    check(result.is_error is True, f"after the rename web_search should return isError: true; got {dump(result)}")
    check(seen == 1, f"contract drift must not be retried: the upstream saw {seen} /v3/search requests, expected 1")
    for needle in ("results[].snippet", "results[].excerpt", "rename", "contract_drift", "alice@example.com"):
        check(needle in text, f"the drift message should mention {needle!r}; got {text!r}")
    sig = signals_of(result)
    check(sig.get("error_class") == "contract_drift" and sig.get("attempts") == 1, f"signals should say contract_drift after 1 attempt; signals = {sig}")
    changes = (sig.get("drift") or {}).get("changes") or []
    check(
        any(c.get("kind") == "renamed" and c.get("from") == "results[].snippet" and c.get("to") == "results[].excerpt" for c in changes),
        f"signals.drift.changes should hold the rename snippet -> excerpt; signals = {sig}",
    )
    ok(label, f"after the rename: isError after exactly 1 upstream request, text names the rename: {text.splitlines()[0][:110]}…")

    # 503 then 200: retried by toolgate, the caller sees the success.
    before = upstream.count("/flaky")
    result = await client.call_tool("flaky_status", {})
    seen = upstream.count("/flaky") - before
    check(not result.is_error, f"flaky_status should succeed after toolgate retries the 503; got {dump(result)}")
    check(seen == 2, f"flaky_status: the upstream should see 2 /flaky requests (503, 200); saw {seen}")
    check(result.structured_content == {"status": "ok"}, f"flaky_status structuredContent should be {{'status': 'ok'}}; got {result.structured_content!r}")
    sig = signals_of(result)
    check("error_class" not in sig and sig.get("attempts") == 2, f"signals should say success after 2 attempts; signals = {sig}")
    ok(label, "flaky_status: 503 then 200 -> success after 2 upstream requests (signals.attempts = 2)")

    # 400: not retried, reported as a client error with the upstream's text.
    before = upstream.count("/bad")
    result = await client.call_tool("bad_request", {})
    seen = upstream.count("/bad") - before
    text = text_of(result)
    check(result.is_error is True, f"bad_request should return isError: true; got {dump(result)}")
    check(seen == 1, f"a 400 must not be retried: the upstream saw {seen} /bad requests, expected 1")
    for needle in ("client_error", "limit must be at most 10"):
        check(needle in text, f"the 400 message should contain {needle!r}; got {text!r}")
    sig = signals_of(result)
    check(sig.get("error_class") == "client_error", f"signals.error_class should be client_error; signals = {sig}")
    ok(label, "bad_request: 400 -> isError, client_error with the upstream's text, 1 upstream request")

    # Arguments that break the input schema never reach the upstream.
    before = dict(upstream.counts)
    result = await client.call_tool("web_search", {"query": 42})
    text = text_of(result)
    check(result.is_error is True, f"web_search(query=42) should return isError: true; got {dump(result)}")
    check("client_error" in text, f"the invalid-arguments message should contain 'client_error'; got {text!r}")
    check(dict(upstream.counts) == before, f"invalid arguments reached the upstream: counts {before} -> {dict(upstream.counts)}")
    ok(label, "web_search(query=42): isError, client_error, no upstream request")

    if metrics_url is not None:
        status, text = http_get(metrics_url)
        check(status == 200, f"GET {metrics_url} returned {status}: {text[:300]!r}")
        line = re.search(r'^toolgate_contract_drift_total\{tool="web_search"\} (\S+)$', text, re.M)
        check(
            line is not None and float(line.group(1)) == 1,
            'GET /metrics should have toolgate_contract_drift_total{tool="web_search"} 1; drift lines: '
            + repr([ln for ln in text.splitlines() if "drift" in ln]),
        )
        ok(label, 'GET /metrics: toolgate_contract_drift_total{tool="web_search"} 1')


# --------------------------------------------------------------------------------------
# Transports
# --------------------------------------------------------------------------------------


def post_mcp(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    """POSTs one JSON-RPC message; returns the status, headers (lowercase) and body."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def one_server(label: str, url: str) -> None:
    """Every request on /mcp is answered by one server: a session's tools/call and a
    stateless one get the same answer, framed the same way (one application/json body),
    and closing the session succeeds."""
    status, headers, body = post_mcp(
        url,
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "interop", "version": "1"}}},
        {},
    )
    check(status == 200 and "mcp-session-id" in headers, f"initialize: {status} {headers} {body[:300]!r}")
    session = headers["mcp-session-id"]
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "web_search", "arguments": {"query": "rust"}}}
    s_status, s_headers, s_body = post_mcp(url, call, {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"})
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    stateless = {**call, "params": {**call["params"], "_meta": meta}}
    n_status, n_headers, n_body = post_mcp(
        url, stateless, {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "web_search"}
    )
    for what, st, hd, bd in (("session", s_status, s_headers, s_body), ("stateless", n_status, n_headers, n_body)):
        check(st == 200, f"{what} tools/call: HTTP {st}: {bd[:300]!r}")
        check(hd.get("content-type", "").startswith("application/json"), f"{what} tools/call: content-type {hd.get('content-type')}")
    in_session, no_session = json.loads(s_body), json.loads(n_body)
    same = ("content", "structuredContent", "isError")
    check(
        all(in_session["result"].get(k) == no_session["result"].get(k) for k in same),
        f"the session and stateless answers differ: {in_session} vs {no_session}",
    )
    check("resultType" not in in_session["result"] and no_session["result"].get("resultType") == "complete",
          "resultType must be in the 2026-07-28 answer only")
    request = urllib.request.Request(url, method="DELETE", headers={"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"})
    with urllib.request.urlopen(request, timeout=10) as response:
        check(response.status in (200, 204), f"DELETE /mcp answered {response.status}")
    ok(label, "one server: session and stateless tools/call get the same application/json answer; DELETE -> 200")


async def run_http(label: str, binary: str, mode: str, upstream: Upstream, work: Path) -> None:
    from mcp import Client

    port = free_port()
    config = write_config(work, upstream.base_url)
    log_path = work / "toolgate.log"
    base = f"http://127.0.0.1:{port}"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [binary, "serve", "--config", str(config), "--listen", f"127.0.0.1:{port}"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "NO_COLOR": "1"},
        )
    try:
        RUNNING.append(proc)
        wait_healthy(base, proc)
        ok(label, f"toolgate serve --listen 127.0.0.1:{port}: GET /healthz -> 200 ok")
        async with Client(f"{base}/mcp", mode=mode, read_timeout_seconds=20) as client:
            ok(label, f"connected, protocol version {client.protocol_version}")
            await scenario(label, client, upstream, f"{base}/metrics")
        one_server(label, f"{base}/mcp")
    except BaseException:
        show_log(log_path)
        raise
    finally:
        stop_process(proc)


async def run_stdio(label: str, binary: str, mode: str, upstream: Upstream, work: Path) -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    config = write_config(work, upstream.base_url)
    log_path = work / "toolgate.log"
    # --listen with --stdio also serves /metrics there.
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    params = StdioServerParameters(
        command=binary,
        args=["serve", "--config", str(config), "--stdio", "--listen", f"127.0.0.1:{port}"],
        env={"NO_COLOR": "1"},
    )
    with open(log_path, "w") as log:
        try:
            async with Client(stdio_client(params, errlog=log), mode=mode, read_timeout_seconds=20) as client:
                ok(label, f"toolgate serve --stdio: connected, protocol version {client.protocol_version}")
                wait_healthy(base, None)
                await scenario(label, client, upstream, f"{base}/metrics")
        except BaseException:
            log.flush()
            show_log(log_path)
            raise


RUNNING: list[subprocess.Popen[bytes]] = []


def show_log(path: Path) -> None:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return
    print(f"---- last lines of toolgate's log ({path}) ----", file=sys.stderr)
    for line in lines[-30:]:
        print(line, file=sys.stderr)
    print("----", file=sys.stderr)


def describe(exc: BaseException) -> str:
    """The innermost useful message of an exception (anyio wraps task errors in groups)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, CheckFailed):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


async def main_async(binary: str) -> int:
    import anyio

    transports = [
        ("http legacy", run_http, "legacy"),
        ("http 2026-07-28", run_http, "2026-07-28"),
        ("stdio legacy", run_stdio, "legacy"),
        ("stdio 2026-07-28", run_stdio, "2026-07-28"),
    ]
    upstream = Upstream().start()
    try:
        for label, runner, mode in transports:
            upstream.reset()
            work = Path(tempfile.mkdtemp(prefix="toolgate-interop-"))
            try:
                with anyio.fail_after(60):
                    await runner(label, binary, mode, upstream, work)
            except BaseException as e:  # noqa: BLE001 - report the first failure, whatever it is
                if isinstance(e, KeyboardInterrupt):
                    raise
                print(f"FAIL [{label}] {describe(e)}", file=sys.stderr, flush=True)
                if upstream.log:
                    print(f"     upstream saw: {upstream.log}", file=sys.stderr)
                print(f"interop: {PASSED} passed, 1 failed", flush=True)
                return 1
            finally:
                shutil.rmtree(work, ignore_errors=True)
    finally:
        upstream.stop()
    print(f"interop: {PASSED} passed, 0 failed", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary", nargs="?", help="path to the toolgate binary")
    parser.add_argument("--upstream-only", type=int, metavar="PORT", help="only serve the fake upstream on 127.0.0.1:PORT")
    args = parser.parse_args()
    if args.upstream_only is not None:
        return upstream_only(args.upstream_only)
    if not args.binary:
        parser.error("the toolgate binary is required")
    binary = os.path.abspath(args.binary)
    if not os.access(binary, os.X_OK):
        print(f"FAIL: {binary} is not an executable file (build it first: cargo build -p toolgate)", file=sys.stderr)
        return 2
    import anyio

    try:
        return anyio.run(main_async, binary)
    finally:
        for proc in RUNNING:
            stop_process(proc)


if __name__ == "__main__":
    sys.exit(main())
