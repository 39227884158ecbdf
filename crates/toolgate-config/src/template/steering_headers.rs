//! Header names servers and the proxies before them read as the request's destination,
//! method, path or framing rather than as data: an argument there would let the model
//! change the host (`Host`, `X-Forwarded-Host`, `Forwarded`: virtual hosts, links built
//! from it), the method (`X-HTTP-Method-Override` on a read-only tool), the path
//! (`X-Original-URL`, `X-Rewrite-URL`, honoured by IIS and Symfony after any path
//! check), or where the body ends (`Content-Length`, `Transfer-Encoding`: request
//! smuggling). A tool may give such a header a fixed value, never an argument; the
//! importer reads the same list, so it never writes a config `check` refuses.

/// The names, lowercase.
const STEERING: &[&str] = &[
    "host",
    "content-length",
    "transfer-encoding",
    "te",
    "trailer",
    "connection",
    "keep-alive",
    "upgrade",
    "expect",
    "proxy-connection",
    "forwarded",
    "x-forwarded-host",
    "x-forwarded-proto",
    "x-forwarded-prefix",
    "x-forwarded-port",
    "x-host",
    "x-http-method-override",
    "x-http-method",
    "x-method-override",
    "x-original-url",
    "x-rewrite-url",
];

/// Whether a header named `name` (any case) may not take an argument.
pub fn steers_the_request(name: &str) -> bool {
    STEERING.iter().any(|s| s.eq_ignore_ascii_case(name))
}
