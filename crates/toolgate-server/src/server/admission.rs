//! The one admission layer, in front of every endpoint:
//!
//! 0. a header whose one value these checks read (`Host`, `Origin`, `Authorization`,
//!    the MCP headers, …) must not be sent twice (400);
//! 1. `Host` must be a loopback name or one of `gateway.allowed_hosts` (DNS-rebinding
//!    protection; a browser on a rebound name cannot reach `/admin` or `/demo/control`
//!    either);
//! 2. on `/mcp`, a present `Origin` must be a loopback origin or one of
//!    `gateway.allowed_origins` (the MCP transport spec requires it: a web page must not
//!    drive a local server);
//! 3. on `/mcp`, `/admin` and the console (`/ui`, which counts as admin), the caller's
//!    credentials when any are configured
//!    (`toolgate_auth`: an agent's API key, the shared token, an OAuth access token);
//!    a refusal is 401/403 with a `WWW-Authenticate` challenge that names the
//!    protected-resource metadata, and an admitted request carries its
//!    [`toolgate_auth::Identity`]. A browser cannot send a bearer token, so the console
//!    also takes the credential as the password of HTTP Basic (the user name is what
//!    its actions are recorded as) and challenges with `Basic`. Health, metrics, the
//!    metadata itself and the demo stay open for probes, scrapers and clients
//!    discovering the authorization server;
//! 4. the request body is limited to `gateway.max_request_bytes` (413 beyond).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::uri::Authority;
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use toolgate_auth::{Authenticator, Identity, Refusal};
use toolgate_config::GatewayConfig;

/// Loopback names, always allowed as `Host`.
const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Headers whose one value the checks here and on `/mcp` read. Sent twice, the value
/// checked and the value a proxy or another reader acts on can differ (two `Host`s: one
/// allowed, one routed to), so a request repeating one is refused with 400 on every
/// endpoint (RFC 9112 §3.2 for `Host`; none of these is a list).
const SINGLE_VALUED: [&str; 9] = [
    "host",
    "origin",
    "authorization",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "last-event-id",
];

/// The admission rules, compiled from the config once.
#[derive(Debug)]
pub struct Admission {
    hosts: Vec<Allowed>,
    origins: Vec<AllowedOrigin>,
    auth: Arc<Authenticator>,
    max_request_bytes: usize,
}

/// An allowed `Host`: a name, and a port when the entry names one.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Allowed {
    host: String,
    port: Option<u16>,
}

/// An allowed origin: `scheme://host[:port]`, `:*` for any port, or `null`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum AllowedOrigin {
    Null,
    Tuple {
        scheme: String,
        host: String,
        /// `None`: any port.
        port: Option<u16>,
    },
}

impl Admission {
    pub fn new(config: &GatewayConfig, auth: Arc<Authenticator>) -> Admission {
        let mut hosts: Vec<Allowed> = LOOPBACK
            .iter()
            .map(|h| Allowed {
                host: (*h).to_owned(),
                port: None,
            })
            .collect();
        for entry in &config.allowed_hosts {
            match parse_allowed_host(entry) {
                Some(a) => hosts.push(a),
                None => {
                    tracing::warn!(entry = %entry, "gateway.allowed_hosts: not a host name, ignored")
                }
            }
        }
        let mut origins: Vec<AllowedOrigin> = ["http", "https"]
            .iter()
            .flat_map(|scheme| {
                LOOPBACK.iter().map(move |host| AllowedOrigin::Tuple {
                    scheme: (*scheme).to_owned(),
                    host: (*host).to_owned(),
                    port: None,
                })
            })
            .collect();
        for entry in &config.allowed_origins {
            match parse_allowed_origin(entry) {
                Some(o) => origins.push(o),
                None => {
                    tracing::warn!(entry = %entry, "gateway.allowed_origins: not an origin (scheme://host[:port]), ignored")
                }
            }
        }
        Admission {
            hosts,
            origins,
            auth,
            max_request_bytes: config.max_request_bytes,
        }
    }

    /// Who sent a request on `path`: `None` where no credential is asked for. `/admin`
    /// and the console admit administrators only (`Authenticator::authorize_admin`),
    /// and `/admin/audit` also a configured agent, who reads its own records there.
    async fn identify(
        &self,
        path: &str,
        authorization: Option<&[u8]>,
    ) -> Result<Option<Identity>, Response> {
        let is_mcp = path == "/mcp" || path.starts_with("/mcp/");
        let is_console = is_console(path);
        let is_admin = path == "/admin" || path.starts_with("/admin/") || is_console;
        if !(is_mcp || is_admin) {
            return Ok(None);
        }
        let refuse = |refusal: &Refusal| {
            if is_console {
                console_challenge(refusal)
            } else {
                self.challenge(refusal)
            }
        };
        let verdict = if is_admin {
            self.auth
                .authorize_admin(authorization, path == "/admin/audit")
                .await
        } else {
            self.auth.authenticate(authorization).await
        };
        match verdict {
            Ok(identity) => Ok(Some(identity)),
            Err(refusal) => {
                if !matches!(refusal, Refusal::Missing) {
                    tracing::info!(
                        path,
                        "refused a request's credentials: {}",
                        refusal.message()
                    );
                }
                Err(refuse(&refusal))
            }
        }
    }

    fn challenge(&self, refusal: &Refusal) -> Response {
        let status = StatusCode::from_u16(refusal.status()).unwrap_or(StatusCode::UNAUTHORIZED);
        (
            status,
            [
                (header::WWW_AUTHENTICATE, self.auth.challenge(refusal)),
                (
                    header::CONTENT_TYPE,
                    "text/plain; charset=utf-8".to_string(),
                ),
            ],
            format!("{}\n", refusal.message()),
        )
            .into_response()
    }

    /// Why `headers` are refused on `path`, as the response; `None` to admit.
    fn refuse(
        &self,
        path: &str,
        uri_authority: Option<&Authority>,
        headers: &HeaderMap,
    ) -> Option<Response> {
        let is_mcp = path == "/mcp" || path.starts_with("/mcp/");
        if let Some(name) = repeated(headers) {
            tracing::info!(
                header = name,
                path,
                "refused a request that sends a single-valued header more than once"
            );
            return Some(
                (
                    StatusCode::BAD_REQUEST,
                    [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                    format!("Bad Request: more than one {name} header\n"),
                )
                    .into_response(),
            );
        }
        let host = match headers.get(header::HOST) {
            Some(v) => match v.to_str().ok().and_then(|s| Authority::try_from(s).ok()) {
                Some(a) => a,
                None => {
                    return Some(plain(
                        StatusCode::BAD_REQUEST,
                        "Bad Request: Invalid Host header",
                    ));
                }
            },
            None => match uri_authority {
                Some(a) => a.clone(),
                None => {
                    return Some(plain(
                        StatusCode::BAD_REQUEST,
                        "Bad Request: missing Host header",
                    ));
                }
            },
        };
        if !self.host_allowed(&host) {
            tracing::warn!(host = %host, path, "refused a request with a Host that is not allowed (possible DNS rebinding; see gateway.allowed_hosts)");
            return Some(plain(
                StatusCode::FORBIDDEN,
                "Forbidden: Host header is not allowed",
            ));
        }
        if is_mcp && let Some(origin) = headers.get(header::ORIGIN) {
            let allowed = origin
                .to_str()
                .ok()
                .and_then(parse_origin)
                .is_some_and(|o| self.origin_allowed(&o));
            if !allowed {
                tracing::warn!(origin = ?origin, "refused an /mcp request from an Origin that is not allowed (see gateway.allowed_origins)");
                return Some(plain(
                    StatusCode::FORBIDDEN,
                    "Forbidden: Origin header is not allowed",
                ));
            }
        }
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.max_request_bytes as u64) {
            return Some(if is_mcp {
                crate::mcp::http::too_large(self.max_request_bytes)
            } else {
                plain(StatusCode::PAYLOAD_TOO_LARGE, "Payload Too Large")
            });
        }
        None
    }

    fn host_allowed(&self, host: &Authority) -> bool {
        let name = normalize(host.host());
        self.hosts
            .iter()
            .any(|a| a.host == name && a.port.is_none_or(|p| host.port_u16() == Some(p)))
    }

    fn origin_allowed(&self, origin: &AllowedOrigin) -> bool {
        self.origins.iter().any(|a| match (a, origin) {
            (AllowedOrigin::Null, AllowedOrigin::Null) => true,
            (
                AllowedOrigin::Tuple { scheme, host, port },
                AllowedOrigin::Tuple {
                    scheme: s,
                    host: h,
                    port: p,
                },
            ) => {
                scheme == s
                    && host == h
                    && port.is_none_or(|allowed| p.or_else(|| default_port(s)) == Some(allowed))
            }
            _ => false,
        })
    }
}

/// The middleware.
pub async fn admit(
    State(admission): State<Arc<Admission>>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(refused) = admission.refuse(
        request.uri().path(),
        request.uri().authority(),
        request.headers(),
    ) {
        return refused;
    }
    let mut request = request;
    let path = request.uri().path().to_string();
    // The bytes as sent: a value that is not text is the authenticator's to refuse,
    // with its reason, not a missing credential.
    let mut authorization = request
        .headers()
        .get(header::AUTHORIZATION)
        .map(|v| v.as_bytes().to_vec());
    if is_console(&path)
        && let Some((user, password)) = authorization
            .as_deref()
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(basic)
    {
        request
            .extensions_mut()
            .insert(crate::console::layout::ConsoleUser(user));
        authorization = Some(format!("Bearer {password}").into_bytes());
    }
    match admission.identify(&path, authorization.as_deref()).await {
        Ok(Some(identity)) => {
            request.extensions_mut().insert(identity);
        }
        Ok(None) => {}
        Err(refused) => return refused,
    }
    // Bodies sent without a Content-Length are cut off at the limit as they stream in.
    let limit = admission.max_request_bytes;
    let request = request.map(|body| Body::new(http_body_util::Limited::new(body, limit)));
    next.run(request).await
}

/// The first header of [`SINGLE_VALUED`] that `headers` hold more than once.
fn repeated(headers: &HeaderMap) -> Option<&'static str> {
    SINGLE_VALUED
        .into_iter()
        .find(|name| headers.get_all(*name).iter().nth(1).is_some())
}

/// Whether `path` is the console's.
fn is_console(path: &str) -> bool {
    path == "/ui" || path.starts_with("/ui/")
}

/// The console's refusal: a `Basic` challenge, so the browser asks for the credential.
fn console_challenge(refusal: &Refusal) -> Response {
    let status = StatusCode::from_u16(refusal.status()).unwrap_or(StatusCode::UNAUTHORIZED);
    (
        status,
        [
            (
                header::WWW_AUTHENTICATE,
                "Basic realm=\"toolgate console\", charset=\"UTF-8\"",
            ),
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
        ],
        format!(
            "{}\nThe console asks for the admin credential as the password (any user name; actions are recorded under it).\n",
            refusal.message()
        ),
    )
        .into_response()
}

/// The user name and password of an HTTP Basic `Authorization` value.
fn basic(value: &str) -> Option<(String, String)> {
    let (scheme, encoded) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = String::from_utf8(base64_decode(encoded.trim())?).ok()?;
    let (user, password) = decoded.split_once(':')?;
    Some((user.to_string(), password.to_string()))
}

/// Standard base64 (padding optional); `None` on any other character. Bounded by the
/// header size hyper accepts.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.trim_end_matches('=').bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn plain(status: StatusCode, message: &'static str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message,
    )
        .into_response()
}

fn normalize(host: &str) -> String {
    host.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

fn parse_allowed_host(entry: &str) -> Option<Allowed> {
    let entry = entry.trim();
    match Authority::try_from(entry) {
        Ok(a) => Some(Allowed {
            host: normalize(a.host()),
            port: a.port_u16(),
        }),
        // `::1` is no authority without brackets: take it as a bare host.
        Err(_) if entry.contains(':') && !entry.contains('[') => Some(Allowed {
            host: normalize(entry),
            port: None,
        }),
        Err(_) => None,
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// An `Origin` header value.
fn parse_origin(value: &str) -> Option<AllowedOrigin> {
    let value = value.trim();
    if value.eq_ignore_ascii_case("null") {
        return Some(AllowedOrigin::Null);
    }
    let uri = axum::http::Uri::try_from(value).ok()?;
    let authority = uri.authority()?;
    Some(AllowedOrigin::Tuple {
        scheme: uri.scheme_str()?.to_ascii_lowercase(),
        host: normalize(authority.host()),
        port: authority.port_u16(),
    })
}

/// A `gateway.allowed_origins` entry: as an origin, with `:*` for any port; without a
/// port, the scheme's default port.
fn parse_allowed_origin(value: &str) -> Option<AllowedOrigin> {
    let value = value.trim();
    if let Some(base) = value.strip_suffix(":*") {
        return match parse_origin(base)? {
            AllowedOrigin::Tuple {
                scheme,
                host,
                port: None,
            } => Some(AllowedOrigin::Tuple {
                scheme,
                host,
                port: None,
            }),
            _ => None,
        };
    }
    match parse_origin(value)? {
        AllowedOrigin::Null => Some(AllowedOrigin::Null),
        AllowedOrigin::Tuple { scheme, host, port } => {
            let port = port.or_else(|| default_port(&scheme))?;
            Some(AllowedOrigin::Tuple {
                scheme,
                host,
                port: Some(port),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    const TOOLS: &str = "dependencies:\n  api: { base_url: \"http://127.0.0.1:9\" }\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: { path: /x }\n    contract: { version: \"1.0\", response_schema: { type: object } }\n";

    fn admission(hosts: &[&str], origins: &[&str], token: Option<&str>) -> Admission {
        let env = |_: &str| token.map(str::to_owned);
        let yaml = format!(
            "gateway:\n  allowed_hosts: [{}]\n  allowed_origins: [{}]\n{}{TOOLS}",
            hosts.join(", "),
            origins
                .iter()
                .map(|o| format!("\"{o}\""))
                .collect::<Vec<_>>()
                .join(", "),
            if token.is_some() {
                "  auth_token_env: T\n"
            } else {
                ""
            }
        );
        let config = toolgate_config::parse(
            std::path::Path::new("t.yaml"),
            &yaml,
            std::path::Path::new("."),
            &env,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        toolgate_engine::tls::init();
        let auth = Authenticator::new(&config.gateway, &config.agents, reqwest::Client::new());
        Admission::new(&config.gateway, Arc::new(auth))
    }

    fn status(a: &Admission, path: &str, pairs: &[(&'static str, &'static str)]) -> u16 {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        if let Some(r) = a.refuse(path, None, &h) {
            return r.status().as_u16();
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        let authorization = h.get(header::AUTHORIZATION).map(HeaderValue::as_bytes);
        match rt.block_on(a.identify(path, authorization)) {
            Err(r) => r.status().as_u16(),
            Ok(_) => 200,
        }
    }

    #[test]
    fn an_authorization_header_that_is_not_text_is_an_invalid_token_not_a_missing_one() {
        let a = admission(&[], &[], Some("s3cret"));
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        // Bytes a `HeaderValue` holds but that are not text: UTF-8 and Latin-1 letters.
        for value in [&b"Bearer s3cr\xc3\xa9t"[..], b"Bearer s3cr\xe9t", b"\xff"] {
            let value = HeaderValue::from_bytes(value).unwrap_or_else(|e| panic!("{e}"));
            let refused = rt
                .block_on(a.identify("/mcp", Some(value.as_bytes())))
                .unwrap_err();
            assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
            let challenge = refused.headers()[header::WWW_AUTHENTICATE]
                .to_str()
                .unwrap_or_default()
                .to_string();
            assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
            let body = rt
                .block_on(axum::body::to_bytes(refused.into_body(), 4096))
                .unwrap_or_default();
            let body = String::from_utf8_lossy(&body);
            assert!(body.contains("printable ASCII"), "{body}");
            assert!(!body.contains("s3cr"), "{body}");
        }
    }

    #[test]
    fn hosts_are_checked_on_every_endpoint() {
        let a = admission(&["gw.example.com:8443", "internal"], &[], None);
        for path in [
            "/mcp",
            "/admin/incidents",
            "/metrics",
            "/healthz",
            "/readyz",
            "/demo/control",
        ] {
            assert_eq!(
                status(&a, path, &[("host", "127.0.0.1:8765")]),
                200,
                "{path}"
            );
            assert_eq!(status(&a, path, &[("host", "evil.example")]), 403, "{path}");
        }
        assert_eq!(status(&a, "/mcp", &[("host", "LOCALHOST")]), 200);
        assert_eq!(status(&a, "/mcp", &[("host", "[::1]:9000")]), 200);
        assert_eq!(status(&a, "/mcp", &[("host", "gw.example.com:8443")]), 200);
        assert_eq!(status(&a, "/mcp", &[("host", "gw.example.com:443")]), 403);
        assert_eq!(status(&a, "/mcp", &[("host", "internal:1")]), 200);
        assert_eq!(
            status(&a, "/mcp", &[("host", "127.0.0.1.evil.example")]),
            403
        );
        assert_eq!(status(&a, "/mcp", &[]), 400);
        assert_eq!(status(&a, "/mcp", &[("host", "a b")]), 400);
    }

    #[test]
    fn a_single_valued_header_sent_twice_is_refused_on_every_endpoint() {
        let a = admission(&[], &["https://app.example.com"], Some("s3cret"));
        let allowed = [
            ("host", "127.0.0.1:8765"),
            ("origin", "https://app.example.com"),
            ("authorization", "Bearer s3cret"),
        ];
        assert_eq!(status(&a, "/mcp", &allowed), 200);
        // A value that passes, and another: the allowed one first or last, a reader of
        // the other one would disagree with the check.
        for (name, good, other) in [
            ("host", "127.0.0.1:8765", "evil.example"),
            ("origin", "https://app.example.com", "http://evil.example"),
            ("authorization", "Bearer s3cret", "Bearer stolen"),
            ("content-type", "application/json", "text/plain"),
            ("mcp-session-id", "one-session", "another-session"),
            ("mcp-protocol-version", "2025-06-18", "2025-03-26"),
            ("mcp-method", "tools/call", "tools/list"),
            ("mcp-name", "search", "other"),
            ("last-event-id", "6", "7"),
        ] {
            let base: Vec<_> = allowed
                .iter()
                .filter(|(n, _)| *n != name)
                .copied()
                .collect();
            for path in ["/mcp", "/healthz", "/admin/status"] {
                for pair in [[good, other], [other, good]] {
                    let mut headers = base.clone();
                    headers.extend(pair.map(|v| (name, v)));
                    assert_eq!(status(&a, path, &headers), 400, "{name} on {path}");
                }
            }
        }
        // Headers that are lists may repeat.
        let mut accept = allowed.to_vec();
        accept.extend([
            ("accept", "application/json"),
            ("accept", "text/event-stream"),
        ]);
        assert_eq!(status(&a, "/mcp", &accept), 200);
    }

    #[test]
    fn origins_are_checked_on_mcp() {
        let a = admission(
            &[],
            &["https://app.example.com", "http://dev.example:*"],
            None,
        );
        let ok =
            |origin: &'static str| status(&a, "/mcp", &[("host", "localhost"), ("origin", origin)]);
        assert_eq!(ok("http://localhost:6274"), 200);
        assert_eq!(ok("http://127.0.0.1"), 200);
        assert_eq!(ok("https://app.example.com"), 200);
        assert_eq!(ok("https://app.example.com:443"), 200);
        assert_eq!(ok("https://app.example.com:8443"), 403);
        assert_eq!(ok("http://dev.example:3000"), 200);
        assert_eq!(ok("http://evil.example"), 403);
        assert_eq!(ok("null"), 403);
        assert_eq!(ok("not an origin"), 403);
        // Off /mcp the Origin is not MCP's business (the Host check still applies).
        assert_eq!(
            status(
                &a,
                "/healthz",
                &[("host", "localhost"), ("origin", "http://evil.example")]
            ),
            200
        );
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive_and_guards_mcp_and_admin_only() {
        let a = admission(&[], &[], Some("s3cret"));
        let with = |path: &str, auth: &'static str| {
            status(&a, path, &[("host", "localhost"), ("authorization", auth)])
        };
        assert_eq!(with("/mcp", "Bearer s3cret"), 200);
        assert_eq!(with("/mcp", "bearer s3cret"), 200);
        assert_eq!(with("/admin/status", "BEARER  s3cret"), 200);
        assert_eq!(with("/mcp", "Bearer s3cre"), 401);
        assert_eq!(with("/mcp", "Basic s3cret"), 401);
        assert_eq!(with("/mcp", "s3cret"), 401);
        assert_eq!(status(&a, "/admin/status", &[("host", "localhost")]), 401);
        assert_eq!(status(&a, "/healthz", &[("host", "localhost")]), 200);
        assert_eq!(status(&a, "/metrics", &[("host", "localhost")]), 200);
    }

    #[test]
    fn admin_paths_admit_administrators_and_the_audit_trail_agents_too() {
        let key = |k: &str| toolgate_auth::sha256_hex(k.as_bytes());
        let yaml = format!(
            "gateway:\n  auth_token_env: T\n{TOOLS}agents:\n  ops:\n    api_key_sha256: {}\n    admin: true\n  bot:\n    api_key_sha256: {}\n",
            key("ops-key"),
            key("bot-key")
        );
        let env = |_: &str| Some("shared-token".to_string());
        let config = toolgate_config::parse(
            std::path::Path::new("t.yaml"),
            &yaml,
            std::path::Path::new("."),
            &env,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        toolgate_engine::tls::init();
        let auth = Authenticator::new(&config.gateway, &config.agents, reqwest::Client::new());
        let a = Admission::new(&config.gateway, Arc::new(auth));
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        let answer = |path: &str, bearer: Option<&str>| {
            let header = bearer.map(|b| format!("Bearer {b}"));
            match rt.block_on(a.identify(path, header.as_deref().map(str::as_bytes))) {
                Ok(id) => (200, id.is_some_and(|i| i.admin)),
                Err(r) => (r.status().as_u16(), false),
            }
        };
        for path in [
            "/admin/status",
            "/admin/reload",
            "/admin/incidents",
            "/ui",
            "/ui/tools",
        ] {
            assert_eq!(answer(path, None).0, 401, "{path}");
            assert_eq!(answer(path, Some("bot-key")).0, 403, "{path}");
            assert_eq!(answer(path, Some("ops-key")), (200, true), "{path}");
            assert_eq!(answer(path, Some("shared-token")), (200, true), "{path}");
        }
        // The audit trail admits an agent as itself, not as an administrator.
        assert_eq!(answer("/admin/audit", Some("bot-key")), (200, false));
        assert_eq!(answer("/admin/audit", Some("ops-key")), (200, true));
        assert_eq!(answer("/admin/audit", Some("wrong")).0, 401);
        // /mcp is unchanged: any configured credential.
        assert_eq!(answer("/mcp", Some("bot-key")).0, 200);
        let refused = rt
            .block_on(a.identify("/admin/status", Some(b"Bearer bot-key")))
            .unwrap_err();
        let challenge = refused.headers()[header::WWW_AUTHENTICATE]
            .to_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            challenge.contains("error=\"insufficient_scope\""),
            "{challenge}"
        );
    }

    #[test]
    fn a_declared_body_over_the_limit_is_refused() {
        let a = admission(&[], &[], None);
        assert_eq!(
            status(
                &a,
                "/mcp",
                &[("host", "localhost"), ("content-length", "4194305")]
            ),
            413
        );
        assert_eq!(
            status(
                &a,
                "/mcp",
                &[("host", "localhost"), ("content-length", "4194304")]
            ),
            200
        );
    }

    #[test]
    fn basic_credentials_are_decoded() {
        // RFC 7617's example, and a password holding a colon.
        assert_eq!(
            basic("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
            Some(("Aladdin".into(), "open sesame".into()))
        );
        assert_eq!(basic("basic YTpiOmM="), Some(("a".into(), "b:c".into())));
        assert_eq!(basic("Bearer QWxhZGRpbjpvcGVuIHNlc2FtZQ=="), None);
        assert_eq!(basic("Basic !!!"), None);
        assert_eq!(basic("Basic bm9jb2xvbg=="), None, "no colon");
        assert_eq!(basic("Basic"), None);
    }
}
