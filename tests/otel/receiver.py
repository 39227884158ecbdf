#!/usr/bin/env python3
"""A minimal OTLP/HTTP trace receiver for toolgate's trace tests.

It listens on a loopback port (0 = any free one, printed as the first stdout line
`listening <port>`), decodes every POST /v1/traces body as an
ExportTraceServiceRequest with the official opentelemetry-proto bindings, and appends
each span as one JSON line to --out. The raw request bodies are appended to --raw, so a
test can search the bytes on the wire, not only what this decoder chose to keep.

Usage: receiver.py --out spans.jsonl --raw bodies.bin [--port 0]
"""

import argparse
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

MAX_BODY = 16 << 20


def any_value(v):
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [any_value(x) for x in v.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: any_value(kv.value) for kv in v.kvlist_value.values}
    if kind == "bytes_value":
        return v.bytes_value.hex()
    if kind is None:
        return None
    return getattr(v, kind)


def attributes(kvs):
    return {kv.key: any_value(kv.value) for kv in kvs}


def span_json(resource, scope, span):
    return {
        "trace_id": span.trace_id.hex(),
        "span_id": span.span_id.hex(),
        "parent_span_id": span.parent_span_id.hex(),
        "trace_state": span.trace_state,
        "name": span.name,
        "kind": Span.SpanKind.Name(span.kind),
        "start_ns": span.start_time_unix_nano,
        "end_ns": span.end_time_unix_nano,
        "attributes": attributes(span.attributes),
        "status": {
            "code": Status.StatusCode.Name(span.status.code),
            "message": span.status.message,
        },
        "events": [
            {"name": e.name, "attributes": attributes(e.attributes)} for e in span.events
        ],
        "resource": resource,
        "scope": scope,
    }


class Handler(BaseHTTPRequestHandler):
    out = None
    raw = None

    def do_POST(self):
        if self.path != "/v1/traces":
            self.send_error(404)
            return
        length = int(self.headers.get("content-length") or 0)
        if length < 0 or length > MAX_BODY:
            self.send_error(413)
            return
        body = self.rfile.read(length)
        with open(self.raw, "ab") as f:
            f.write(body)
        request = ExportTraceServiceRequest()
        try:
            request.ParseFromString(body)
        except Exception as e:  # a body that is not the message is the sender's bug
            self.send_error(400, f"not an ExportTraceServiceRequest: {e}")
            return
        lines = []
        for rs in request.resource_spans:
            resource = attributes(rs.resource.attributes)
            for ss in rs.scope_spans:
                scope = ss.scope.name
                for span in ss.spans:
                    lines.append(json.dumps(span_json(resource, scope, span)))
        with open(self.out, "a", encoding="utf-8") as f:
            for line in lines:
                f.write(line + "\n")
        reply = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--raw", required=True)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    Handler.out, Handler.raw = args.out, args.raw
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
