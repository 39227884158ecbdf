"""What the end-to-end scripts under tests/ share: a check that stops the script with a
message, loopback ports, plain HTTP, Prometheus samples, waiting for a condition, and a
small JSON API to put behind toolgate.

A script imports it after putting tests/ on its path:

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from support.harness import CheckFailed, check, ...
"""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


class CheckFailed(Exception):
    """A check failed; the message says what was expected and what was found."""


def check(cond: bool, message: str) -> None:
    if not cond:
        raise CheckFailed(message)


def reporter(step: str) -> Callable[[str], None]:
    """`ok(what)` for one script: prints `ok   <step>: <what>` at once."""

    def ok(what: str) -> None:
        print(f"ok   {step}: {what}", flush=True)

    return ok


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method: str, url: str, body: Any = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    """One request with a JSON body (if any) as an MCP client sends it; HTTP errors are
    answers too: (status, lower-cased headers, text)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **(headers or {}),
    })
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read().decode(errors="replace")


def get(url: str) -> tuple[int, str]:
    """GET: (status, text); an HTTP error status is an answer, not an exception."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def sample(text: str, series: str) -> float:
    """The value of one series, written exactly as exposed (`name{label="v"}`), in a
    Prometheus text exposition; CheckFailed when it is not there."""
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line.rsplit(" ", 1)[1])
    raise CheckFailed(f"no sample {series} in /metrics")


def total(text: str, name: str, labels: str = "") -> float:
    """The sum of every series of `name` whose line holds each of the comma-separated
    `labels` (e.g. `tool="echo",result="ok"` written as `tool="echo"`)."""
    wanted = [label for label in labels.split(",") if label]
    sum_ = 0.0
    for line in text.splitlines():
        if line.startswith(name) and all(label in line for label in wanted):
            sum_ += float(line.rsplit(" ", 1)[1])
    return sum_


def wait_until(what: str, cond: Callable[[], Any], within: float = 15.0, step: float = 0.05) -> Any:
    """Polls `cond` until it returns something truthy and returns that. A CheckFailed
    from `cond` (a series not scraped yet, say) means "not yet". The bound only decides
    how long a failure takes to show."""
    deadline = time.monotonic() + within
    while True:
        try:
            value = cond()
            if value:
                return value
        except CheckFailed:
            pass
        if time.monotonic() > deadline:
            raise CheckFailed(f"{what}: not within {within} s")
        time.sleep(step)


def wait_http(url: str, proc: subprocess.Popen[bytes], what: str, within: float = 30.0) -> None:
    """Waits until `url` answers 200; fails at once if `proc` exits first."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise CheckFailed(f"{what} exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise CheckFailed(f"{what} did not answer {url} within {within:.0f} s")


def start_echo_upstream(delay_s: float = 0.0) -> ThreadingHTTPServer:
    """A loopback API: GET /echo?q=… answers {"q": …}, after `delay_s` (so calls can be
    in flight while something else happens). Stop it with `.shutdown()`."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            pass

        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            if delay_s:
                time.sleep(delay_s)
            q = parse_qs(urlsplit(self.path).query).get("q", [""])[0]
            body = json.dumps({"q": q}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
