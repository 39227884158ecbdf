#!/usr/bin/env python3
"""Reload under load: 8 agents (the official Python MCP SDK, one session each) call tools
for 20 s while toolgate's config is reloaded 20 times, then a graceful stop.

    .venv/bin/python tests/reload/test_reload.py /path/to/toolgate

The reloads alternate SIGHUP and `toolgate reload -c F`, and each one changes the config:
a tool is added or removed, an upstream MCP server (tests/upstreams/fixture_server.py
over stdio) is added or removed, and the timeout of one dependency changes. One more
reload writes a broken file. Checked: no agent call fails; each accepted reload raises
`toolgate_config_generation` by one and tools/list follows it; the broken file is rejected by `toolgate reload`
(exit 1, every error printed), the generation stays, and calls go on; the dependency
the agents call keeps its latency baseline across all reloads while the one whose
timeout changes starts over; the tools listed follow the last config; on SIGTERM
`/readyz` answers 503 at once while `/mcp` still answers during `shutdown_delay`, and
the process exits 0.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

AGENTS = 8
DURATION_S = 20.0
RELOADS = 20
HERE = Path(__file__).resolve().parent
FIXTURE = HERE.parent / "upstreams" / "fixture_server.py"

sys.path.insert(0, str(HERE.parent))
from support.harness import (  # noqa: E402 - after the path it is found on
    CheckFailed, check, free_port, get, reporter, sample, start_echo_upstream, wait_http, wait_until,
)

ok = reporter("reload")


def tool(name: str, dependency: str) -> str:
    return f"""\
  {name}:
    dependency: {dependency}
    owner: reload@example.com
    description: Echo a word.
    request: {{ method: GET, path: /echo, query: {{ q: "{{word}}" }} }}
    annotations: {{ readOnlyHint: true }}
    input_schema: {{ type: object, required: [word], properties: {{ word: {{ type: string }} }} }}
    contract: {{ version: "1.0", response_schema: {{ type: object, required: [q] }} }}
"""


def config(work: Path, port: int, upstream: int, step: int) -> str:
    """The config of reload `step` (0: the one served at start)."""
    text = f"""\
gateway:
  listen: 127.0.0.1:{port}
  state: {work / "state.db"}
  shutdown_delay: 2s
  drain: 10s
dependencies:
  api: {{ base_url: "http://127.0.0.1:{upstream}" }}
  other_api: {{ base_url: "http://127.0.0.1:{upstream}", timeout: {5 + step % 2}s }}
tools:
{tool("echo", "api")}{tool("echo_other", "other_api")}"""
    if step % 2 == 1:
        text += tool("echo_extra", "api")
    if (step // 2) % 2 == 1:
        command = json.dumps([sys.executable, str(FIXTURE), "--stdio", "--name", "fixture-kb"])
        text += f"""\
mcp_servers:
  kb:
    command: {command}
    owner: reload@example.com
    prefix: kb
"""
    return text


def expected_tools(step: int) -> set[str]:
    tools = {"echo", "echo_other", "dependency_health"}
    if step % 2 == 1:
        tools.add("echo_extra")
    if (step // 2) % 2 == 1:
        tools |= KB_TOOLS
    return tools


# What tests/upstreams/fixture_server.py serves, under the server's prefix.
KB_TOOLS = {f"kb__{t}" for t in ("search", "slow", "notify", "sample", "fail", "crash")}


BROKEN = """\
gateway:
  listen: 127.0.0.1:{port}
  state: {state}
dependencies:
  api: {{ base_url: "http://127.0.0.1:{upstream}", timeout: soon }}
tools:
  echo:
    dependency: nowhere
    request: {{ path: /echo }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
"""


def generation(base: str) -> int:
    return int(sample(get(f"{base}/metrics")[1], "toolgate_config_generation"))


def latency(base: str, dependency: str) -> dict[str, Any]:
    status, body = get(f"{base}/admin/health")
    check(status == 200, f"/admin/health: {status} {body[:200]}")
    return json.loads(body)["dependencies"][dependency]["latency"]


class Load:
    """Agents calling tools until stopped; every failure is kept."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.calls = 0
        self.lists = 0
        self.failures: list[str] = []
        self.stop = asyncio.Event()

    async def agent(self, n: int) -> None:
        from mcp import Client

        try:
            async with Client(self.url, mode="legacy", read_timeout_seconds=20) as client:
                i = 0
                while not self.stop.is_set():
                    i += 1
                    word = f"a{n}-{i}"
                    try:
                        result = await client.call_tool("echo", {"word": word})
                        if result.is_error or result.structured_content != {"q": word}:
                            self.failures.append(f"agent {n} call {i}: {result}")
                        self.calls += 1
                        if i % 10 == 0:
                            names = {t.name for t in (await client.list_tools()).tools}
                            if "echo" not in names:
                                self.failures.append(f"agent {n}: tools/list without echo: {names}")
                            self.lists += 1
                    except Exception as e:  # noqa: BLE001 - every failure counts
                        self.failures.append(f"agent {n} call {i}: {type(e).__name__}: {e}")
        except Exception as e:  # noqa: BLE001
            self.failures.append(f"agent {n} session: {type(e).__name__}: {e}")

    async def run(self) -> None:
        await asyncio.gather(*(self.agent(n) for n in range(AGENTS)))


async def warm_up(url: str) -> None:
    """Enough calls on both dependencies for their latency baselines (20 successes)."""
    from mcp import Client

    async with Client(url, mode="legacy", read_timeout_seconds=20) as client:
        for i in range(30):
            for name in ("echo", "echo_other"):
                result = await client.call_tool(name, {"word": f"w{i}"})
                check(not result.is_error, f"warm-up {name}: {result}")


async def listed(url: str) -> set[str]:
    from mcp import Client

    async with Client(url, mode="legacy", read_timeout_seconds=20) as client:
        return {t.name for t in (await client.list_tools()).tools}


def reload_with_cli(binary: str, path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([binary, "reload", "-c", str(path)], capture_output=True, text=True, env=env, timeout=60)


def reloads(binary: str, proc: subprocess.Popen[bytes], work: Path, port: int, upstream: int,
            env: dict[str, str], stats: dict[str, Any]) -> None:
    """Runs in a thread while the agents call: RELOADS reloads a second apart, plus the
    broken file after the tenth."""
    base = f"http://127.0.0.1:{port}"
    path = work / "toolgate.yaml"
    pause = DURATION_S / (RELOADS + 2)
    for step in range(1, RELOADS + 1):
        time.sleep(pause)
        before = generation(base)
        path.write_text(config(work, port, upstream, step))
        if step % 2 == 1:
            proc.send_signal(signal.SIGHUP)
            wait_until(f"SIGHUP reload {step}", lambda: generation(base) == before + 1)
            stats["sighup"] += 1
        else:
            done = reload_with_cli(binary, path, env)
            check(done.returncode == 0, f"toolgate reload {step}: exit {done.returncode}\n{done.stdout}{done.stderr}")
            check(f"generation {before + 1}" in done.stdout, f"toolgate reload {step}: {done.stdout}")
            stats["cli"] += 1
        check(generation(base) == before + 1, f"reload {step}: generation {generation(base)}, expected {before + 1}")
        # The tools follow the config: echo_extra added or removed at once, the kb server's
        # tools once it was started and listed (or gone with it).
        want = expected_tools(step)
        wait_until(f"reload {step}: tools/list shows {sorted(want)}",
                 lambda: asyncio.run(listed(f"{base}/mcp")) == want)
        baseline = latency(base, "api")["baseline_ms"]
        check(baseline is not None, f"reload {step}: the api dependency lost its latency baseline")
        other = latency(base, "other_api")
        check(other["samples"] == 0 and other["baseline_ms"] is None,
              f"reload {step}: other_api's timeout changed, so its state should start over: {other}")
        stats["baselines"].append(baseline)
        if step == RELOADS // 2:
            path.write_text(BROKEN.format(port=port, state=work / "state.db", upstream=upstream))
            g = generation(base)
            done = reload_with_cli(binary, path, env)
            check(done.returncode == 1, f"a broken config must be rejected (exit 1): {done.returncode}\n{done.stdout}{done.stderr}")
            for field in ("dependencies.api.timeout", "tools.echo"):
                check(field in done.stderr, f"the rejection should name {field}: {done.stderr}")
            check(generation(base) == g, "a rejected config must not change the generation")
            proc.send_signal(signal.SIGHUP)
            wait_until("the SIGHUP rejection counted", lambda: sample(
                get(f"{base}/metrics")[1], 'toolgate_config_reloads_total{result="rejected"}') == 1)
            check(generation(base) == g, "a rejected config (SIGHUP) must not change the generation")
            stats["rejected"] = done.stderr.count("error:")
            path.write_text(config(work, port, upstream, step))


def main() -> int:
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/debug/toolgate")
    work = Path(tempfile.mkdtemp(prefix="toolgate-reload-"))
    upstream = start_echo_upstream(delay_s=0.005)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    url = f"{base}/mcp"
    env = {**os.environ, "NO_COLOR": "1"}
    path = work / "toolgate.yaml"
    path.write_text(config(work, port, upstream.server_address[1], 0))
    log = open(work / "toolgate.log", "wb")
    proc = subprocess.Popen([binary, "serve", "--config", str(path)], cwd=work,
                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        wait_http(f"{base}/readyz", proc, "toolgate")
        check(generation(base) == 1, "generation 1 at start-up")
        asyncio.run(warm_up(url))
        check(latency(base, "api")["baseline_ms"] is not None, "the api dependency has a baseline after warm-up")
        ok("serving generation 1; both dependencies have a latency baseline")

        stats: dict[str, Any] = {"sighup": 0, "cli": 0, "baselines": [], "rejected": 0}
        errors: list[BaseException] = []

        def reloader() -> None:
            try:
                reloads(binary, proc, work, port, upstream.server_address[1], env, stats)
            except BaseException as e:  # noqa: BLE001 - reported by the main thread
                errors.append(e)

        async def under_load() -> Load:
            load = Load(url)
            agents = asyncio.create_task(load.run())
            thread = threading.Thread(target=reloader)
            started = time.monotonic()
            thread.start()
            while thread.is_alive() or time.monotonic() - started < DURATION_S:
                await asyncio.sleep(0.1)
            load.stop.set()
            await agents
            thread.join()
            return load

        load = asyncio.run(under_load())
        if errors:
            raise errors[0]
        check(not load.failures, f"{len(load.failures)} failed calls of {load.calls}: {load.failures[:5]}")
        check(load.calls > 0 and load.lists > 0, f"the agents made {load.calls} calls, {load.lists} lists")
        ok(f"{AGENTS} agents: {load.calls} calls and {load.lists} tools/list, 0 failed, "
           f"during {RELOADS} reloads ({stats['sighup']} SIGHUP, {stats['cli']} `toolgate reload`), "
           "each followed by tools/list (echo_extra and the kb server's tools added and removed)")
        check(generation(base) == 1 + RELOADS, f"generation {generation(base)} after {RELOADS} reloads")
        metrics = get(f"{base}/metrics")[1]
        check(sample(metrics, 'toolgate_config_reloads_total{result="ok"}') == RELOADS, "reloads counted ok")
        # `toolgate reload` refuses a file that does not compile before sending it; the
        # gateway counted the SIGHUP's rejection.
        check(sample(metrics, 'toolgate_config_reloads_total{result="rejected"}') == 1, "the rejection counted")
        check(sample(metrics, "toolgate_config_last_reload_successful") == 1, "the last reload succeeded")
        ok(f"generation {1 + RELOADS}; the broken file was rejected by `toolgate reload` ({stats['rejected']} errors printed) "
           "and by SIGHUP, and the old config kept serving")
        ok(f"the api dependency kept its latency baseline through every reload "
           f"({min(stats['baselines'])}–{max(stats['baselines'])} ms); other_api started over at each timeout change")

        final = expected_tools(RELOADS)
        wait_until("tools/list follows the last config", lambda: asyncio.run(listed(url)) == final)
        ok(f"tools/list after the last reload: {sorted(final)}")

        # A graceful stop: readiness fails at once, /mcp answers during shutdown_delay.
        proc.send_signal(signal.SIGTERM)
        wait_until("/readyz answers 503 after SIGTERM", lambda: get(f"{base}/readyz")[0] == 503, within=1.5)
        names = asyncio.run(listed(url))
        check("echo" in names, f"tools/list during the shutdown delay: {names}")
        code = proc.wait(timeout=30)
        check(code == 0, f"toolgate exited with {code}")
        ok("SIGTERM: /readyz 503 at once, a new session still served during shutdown_delay, exit 0")
        return 0
    except BaseException:
        print("--- toolgate log (tail) ---", file=sys.stderr)
        print("\n".join((work / "toolgate.log").read_text(errors="replace").splitlines()[-40:]), file=sys.stderr)
        raise
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        upstream.shutdown()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CheckFailed as e:
        print(f"FAIL reload: {e}", file=sys.stderr)
        sys.exit(1)
