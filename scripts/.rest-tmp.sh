#!/usr/bin/env bash
# Runs every test toolgate has, installing what they need first.
# Usage: ./scripts/test        (from a fresh clone; needs cargo, python3, npm, network access to PyPI and npm)
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "generated files are up to date"
./target/debug/toolgate config-schema | diff -u docs/config.schema.json - \
  || { echo "docs/config.schema.json is stale: run ./target/debug/toolgate config-schema > docs/config.schema.json"; exit 1; }
./target/debug/toolgate signals-schema | diff -u docs/signals.schema.json - \
  || { echo "docs/signals.schema.json is stale: run ./target/debug/toolgate signals-schema > docs/signals.schema.json"; exit 1; }

step "Prometheus alerting rules: promtool check rules + promtool test rules"
tests/prometheus/run ./target/debug/toolgate

step "release binary (cargo build --release: the profile that ships; a second build of everything)"
release_start=$SECONDS
cargo build --release --locked -p toolgate
echo "release build: $((SECONDS - release_start)) s; target/release/toolgate is $(stat -c %s target/release/toolgate) bytes"

step "deploy: Kubernetes manifests (schemas, toolgate check) and the container image (buildah, from the release binary)"
tests/deploy/run ./target/release/toolgate

step "interop: official Python MCP SDK against toolgate (HTTP both eras, stdio)"
.venv/bin/python tests/interop/python_sdk.py ./target/debug/toolgate

step "interop: agent frameworks (langchain-mcp-adapters, openai-agents, pydantic-ai, fastmcp, llama-index, TypeScript SDK) against serve --demo"
# Pinned, one venv each under tests/frameworks (and tests/frameworks/ts/node_modules);
# a framework is installed only when it is missing or its pin changed.
tests/frameworks/run ./target/debug/toolgate

step "interop: MCP Inspector CLI against toolgate"
tests/interop/inspector.sh ./target/debug/toolgate

step "conformance: the official MCP suite's server scenarios against toolgate serve --demo"
tests/conformance/run ./target/debug/toolgate

step "upstreams: toolgate in front of real MCP servers (the Python SDK's server over stdio and HTTP, server-everything), the Python SDK as the agent"
.venv/bin/python tests/upstreams/fixture_server.py --self-test
.venv/bin/python tests/upstreams/test_upstreams.py ./target/debug/toolgate

step "conformance: the suite's server scenarios through toolgate fronting the project's fixture server (tests/conformance/fixture)"
tests/conformance/fronted ./target/debug/toolgate

step "all tests passed"
