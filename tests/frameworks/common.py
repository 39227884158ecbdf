"""Shared parts of the framework interop tests: `toolgate serve --demo` on a free loopback
port (in a scratch directory, so its state store is its own), the four probes every
framework is put through, and the row each script prints for docs/operations.md.

The probes (the demo's own tools, no model anywhere):
  tools   the tool list the framework hands the model, with the input and output schemas
  healthy web_search(query=rust): the upstream's results reach the model
  note    legacy_search(query=rust): the `toolgate:` deprecation note reaches the model
  drift   demo_control(search_field=excerpt), then web_search: the model is told it failed

Every framework is also put through (by `judge`, with `PROBES` and `BUSY` made in order):
  listing  every tool's name, description and input schema (web_search's `limit` maximum)
  refused  web_search(limit=50): refused before anything is sent, by the framework or by
           toolgate, whose sentence must then reach the model
  once     the drift reaches the model after one call: the framework does not call again
  throttle busy_search, whose upstream answers 429 with Retry-After: 120: the wait reaches
           the model, and the framework does not call again
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from typing import Any, Callable, Iterator

# Nothing here reports usage anywhere or fetches anything at import: the frameworks that
# would, are told not to.
for _var, _off in (("MCP_USE_ANONYMIZED_TELEMETRY", "false"), ("AGNO_TELEMETRY", "false"),
                   ("HAYSTACK_TELEMETRY_ENABLED", "False"), ("CREWAI_DISABLE_TELEMETRY", "true"),
                   ("OTEL_SDK_DISABLED", "true"), ("DO_NOT_TRACK", "1"),
                   ("UPSONIC_TELEMETRY", "false"), ("LITELLM_LOCAL_MODEL_COST_MAP", "True")):
    os.environ.setdefault(_var, _off)

NOTE = "toolgate: legacy_search is deprecated"
# The first words of the drift text: what makes it read as a failure without `isError`.
DRIFT = "web_search failed: the upstream response no longer matches contract"
FAILURES: list[str] = []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _config_schema(binary: str) -> str:
    try:
        return subprocess.run([os.path.abspath(binary), "config-schema"], capture_output=True, text=True, timeout=60).stdout
    except OSError:
        return ""


# The body as the only text block: the default notes placement with
# `gateway.structured_content: false`, measured like a notes mode.
TEXT_ONLY = "structured_content: false"


def _modes(schema: str) -> tuple[str, ...]:
    """Every placement of the notes (`gateway.notes`) the binary offers, the default (the
    demo's own) first: `inline` where the binary's schema names it, `both` before."""
    return ("inline", "both", "text", "structured") if "`inline`" in schema else ("both", "text", "structured")


# Every driver (and `python -c 'import common; …' BINARY`) is run with the binary last.
_SCHEMA = _config_schema(sys.argv[-1]) if len(sys.argv) > 1 else "`inline` structured_content"
MODES = _modes(_SCHEMA)
DEFAULT = MODES[0]
# What each driver measures: the notes modes, then the default without `structuredContent`
# where the binary has that setting.
MEASURED = (*MODES, TEXT_ONLY) if "structured_content" in _SCHEMA else MODES


def header() -> str:
    """The table's header, one column per setup measured."""
    cols = [f"note reaches the model, `notes: {DEFAULT}` (default)", *(f"`notes: {m}`" for m in MODES[1:])]
    if TEXT_ONLY in MEASURED:
        cols.append(f"`{TEXT_ONLY}`")
    cols = ["client (version)", *cols, "drift reaches the model as an error?",
            f"characters of a healthy call handed to the model (× the body's): default / `{TEXT_ONLY}`", "how"]
    return "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols)

# The three demo tools the probes use, served by a second toolgate in front of the demo
# upstream (which `serve --demo` also mounts under /demo), to measure the other modes.
MODE_CONFIG = """
gateway:
  state: {state}
  notes: {mode}
  structured_content: {structured_content}
dependencies:
  search_api: {{ base_url: "{base}" }}
  legacy_api: {{ base_url: "{base}/legacy" }}
  demo_admin: {{ base_url: "{base}" }}
tools:
  web_search:
    dependency: search_api
    owner: search-team@example.com
    request: {{ path: /v3/search, query: {{ q: "{{query}}", limit: "{{limit}}" }} }}
    annotations: {{ readOnlyHint: true }}
    input_schema:
      type: object
      required: [query]
      properties: {{ query: {{ type: string }}, limit: {{ type: integer, minimum: 1, maximum: 10 }} }}
    contract:
      version: "3.1"
      response_schema:
        type: object
        required: [results]
        properties:
          results: {{ type: array, items: {{ type: object, required: [title, url, snippet] }} }}
  legacy_search:
    dependency: legacy_api
    owner: search-team@example.com
    request: {{ path: /search, query: {{ q: "{{query}}" }} }}
    input_schema: {{ type: object, required: [query], properties: {{ query: {{ type: string }} }} }}
    successor: web_search
    contract: {{ version: "2.0", response_schema: {{ type: object, required: [hits] }} }}
  demo_control:
    dependency: demo_admin
    owner: demo@example.com
    request: {{ method: POST, path: /control, body: {{ search_field: "{{search_field}}" }} }}
    input_schema: {{ type: object, properties: {{ search_field: {{ type: string }} }} }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
"""


@contextmanager
def _serve(binary: str, work: str, name: str, args: list[str], port: int) -> Iterator[None]:
    log = open(os.path.join(work, f"{name}.log"), "wb")
    proc = subprocess.Popen(
        [os.path.abspath(binary), "serve", *args, "--listen", f"127.0.0.1:{port}"],
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
                    raise SystemExit(f"toolgate serve {' '.join(args)} did not start: {open(log.name).read()[-2000:]}")
                time.sleep(0.1)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@contextmanager
def demo(binary: str, mode: str = DEFAULT) -> Iterator[str]:
    """`toolgate serve --demo` on loopback (for the default), or a second toolgate
    with `gateway.notes: mode` (or, for `TEXT_ONLY`, the default notes and
    `gateway.structured_content: false`) in front of its upstream; yields the /mcp URL."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="toolgate-frameworks-") as work:
        with _serve(binary, work, "demo", ["--demo"], port):
            if mode == DEFAULT:
                yield f"http://127.0.0.1:{port}/mcp"
                return
            config = os.path.join(work, "notes.yaml")
            with open(config, "w") as f:
                notes, structured_content = (DEFAULT, "false") if mode == TEXT_ONLY else (mode, "true")
                f.write(MODE_CONFIG.format(state=os.path.join(work, "notes.db"), mode=notes, structured_content=structured_content,
                                           base=f"http://127.0.0.1:{port}/demo"))
            second = free_port()
            with _serve(binary, work, "notes", ["-c", config], second):
                yield f"http://127.0.0.1:{second}/mcp"


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


def row(framework: str, version: str, notes: dict[str, bool], drift: bool, sizes: dict[str, tuple[int, float]], how: str) -> None:
    """One line of the table in docs/operations.md: whether the note reached the model
    under each setup measured, whether the drift reached it as an error, and how many
    characters of a healthy call it was handed by default and without `structuredContent`."""
    yes = lambda b: "yes" if b else "**no**"  # noqa: E731
    size = lambda m: f"{sizes[m][0]} ({sizes[m][1]:.1f}×)" if m in sizes else "—"  # noqa: E731
    print(f"| {framework} {version} | {' | '.join(yes(notes[m]) for m in MEASURED)} | {yes(drift)} | "
          f"{size(DEFAULT)} / {size(TEXT_ONLY)} | {how} |")


# What `report_size` measured under each setup, for the row `run_modes` prints.
_SIZES: dict[str, tuple[int, float]] = {}

# One event loop for every asynchronous probe of a driver, as when the whole driver ran
# under one `asyncio.run`; `finish` closes it.
_LOOP: asyncio.Runner | None = None


def _complete(result: Any) -> Any:
    global _LOOP
    if not inspect.isawaitable(result):
        return result
    if _LOOP is None:
        _LOOP = asyncio.Runner()
    return _LOOP.run(result)


def run_modes(binary: str, probe: Callable[..., Any], framework: str, version: str, how: str, *args: Any) -> None:
    """Runs `probe(url, mode, *args)` (a function or a coroutine function) once per setup
    measured, each against its own toolgate, and prints the framework's row: the note per
    setup as the probe saw it, the drift as an error only if it was one under every setup,
    and the sizes the probe reported."""
    notes, drift = {}, True
    _SIZES.clear()
    for mode in MEASURED:
        with demo(binary, mode) as url:
            notes[mode], got_drift = _complete(probe(url, mode, *args))
            drift = drift and got_drift
    row(framework, version, notes, drift, dict(_SIZES), how)


def note_check(mode: str, label: str, reached: bool, detail: str, misses: tuple[str, ...] = ()) -> bool:
    """The note must reach the model under the default; under the others it is measured.
    `misses` names the modes under which a framework is known to lose it: there the test
    asserts that it is still lost, so that the table cannot go stale either way."""
    if mode in misses:
        check(f"{label} (known not to)", not reached, f"it now does: update the table ({detail})")
        return reached
    if mode == DEFAULT:
        return check(label, reached, detail)
    print(f"  --   {label}: {'reached' if reached else 'did not reach'} the model")
    return reached


def _rpc(url: str, session: str | None, body: dict) -> tuple[str | None, Any]:
    """One JSON-RPC message over streamable HTTP, stdlib only; the answer may come as JSON
    or as one server-sent event."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}
    if session:
        headers["Mcp-Session-Id"] = session
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=30) as resp:
        raw = resp.read().decode()
        session = resp.headers.get("Mcp-Session-Id") or session
    if not raw.strip():
        return session, None
    if raw.lstrip().startswith("{"):
        return session, json.loads(raw)
    data = [line[5:].strip() for line in raw.splitlines() if line.startswith("data:")]
    return session, json.loads(data[-1]) if data else None


def healthy_body_chars(url: str) -> int:
    """The size of the healthy call's body as toolgate serves it: the characters of the
    text blocks of `web_search(query=rust)`, called without a framework."""
    session, _ = _rpc(url, None, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "size", "version": "1"}}})
    _rpc(url, session, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    _, answer = _rpc(url, session, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                    "params": {"name": "web_search", "arguments": {"query": "rust"}}})
    return sum(len(c.get("text", "")) for c in answer["result"]["content"])


def report_size(mode: str, body: int, handed: str, label: str | None = None) -> float:
    """Prints how much of a healthy call reaches the model against the body's own size
    (`healthy_body_chars`, taken before the drift probe changes the body), and what of the
    result besides the text blocks is in it (a second copy of the results is
    `structuredContent`); keeps it for the row; returns the ratio."""
    extra = [name for name, found in (("structuredContent", handed.count("Result 1 for rust") > 1),
                                      ("_meta", "dev.toolgate/signals" in handed)) if found]
    ratio = len(handed) / body if body else 0.0
    _SIZES[mode] = (len(handed), ratio)
    print(f"  --   {label or mode}: a healthy call hands the model {len(handed)} characters for a body of {body} "
          f"({ratio:.1f}x){'; also ' + ' and '.join(extra) if extra else ''}")
    return ratio


def finish() -> None:
    if _LOOP is not None:
        _LOOP.close()
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed", file=sys.stderr)
        sys.exit(1)


def version(dist: str) -> str:
    from importlib.metadata import version as v

    return v(dist)


# The extra probes of `judge` (see the module's docstring).
REFUSED = "web_search was not called: the arguments are invalid (/limit: 50 is greater than the maximum of 10)"
THROTTLE = "busy_search failed: the upstream answered HTTP 429"
WAIT = "retry after 2 min"

THROTTLE_CONFIG = """
gateway: {{ state: {state} }}
dependencies:
  busy_api: {{ base_url: "{base}" }}
tools:
  busy_search:
    dependency: busy_api
    owner: search-team@example.com
    description: Search a busy index.
    request: {{ path: /search, query: {{ q: "{{query}}" }} }}
    input_schema: {{ type: object, required: [query], properties: {{ query: {{ type: string }} }} }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
"""


@contextmanager
def throttled(binary: str) -> Iterator[str]:
    """A toolgate whose one tool, `busy_search`, calls an upstream that answers every
    request with 429 and `Retry-After: 120` (longer than a call's deadline, so toolgate
    answers at once with the wait); yields its /mcp URL."""
    import http.server
    import threading

    class Busy(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = b'{"message":"API rate limit exceeded"}'
            self.send_response(429)
            for name, value in (("Retry-After", "120"), ("Content-Type", "application/json"), ("Content-Length", str(len(body)))):
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            pass

    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Busy)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    try:
        with tempfile.TemporaryDirectory(prefix="toolgate-frameworks-") as work:
            config = os.path.join(work, "busy.yaml")
            with open(config, "w") as f:
                f.write(THROTTLE_CONFIG.format(state=os.path.join(work, "busy.db"), base=f"http://127.0.0.1:{upstream.server_port}"))
            port = free_port()
            with _serve(binary, work, "busy", ["-c", config], port):
                yield f"http://127.0.0.1:{port}/mcp"
    finally:
        upstream.shutdown()


# The probes `judge` reads, in the order every driver makes them: (the key of `judge`'s
# `out`, or "" for a call whose answer is not judged, the tool, its arguments).
PROBES = (("healthy", "web_search", {"query": "rust"}),
          ("note", "legacy_search", {"query": "rust"}),
          ("refused", "web_search", {"query": "rust", "limit": 50}),
          ("", "demo_control", {"search_field": "excerpt"}),
          ("drift", "web_search", {"query": "rust"}))
# The throttle probe, against `throttled`'s toolgate.
BUSY = ("busy_search", {"query": "rust"})


def probed(invoke: Callable[[str, dict], dict]) -> dict[str, Any]:
    """Makes `PROBES` through a framework's `invoke(name, args)` (a function returning
    `{"text", "error"}`); returns the answers by key, for `judge`."""
    out = {}
    for key, name, args in PROBES:
        answer = invoke(name, dict(args))
        if key:
            out[key] = answer
    return out


async def probed_async(invoke: Callable[[str, dict], Any]) -> dict[str, Any]:
    """`probed` for a coroutine function `invoke`."""
    out = {}
    for key, name, args in PROBES:
        answer = await invoke(name, dict(args))
        if key:
            out[key] = answer
    return out


def calls_counted(url: str, tool: str) -> int:
    """How many calls of `tool` the toolgate at `url` answered, whatever their outcome
    (its `toolgate_tool_calls_total`): what tells a framework that calls again after a
    failure from one that does not."""
    with urllib.request.urlopen(url.removesuffix("/mcp") + "/metrics", timeout=10) as resp:
        text = resp.read().decode()
    prefix = f'toolgate_tool_calls_total{{tool="{tool}",'
    return sum(int(float(line.rsplit(" ", 1)[1])) for line in text.splitlines() if line.startswith(prefix))


# The second table's rows start with "+|" (tests/frameworks/run prints them after the first).
def signals_header() -> str:
    cols = ["client (version)", "tool list: names, descriptions, input schema", "refused argument (`limit: 50`)",
            "throttle: the wait reaches the model", "drift: one call, not repeated", "`isError` reaches the model",
            "`_meta` reaches the model"]
    return "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols)


def judge(mode: str, label: str, out: dict[str, Any], body: int, url: str, misses: tuple[str, ...] = (),
          opening: str = "", near_start: int = 0, refused_by_framework: bool = False,
          bounds_kept: bool = True, marked: bool | None = None, refusal_named: bool = True) -> tuple[bool, bool]:
    """Checks what a framework handed the model, as the dict its adapter filled: `tools`
    (name → {"description", "schema"}), and for each probe (`healthy`, `note`, `refused`,
    `drift`, `throttle` — the last only in the default setup) `{"text", "error"}`, where
    `error` says the framework marks it as a failure (a thrown tool error, `isError` or a
    status) and `text` is what the model reads. The failure text must open the text after
    `opening` (what the framework puts before it), or with `near_start` be within that many
    characters of its start (frameworks that hand the model the whole result, `_meta` first).
    Returns (note reached, drift reached as a failure) for `run_modes`; in the default
    setup also prints the row of the second table (`signals_row`). `marked` says whether the
    framework marks the drift as a failure (`error`), asserted when given, so that the
    second table's `isError` column cannot go stale either way; `refusal_named: False` says
    that a framework which refuses `limit: 50` itself does not say which argument is wrong
    (asserted too)."""
    def opens(text: str, sentence: str) -> bool:
        if near_start:
            return sentence in text[:near_start + len(sentence)]
        return text.removeprefix(opening).startswith(sentence)

    tools = out["tools"]
    ws = tools.get("web_search") or {}
    schema = json.dumps(ws.get("schema", {}))
    # The second toolgate's web_search (the other setups) has no description.
    described = mode != DEFAULT or "Search the web" in ws.get("description", "")
    check(f"{label}: tools: web_search with its description and input schema",
          described and '"query"' in schema, str(ws)[:400])
    # Whether the bound on `limit` reaches the model (some frameworks rebuild the schema
    # without it): asserted either way, so that the table cannot go stale.
    bounds = '"maximum": 10' in schema
    check(f"{label}: tools: limit's maximum {'reaches' if bounds_kept else 'is dropped before'} the model",
          bounds == bounds_kept, schema[:400])
    healthy = out["healthy"]
    check(f"{label}: healthy: results reach the model", "Result 1 for rust" in healthy["text"] and not healthy["error"], str(healthy)[:300])
    report_size(mode, body, healthy["text"], label)
    note = out["note"]["text"]
    got_note = note_check(mode, f"{label}: note: the deprecation reaches the model", "legacy_search is deprecated" in note, note, misses)
    drift = out["drift"]
    got_drift = check(f"{label}: drift: the model reads the failure and the diff",
                      opens(drift["text"], DRIFT) and "missing results[].snippet" in drift["text"], str(drift)[:400])
    if marked is not None:
        check(f"{label}: drift: {'marked' if marked else 'not marked'} as a failure by the framework", drift["error"] == marked,
              str(drift)[:300])
    calls = calls_counted(url, "web_search")
    # `healthy_body_chars`' call, healthy and drift (and refused, which toolgate counts
    # when the framework lets it through)
    expected = 3 + (0 if refused_by_framework else 1)
    check(f"{label}: drift: one call reached toolgate, the framework did not call again", calls == expected,
          f"{calls} calls of web_search, expected {expected}")
    refused = out["refused"]
    if refused_by_framework:
        check(f"{label}: refused: the framework refuses limit=50 itself, {'naming' if refusal_named else 'without naming'} the limit",
              refused["error"] and (("limit" in refused["text"]) == refusal_named) and "Result 1" not in refused["text"],
              str(refused)[:400])
    else:
        check(f"{label}: refused: toolgate's refusal reaches the model", opens(refused["text"], REFUSED), str(refused)[:400])
    if mode != DEFAULT:
        return got_note, got_drift
    throttle = out["throttle"]
    check(f"{label}: throttle: the model reads the wait", opens(throttle["text"], THROTTLE) and WAIT in throttle["text"], str(throttle)[:400])
    check(f"{label}: throttle: one call, the framework did not call again", calls_counted(out["busy_url"], "busy_search") == 1,
          "busy_search was called again")
    _SIGNALS.update(refused_by_framework=refused_by_framework, refusal_named=refusal_named, bounds_kept=bounds_kept, drift_error=drift["error"],
                    meta="dev.toolgate/signals" in healthy["text"], throttle=WAIT in throttle["text"])
    return got_note, got_drift


_SIGNALS: dict[str, Any] = {}


def signals_row(framework: str, version: str, listing: str, is_error: str) -> None:
    """The second table's row from what `judge` saw in the default setup: `listing` says
    what of the tool list the framework hands the model, `is_error` how a failure is marked."""
    s = _SIGNALS
    refused = ("the framework, against the input schema, before the call" if s.get("refused_by_framework")
               else "toolgate: \"web_search was not called: the arguments are invalid …\"")
    if s.get("refused_by_framework") and not s.get("refusal_named"):
        refused += ", **without naming the argument**"
    if not listing.startswith("**none**"):
        listing += "; `limit`'s `maximum` " + ("kept" if s.get("bounds_kept") else "**dropped**")
    print(f"+| {framework} {version} | {listing} | {refused} | {'yes' if s.get('throttle') else '**no**'} | yes | "
          f"{is_error} | {'yes' if s.get('meta') else 'no'} |")
