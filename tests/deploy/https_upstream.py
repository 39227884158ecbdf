"""A loopback HTTPS upstream for the example tool of the Kubernetes configs.

Usage: python https_upstream.py DIR

Makes a throw-away CA and a certificate for `localhost` signed by it (openssl), writes
the CA to DIR/ca.crt, serves `GET /v1/search` over TLS on a free 127.0.0.1 port with a
body that matches the example tool's contract, and prints the port on the first line of
stdout. It stops by itself after 120 s.
"""

import http.server
import json
import ssl
import subprocess
import sys
import threading
from pathlib import Path

BODY = json.dumps({"results": [{"title": "TLS through the image", "url": "https://example.com/1"}]}).encode()


def make_certs(d: Path):
    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", str(d / "ca.key"), "-out", str(d / "ca.crt"), "-days", "1",
            "-subj", "/CN=toolgate deploy test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign")
    openssl("req", *ec, "-keyout", str(d / "leaf.key"), "-out", str(d / "leaf.csr"), "-subj", "/CN=localhost")
    (d / "leaf.ext").write_text(
        "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
    )
    openssl("x509", "-req", "-in", str(d / "leaf.csr"), "-CA", str(d / "ca.crt"), "-CAkey", str(d / "ca.key"),
            "-CAcreateserial", "-out", str(d / "leaf.crt"), "-days", "1", "-extfile", str(d / "leaf.ext"))


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.split("?")[0] != "/v1/search":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


def main():
    d = Path(sys.argv[1])
    make_certs(d)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(d / "leaf.crt", d / "leaf.key")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Timer(120, server.shutdown).start()
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
