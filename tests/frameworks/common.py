"""Shared parts of the framework interop tests: `toolgate serve --demo` on a free loopback
port (in a scratch directory, so its state store is its own), the four probes every
framework is put through, and the row each script prints for docs/operations.md.

The probes (the demo's own tools, no model anywhere):
  tools   the tool list the framework hands the model, with the input and output schemas
  healthy web_search(query=rust): the upstream's results reach the model
  note    legacy_search(query=rust): the `toolgate:` deprecation note reaches the model
  drift   demo_control(search_field=excerpt), then web_search: the model is told it failed
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from typing import Any, Iterator

NOTE = "toolgate: legacy_search is deprecated"
# The first words of the drift text: what makes it read as a failure without `isError`.
DRIFT = "web_search failed: the upstream response no longer matches contract"
FAILURES: list[str] = []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def demo(binary: str) -> Iterator[str]:
    """`toolgate serve --demo` on loopback; yields the /mcp URL."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="toolgate-frameworks-") as work:
        log = open(os.path.join(work, "serve.log"), "wb")
        proc = subprocess.Popen(
            [os.path.abspath(binary), "serve", "--demo", "--listen", f"127.0.0.1:{port}"],
            cwd=work,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                        break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        log.flush()
                        raise SystemExit(f"toolgate serve --demo did not start: {open(log.name).read()[-2000:]}")
                    time.sleep(0.1)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
            log.close()


def text_of(value: Any) -> str:
    """Everything the model would read, as one string (JSON for structured values)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, default=str, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def check(label: str, cond: bool, detail: str) -> bool:
    if cond:
        print(f"  ok   {label}")
    else:
        print(f"  FAIL {label}: {detail[:600]}")
        FAILURES.append(f"{label}: {detail[:600]}")
    return cond


def row(framework: str, version: str, note: bool, drift: bool, how: str) -> None:
    """One line of the table in docs/operations.md."""
    yes = lambda b: "yes" if b else "**no**"  # noqa: E731
    print(f"| {framework} {version} | {yes(note)} | {yes(drift)} | {how} |")


def finish() -> None:
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed", file=sys.stderr)
        sys.exit(1)


def version(dist: str) -> str:
    from importlib.metadata import version as v

    return v(dist)
