#!/usr/bin/env bash
# Interop test: the MCP Inspector CLI (pinned in tests/interop/package.json) against a
# real toolgate binary over streamable HTTP.
#
#   npm install --prefix tests/interop     # once (Node.js and npm; follows package-lock.json)
#   tests/interop/inspector.sh ./target/debug/toolgate
#
# Starts the fake upstream from python_sdk.py (--upstream-only) and a toolgate on a free
# loopback port, then checks: tools/list lists web_search; a web_search call succeeds
# (exit 0, output has `snippet`); after the upstream renames snippet -> excerpt, the call
# exits 5 (isError) and the output names `excerpt`. Processes are killed on exit.
#
# Not `npm ci`: vite (an Inspector dependency) lists an optional package that
# the registry does not serve (napi-windows-process-start-time), so the lock file has no
# entry for it and `npm ci` refuses;
# `npm install` skips it and installs exactly the locked versions. The Inspector 2.12 wants
# Node >= 22.19 (npm warns EBADENGINE) but its CLI works on Node 20, which is what runs here.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
[ $# -eq 1 ] || { echo "usage: $0 /path/to/toolgate" >&2; exit 2; }
toolgate="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
[ -x "$toolgate" ] || { echo "FAIL: $toolgate is not executable (build it first)" >&2; exit 2; }
inspector="$here/node_modules/.bin/mcp-inspector"
[ -x "$inspector" ] || { echo "FAIL: $inspector is missing: run 'npm install --prefix tests/interop' first" >&2; exit 2; }
python="${PYTHON:-python3}"

tmp="$(mktemp -d)"
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

passed=0
ok() { passed=$((passed + 1)); echo "ok   [inspector] $*"; }
fail() {
  echo "FAIL [inspector] $*" >&2
  if [ -s "$tmp/toolgate.log" ]; then
    echo "---- last lines of toolgate's log ----" >&2
    tail -n 30 "$tmp/toolgate.log" >&2
    echo "----" >&2
  fi
  echo "inspector: $passed passed, 1 failed"
  exit 1
}

free_port() {
  "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# The upstream prints its port on its first line.
"$python" "$here/python_sdk.py" --upstream-only 0 >"$tmp/upstream.out" 2>"$tmp/upstream.err" &
pids+=($!)
for _ in $(seq 100); do
  [ -s "$tmp/upstream.out" ] && break
  sleep 0.1
done
upstream_port="$(head -n 1 "$tmp/upstream.out")"
[ -n "$upstream_port" ] || fail "the upstream did not start: $(cat "$tmp/upstream.err")"
upstream="http://127.0.0.1:$upstream_port"

cat >"$tmp/toolgate.yaml" <<EOF
gateway:
  state: $tmp/state.db
dependencies:
  search_api:
    base_url: $upstream
    timeout: 2s
    retry: { max_attempts: 3, base_delay: 10ms, max_delay: 50ms }
tools:
  web_search:
    dependency: search_api
    owner: alice@example.com
    description: Search the web.
    request: { method: GET, path: /v3/search, query: { q: "{query}" } }
    annotations: { readOnlyHint: true, idempotentHint: true }
    input_schema: { type: object, required: [query], properties: { query: { type: string } } }
    contract:
      version: "3.1"
      response_schema:
        type: object
        required: [results]
        properties:
          query: { type: string }
          results:
            type: array
            items:
              type: object
              required: [title, url, snippet]
              properties: { title: { type: string }, url: { type: string }, snippet: { type: string }, score: { type: number } }
EOF

port="$(free_port)"
NO_COLOR=1 "$toolgate" serve --config "$tmp/toolgate.yaml" --listen "127.0.0.1:$port" </dev/null >"$tmp/toolgate.log" 2>&1 &
toolgate_pid=$!
pids+=("$toolgate_pid")
base="http://127.0.0.1:$port"
healthy=""
for _ in $(seq 200); do
  kill -0 "$toolgate_pid" 2>/dev/null || fail "toolgate exited before /healthz answered"
  if [ "$(curl -fsS --max-time 1 "$base/healthz" 2>/dev/null || true)" = "ok" ]; then
    healthy=1
    break
  fi
  sleep 0.1
done
[ -n "$healthy" ] || fail "$base/healthz did not answer 'ok' within 20 s"
ok "toolgate serve --listen 127.0.0.1:$port: GET /healthz -> ok"

# The Inspector keeps a catalog and client config under $HOME: give it a throwaway one.
mkdir -p "$tmp/home"
run_inspector() {
  local out="$1"
  shift
  local rc=0
  HOME="$tmp/home" timeout 60 "$inspector" --cli "$base/mcp" --transport http "$@" >"$out" 2>&1 || rc=$?
  echo "$rc"
}

# --strict: exit 6 if a tool schema has an error-severity portability problem.
rc="$(run_inspector "$tmp/list.out" --method tools/list --strict)"
[ "$rc" = 0 ] || fail "tools/list --strict exited $rc: $(cat "$tmp/list.out")"
grep -q '"web_search"' "$tmp/list.out" || fail "tools/list does not list web_search: $(cat "$tmp/list.out")"
grep -q '"outputSchema"' "$tmp/list.out" || fail "tools/list: web_search has no outputSchema: $(cat "$tmp/list.out")"
ok "tools/list --strict lists web_search with an outputSchema, no schema portability errors"

rc="$(run_inspector "$tmp/list-modern.out" --protocol-era modern --method tools/list)"
[ "$rc" = 0 ] || fail "tools/list --protocol-era modern exited $rc: $(cat "$tmp/list-modern.out")"
grep -q '"web_search"' "$tmp/list-modern.out" || fail "tools/list (modern era) does not list web_search: $(cat "$tmp/list-modern.out")"
ok "tools/list --protocol-era modern (stateless 2026-07-28) lists web_search"

rc="$(run_inspector "$tmp/call1.out" --method tools/call --tool-name web_search --tool-arg query=rust)"
[ "$rc" = 0 ] || fail "web_search(query=rust) exited $rc: $(cat "$tmp/call1.out")"
grep -q 'snippet' "$tmp/call1.out" || fail "web_search(query=rust) output has no snippet: $(cat "$tmp/call1.out")"
grep -q '"structuredContent"' "$tmp/call1.out" || fail "web_search(query=rust) has no structuredContent: $(cat "$tmp/call1.out")"
ok "tools/call web_search query=rust -> exit 0, structuredContent with snippet"

curl -fsS --max-time 5 -X POST "$upstream/control?field=excerpt" >/dev/null || fail "POST $upstream/control?field=excerpt failed"
before="$(curl -fsS --max-time 5 "$upstream/counts")"

rc="$(run_inspector "$tmp/call2.out" --method tools/call --tool-name web_search --tool-arg query=rust)"
[ "$rc" = 5 ] || fail "after the rename web_search should exit 5 (isError); exited $rc: $(cat "$tmp/call2.out")"
grep -q 'excerpt' "$tmp/call2.out" || fail "the drift output does not mention excerpt: $(cat "$tmp/call2.out")"
grep -q 'contract_drift' "$tmp/call2.out" || fail "the drift output does not say contract_drift: $(cat "$tmp/call2.out")"
after="$(curl -fsS --max-time 5 "$upstream/counts")"
searches() { "$python" -c 'import json, sys; print(json.loads(sys.argv[1]).get("/v3/search", 0))' "$1"; }
[ $(( $(searches "$after") - $(searches "$before") )) = 1 ] \
  || fail "contract drift must not be retried: upstream /v3/search count went from $(searches "$before") to $(searches "$after")"
ok "after the rename: tools/call exits 5 after 1 upstream request, output names excerpt and contract_drift"

metrics="$(curl -fsS --max-time 5 "$base/metrics")"
grep -qx 'toolgate_contract_drift_total{tool="web_search"} 1' <<<"$metrics" \
  || fail "GET /metrics has no 'toolgate_contract_drift_total{tool=\"web_search\"} 1': $(grep drift <<<"$metrics" || true)"
ok 'GET /metrics: toolgate_contract_drift_total{tool="web_search"} 1'

echo "inspector: $passed passed, 0 failed"
