#!/usr/bin/env python3
"""A fleet without session affinity: three toolgate replicas sharing one session key
(gateway.session_key_env) behind nginx with a plain round-robin upstream, and the
official Python MCP SDK as a handshake-era client (initialize + Mcp-Session-Id).

    .venv/bin/python tests/fleet/sessions.py /path/to/toolgate

The client lists tools and calls one tool several times over one session; nginx sends
each request to the next replica, so every replica serves requests of a session another
replica opened. A 2026-07-28 client (no session) then calls a fronted MCP server's tool
that asks it to sample: the call waits on the replica that answered with the question,
and the client's retry with the answer, which nginx sends to the next replica, is passed
on to that one (gateway.replica_url), so every call completes with the client's answer. Checked: every request of the session succeeds, nginx's access log shows
the session's requests spread over all three replicas (never two in a row on the same
one), each replica's /metrics counts calls of the tool, a forged or another fleet's
session id is refused with 404 (so a client initialises again), and DELETE ends the
session on the replica that receives it. Needs nginx (Debian package nginx).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPLICAS = 3
CALLS = 9

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.harness import (  # noqa: E402 - after the path it is found on
    CheckFailed, check, free_port, http, reporter, start_echo_upstream, total, wait_http, wait_until,
)

ok = reporter("fleet")
FIXTURE = Path(__file__).resolve().parents[1] / "upstreams" / "fixture_server.py"


CONFIG = """\
gateway:
  state: {state}
  session_key_env: FLEET_SESSION_KEY
  session_lifetime: 1h
  replica_url: "http://127.0.0.1:{port}/mcp"
mcp_servers:
  ks:
    command: [{python}, {fixture}, --stdio, --name, fixture-ks]
    owner: fleet@example.com
dependencies:
  api: {{ base_url: "http://127.0.0.1:{upstream}" }}
tools:
  echo:
    dependency: api
    owner: fleet@example.com
    description: Echo a word.
    request: {{ method: GET, path: /echo, query: {{ q: "{{word}}" }} }}
    input_schema: {{ type: object, required: [word], properties: {{ word: {{ type: string }} }} }}
    contract: {{ version: "1.0", response_schema: {{ type: object, required: [q] }} }}
"""

NGINX = """\
worker_processes 1;
daemon off;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 256; }}
http {{
  log_format fleet '$upstream_addr $request_method $status "$http_mcp_session_id" "$http_mcp_name"';
  access_log {work}/access.log fleet;
  client_body_temp_path {work}/body;
  proxy_temp_path {work}/proxy;
  fastcgi_temp_path {work}/fastcgi;
  uwsgi_temp_path {work}/uwsgi;
  scgi_temp_path {work}/scgi;
  upstream toolgate {{
{servers}
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://toolgate;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_read_timeout 60s;
    }}
  }}
}}
"""


async def drive(url: str) -> str:
    from mcp import Client

    async with Client(url, mode="legacy", read_timeout_seconds=20) as client:
        check(client.protocol_version <= "2025-11-25", f"expected a handshake-era session, got {client.protocol_version}")
        tools = await client.list_tools()
        check([t.name for t in tools.tools if t.name == "echo"] == ["echo"], f"tools/list: {tools}")
        for i in range(CALLS):
            result = await client.call_tool("echo", {"word": f"w{i}"})
            check(not result.is_error, f"call {i} failed: {result}")
            check(result.structured_content == {"q": f"w{i}"}, f"call {i}: {result.structured_content}")
        ok(f"Python SDK over one session: initialize, tools/list and {CALLS} tools/call through round-robin nginx")
        return str(client.protocol_version)


SAMPLED_CALLS = 4


async def drive_stateless(url: str) -> int:
    """A 2026-07-28 client calling a tool whose server asks it to sample; returns how
    often it was asked."""
    import mcp_types as types
    from mcp import Client

    asked = 0

    async def on_sampling(context: object, params: object) -> types.CreateMessageResult:
        nonlocal asked
        asked += 1
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text=f"answer {asked}"), model="test")

    async with Client(url, mode="2026-07-28", read_timeout_seconds=20, sampling_callback=on_sampling) as client:
        for i in range(SAMPLED_CALLS):
            result = await client.call_tool("ks__sample", {})
            text = " ".join(getattr(b, "text", "") for b in result.content)
            check(not result.is_error, f"sampled call {i} failed: {text}")
            check(f"answer {i + 1}" in text, f"sampled call {i}: the client's answer should reach the server; got {text}")
    return asked


def main() -> int:
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/debug/toolgate")
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    check(os.access(nginx, os.X_OK), "nginx is missing (apt-get install nginx)")
    work = Path(tempfile.mkdtemp(prefix="toolgate-fleet-"))
    os.chmod(work, 0o755)
    procs: list[subprocess.Popen[bytes]] = []
    upstream = start_echo_upstream()
    env = {**os.environ, "NO_COLOR": "1", "FLEET_SESSION_KEY": secrets.token_hex(32)}
    try:
        ports = [free_port() for _ in range(REPLICAS)]
        for n, port in enumerate(ports):
            d = work / f"replica{n}"
            d.mkdir()
            (d / "toolgate.yaml").write_text(CONFIG.format(
                state=d / "state.db", upstream=upstream.server_address[1], port=port,
                python=json.dumps(sys.executable), fixture=json.dumps(str(FIXTURE))))
            # The fronted server's tools are pinned, as in production.
            locked = subprocess.run([binary, "lock", "--config", str(d / "toolgate.yaml")], stdin=subprocess.DEVNULL,
                                    capture_output=True, env=env, timeout=120)
            check(locked.returncode == 0, f"toolgate lock, replica {n}: {(locked.stdout + locked.stderr).decode(errors='replace')}")
            log = open(d / "toolgate.log", "wb")
            procs.append(subprocess.Popen(
                [binary, "serve", "--config", str(d / "toolgate.yaml"), "--listen", f"127.0.0.1:{port}"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
            ))
            wait_http(f"http://127.0.0.1:{port}/healthz", procs[-1], f"replica {n}")
        ok(f"{REPLICAS} replicas with one session key on ports {ports}")
        front = free_port()
        servers = "\n".join(f"    server 127.0.0.1:{p};" for p in ports)
        (work / "nginx.conf").write_text(NGINX.format(work=work, servers=servers, port=front))
        ngx = subprocess.Popen([nginx, "-c", str(work / "nginx.conf"), "-p", str(work)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        procs.append(ngx)
        wait_http(f"http://127.0.0.1:{front}/healthz", ngx, "nginx")
        url = f"http://127.0.0.1:{front}/mcp"

        version = asyncio.run(drive(url))

        # What nginx saw: every request carrying the session id, in order.
        time.sleep(0.2)
        lines = (work / "access.log").read_text().splitlines()
        rows = [re.match(r'(\S+) (\S+) (\d+) "([^"]*)" "([^"]*)"', line).groups() for line in lines]
        session = [(addr, method, int(status)) for addr, method, status, sid, _ in rows if sid not in ("", "-")]
        posts = [r for r in session if r[1] == "POST"]
        check(len(posts) >= CALLS + 1, f"expected ≥ {CALLS + 1} POSTs of the session, nginx logged {session}")
        bad = [r for r in session if not 200 <= r[2] < 300]
        check(not bad, f"requests of the session were refused: {bad}")
        served = {addr for addr, _, _ in posts}
        check(served == {f"127.0.0.1:{p}" for p in ports}, f"the session's POSTs should reach all {REPLICAS} replicas; they reached {served}")
        check(all(a[0] != b[0] for a, b in zip(session, session[1:])),
              f"round robin should send consecutive requests to different replicas: {session}")
        ok(f"nginx: {len(session)} requests of one session ({version}) spread over {len(served)} replicas, all 2xx, none twice in a row on one replica")

        for n, port in enumerate(ports):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
                calls = total(r.read().decode(), "toolgate_tool_calls_total", 'tool="echo"')
            check(calls >= 1, f"replica {n} counted no call of echo")
        ok("each replica's /metrics counts calls of echo made over the one session")

        # A 2026-07-28 client's questions: each retry reaches another replica than the
        # one holding its call, which it is passed on to.
        logged = len((work / "access.log").read_text().splitlines())
        asked = asyncio.run(drive_stateless(url))
        check(asked == SAMPLED_CALLS, f"the client should be asked once per call; it was asked {asked} times")
        time.sleep(0.2)
        lines = (work / "access.log").read_text().splitlines()[logged:]
        sampled = [line.split()[0] for line in lines if line.endswith('"ks__sample"')]
        check(len(sampled) == 2 * SAMPLED_CALLS, f"each sampled call should be two POSTs (the call, its retry); nginx logged {lines}")
        pairs = list(zip(sampled[::2], sampled[1::2]))
        check(all(first != retry for first, retry in pairs), f"round robin should send each retry to another replica: {pairs}")
        hops = ", ".join(f"{a.rsplit(':', 1)[1]} then {b.rsplit(':', 1)[1]}" for a, b in pairs)
        ok(f"2026-07-28 client: {SAMPLED_CALLS} calls asked it to sample; each retry reached another replica than the call "
           f"({hops}) and was passed on; every answer reached the server")

        # Ids no replica of this fleet sealed are 404, so a client initialises again.
        headers = {"MCP-Protocol-Version": "2025-11-25"}
        listing = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}
        status, hd, body = http("POST", url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fleet", "version": "1"}}}, headers)
        check(status == 200 and hd.get("mcp-session-id", "").startswith("tg1."), f"initialize: {status} {hd}")
        sid = hd["mcp-session-id"]
        for _ in range(REPLICAS):
            status, _, body = http("POST", url, listing, {**headers, "Mcp-Session-Id": sid})
            check(status == 200 and '"echo"' in body, f"tools/list on the next replica: {status} {body[:200]}")
        forged = sid[:-2] + ("AA" if not sid.endswith("AA") else "BB")
        other_key = sid.rsplit(".", 1)[0] + "." + "A" * 43
        for what, bad_id in (("altered", forged), ("unsigned", other_key), ("random", secrets.token_hex(16))):
            for _ in range(REPLICAS):
                status, _, body = http("POST", url, listing, {**headers, "Mcp-Session-Id": bad_id})
                check(status == 404, f"a {what} session id should be 404 on every replica; got {status} {body[:200]}")
        ok("altered, unsigned and random session ids: 404 on every replica")

        # DELETE ends the session on the replica that receives it. nginx logs a request
        # after it has sent the answer, so the test waits for the DELETE's own log line
        # (an earlier session's DELETE is in the log too) before asking which replica.
        def deletes() -> list[str]:
            return [r for r in (work / "access.log").read_text().splitlines() if " DELETE " in r]
        logged_before = len(deletes())
        status, _, _ = http("DELETE", url, None, {**headers, "Mcp-Session-Id": sid})
        check(status == 200, f"DELETE: {status}")
        logged = wait_until("nginx's access log line of the DELETE", lambda: deletes()[logged_before:])
        deleted_on = logged[-1].split()[0]
        port = int(deleted_on.rsplit(":", 1)[1])
        status, _, _ = http("POST", f"http://127.0.0.1:{port}/mcp", listing, {**headers, "Mcp-Session-Id": sid})
        check(status == 404, f"after DELETE the replica that ended the session should answer 404; got {status}")
        ok(f"DELETE through nginx -> 200; the replica that got it ({deleted_on}) then answers 404")
        return 0
    except BaseException:
        for n in range(REPLICAS):
            log = work / f"replica{n}" / "toolgate.log"
            if log.exists():
                print(f"--- replica {n} log (tail) ---", file=sys.stderr)
                print("\n".join(log.read_text(errors="replace").splitlines()[-25:]), file=sys.stderr)
        if (work / "access.log").exists():
            print("--- nginx access log ---\n" + (work / "access.log").read_text(), file=sys.stderr)
        raise
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()
        upstream.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CheckFailed as e:
        print(f"FAIL fleet: {e}", file=sys.stderr)
        sys.exit(1)
