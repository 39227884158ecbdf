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
//!    its actions are recorded as) and challenges with `Basic`. On `/metrics`, with
//!    `gateway.metrics_token_env`, that token or an administrator's credential (the
//!    series name every agent and tool). Health, metrics without that setting, the
//!    metadata itself and the demo stay open for probes, scrapers and clients
//!    discovering the authorization server;
//!    A token in the URL's query (`access_token`) is refused there with 400 rather
//!    than ignored;
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

/// Whether a query string has an `access_token` parameter, its name spelt in any case
/// or percent-encoded as a form decoder would read it.
fn names_access_token(query: &str) -> bool {
    url::form_urlencoded::parse(query.as_bytes())
        .any(|(name, _)| name.trim().eq_ignore_ascii_case("access_token"))
}

/// The admission rules, compiled from the config once.
#[derive(Debug)]
pub struct Admission {
    hosts: Vec<Allowed>,
    origins: Vec<AllowedOrigin>,
    auth: Arc<Authenticator>,
    /// The token `/metrics` requires, when configured.
    metrics_token: Option<toolgate_config::Secret>,
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
            metrics_token: config.metrics_token.clone(),
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
        if path == "/metrics" {
            return self.identify_scraper(authorization).await;
        }
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

    /// A request to `/mcp`, `/admin` or the console that carries an access token in its
    /// URL (`?access_token=`, RFC 6750 §2.3), refused with 400 `invalid_request` when
    /// credentials are configured: the MCP authorization spec forbids tokens in the
    /// query, and a URL is written to proxy logs, browser histories and `Referer`
    /// headers. Refused even when the header carries a valid token too, so the client
    /// learns it leaks its token instead of having it silently ignored.
    fn refuse_token_in_query(&self, path: &str, query: Option<&str>) -> Option<Response> {
        let query = query?;
        let guarded = path == "/mcp"
            || path.starts_with("/mcp/")
            || path == "/admin"
            || path.starts_with("/admin/")
            || is_console(path);
        if !guarded || !self.auth.required() || !names_access_token(query) {
            return None;
        }
        tracing::info!(
            path,
            "refused a request that carries an access token in its URL's query"
        );
        Some(self.challenge(&Refusal::Malformed(
            "the request carries an access token in its URL (access_token); send it only in the Authorization header, since URLs end up in logs and histories (RFC 6750, section 2.3)",
        )))
    }

    /// `/metrics`: open without `gateway.metrics_token_env`; with it, its token or an
    /// administrator's credential. A gateway with no other credential configured has
    /// no administrator to recognise (its admin endpoints are open), so there the
    /// token alone admits.
    async fn identify_scraper(
        &self,
        authorization: Option<&[u8]>,
    ) -> Result<Option<Identity>, Response> {
        let Some(toolgate_config::Secret(token)) = &self.metrics_token else {
            return Ok(None);
        };
        let presented = authorization
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, t)| t.trim());
        if presented
            .is_some_and(|t| toolgate_auth::constant_time_eq(t.as_bytes(), token.as_bytes()))
        {
            return Ok(None);
        }
        let refusal = if self.auth.required() {
            match self.auth.authorize_admin(authorization, false).await {
                Ok(identity) => return Ok(Some(identity)),
                Err(refusal) => refusal,
            }
        } else if authorization.is_none() {
            Refusal::Missing
        } else {
            Refusal::Invalid("it is not the metrics token")
        };
        if !matches!(refusal, Refusal::Missing) {
            tracing::info!(
                path = "/metrics",
                "refused a request's credentials: {}",
                refusal.message()
            );
        }
        Err(self.challenge(&refusal))
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

/// The middleware: the rules of [`Admission::admitted`] in front of the router's routes.
pub async fn admit(
    State(admission): State<Arc<Admission>>,
    request: Request,
    next: Next,
) -> Response {
    match admission.admitted(request).await {
        Ok(request) => next.run(request).await,
        Err(refused) => refused,
    }
}

impl Admission {
    /// The request as the endpoint receives it (its caller's identity attached, its body
    /// limited), or the response that refuses it. One place for every rule, whether the
    /// request reaches its endpoint through the router or directly (`/mcp`).
    pub(crate) async fn admitted(&self, request: Request) -> Result<Request, Response> {
        if let Some(refused) = self.refuse(
            request.uri().path(),
            request.uri().authority(),
            request.headers(),
        ) {
            return Err(refused);
        }
        if let Some(refused) =
            self.refuse_token_in_query(request.uri().path(), request.uri().query())
        {
            return Err(refused);
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
        match self.identify(&path, authorization.as_deref()).await {
            Ok(Some(identity)) => {
                request.extensions_mut().insert(identity);
            }
            Ok(None) => {}
            Err(refused) => return Err(refused),
        }
        // Bodies sent without a Content-Length are cut off at the limit as they stream in.
        let limit = self.max_request_bytes;
        Ok(request.map(|body| Body::new(http_body_util::Limited::new(body, limit))))
    }
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
mod tests;
