//! `tools/call` answered without the rmcp round trip.
//!
//! Why this exists: a tool call's answer carries the upstream body twice (as
//! `structuredContent` and as the text block). rmcp's result type holds
//! `structuredContent` as a `serde_json::Value`, so going through it means building the
//! body's whole JSON tree, serialising it back, and dropping it — on every call, for
//! bytes toolgate has already checked and does not change. That was most of a call's CPU
//! (docs/performance.md). Here the checked bytes are copied into the answer as they are.
//!
//! What it takes: only a request that is unambiguously a well-formed `tools/call` of a
//! configured tool, in one of two shapes:
//! - stateless 2026-07-28: the protocol version in the header and in `_meta` (with the
//!   client capabilities), `Mcp-Method`/`Mcp-Name` headers that match the body, no
//!   session;
//! - a session of 2025-11-25 or 2025-06-18: the version header, a session id that rmcp's
//!   session manager knows, no per-request version in `_meta`. rmcp ends a session 300 s
//!   after the last message *it* saw, so about once a minute a session's call is passed
//!   to rmcp instead, which keeps a busy session alive.
//!
//! Both need both media types accepted, an allowed `Host`, no `Origin`, and nothing else
//! in `params`. Every other request, and every request this module is unsure about, goes
//! to rmcp unchanged (with its body), so rmcp stays the judge of every error answer. The
//! answer is the JSON-RPC message rmcp writes for the same call (tests compare the two),
//! sent as one `application/json` body, which streamable HTTP allows for any POST.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::SessionManager as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::time::Instant;

use super::SIGNALS_META_KEY;
use crate::gateway::Gateway;
use crate::pipeline::CallOutcome;

/// The stateless protocol version this path speaks.
const STATELESS_VERSION: &str = "2026-07-28";
/// Session-era versions this path speaks (the ones whose `tools/call` it can answer).
const SESSION_VERSIONS: [&str; 2] = ["2025-11-25", "2025-06-18"];
/// `_meta` keys of the stateless era.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// rmcp's own limit for a request body; a larger one goes to rmcp unread.
const MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;
/// How often a busy session's call goes through rmcp, which resets the session's idle
/// timer (300 s in rmcp); well inside it.
const SESSION_REFRESH: Duration = Duration::from_secs(60);
/// Sessions remembered before forgetting the ones not refreshed for longer than rmcp
/// keeps an idle session.
const SESSIONS_REMEMBERED: usize = 1024;

/// Which shape of `tools/call` a request is.
#[derive(Debug, PartialEq)]
enum Era {
    /// 2026-07-28, no session.
    Stateless,
    /// A session of an earlier version, by id.
    Session(Arc<str>),
}

/// What the direct path needs: the gateway, the hosts `/mcp` may be called by, and
/// rmcp's session manager (shared with rmcp's service).
#[derive(Debug)]
pub struct Direct {
    gateway: Arc<Gateway>,
    allowed_hosts: Vec<String>,
    sessions: Arc<LocalSessionManager>,
    refreshed: Refreshes,
    epoch: Instant,
}

impl Direct {
    /// `allowed_hosts` must be the list rmcp was given, so both paths admit the same
    /// `Host` headers; rmcp's service must be built with [`Direct::session_manager`].
    pub fn new(gateway: Arc<Gateway>, allowed_hosts: Vec<String>) -> Direct {
        Direct {
            gateway,
            allowed_hosts,
            sessions: Arc::new(LocalSessionManager::default()),
            refreshed: Refreshes::default(),
            epoch: Instant::now(),
        }
    }

    /// The session manager rmcp's service must use, so this path sees its sessions.
    pub fn session_manager(&self) -> Arc<LocalSessionManager> {
        self.sessions.clone()
    }

    /// Whether the headers alone allow this path to take the request, and as what.
    fn takes(&self, method: &Method, headers: &HeaderMap) -> Option<Era> {
        let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let plain = *method == Method::POST
            && !headers.contains_key(header::ORIGIN)
            && !headers
                .keys()
                .any(|name| name.as_str().starts_with("mcp-param-"))
            && content_type_is_json(headers)
            && accepts_json_and_sse(headers)
            && host_allowed(headers, &self.allowed_hosts)
            && headers
                .get(header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok()?.parse::<usize>().ok())
                .is_none_or(|n| n <= MAX_REQUEST_BYTES);
        if !plain {
            return None;
        }
        let known = |name: &str| self.gateway.tool(name).is_some();
        let version = text("mcp-protocol-version")?;
        match headers.get("mcp-session-id") {
            None if version == STATELESS_VERSION => (text("mcp-method") == Some("tools/call")
                && text("mcp-name").is_some_and(known))
            .then_some(Era::Stateless),
            Some(id) if SESSION_VERSIONS.contains(&version) => {
                let id = id.to_str().ok()?;
                (text("mcp-method").is_none_or(|m| m == "tools/call")
                    && text("mcp-name").is_none_or(known))
                .then(|| Era::Session(Arc::from(id)))
            }
            _ => None,
        }
    }

    /// Whether rmcp knows the session; a session it does not know is forgotten here.
    async fn session_is_live(&self, id: &Arc<str>) -> bool {
        if self.sessions.has_session(id).await.unwrap_or(false) {
            return true;
        }
        self.refreshed.forget(id);
        false
    }

    /// Whether this call of session `id` should go through rmcp to keep the session
    /// alive.
    fn due_for_refresh(&self, id: &Arc<str>) -> bool {
        let now = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.refreshed.due(id, now)
    }
}

/// Per session: when a call last went through rmcp (ms on the caller's clock).
/// Read-mostly: a call takes the read lock and one atomic; the write lock is taken once
/// per new session.
#[derive(Debug, Default)]
struct Refreshes(RwLock<HashMap<Arc<str>, AtomicU64>>);

impl Refreshes {
    /// Whether a call of `id` at `now` should go through rmcp. A session seen for the
    /// first time was just initialised through rmcp, so it is not due.
    fn due(&self, id: &Arc<str>, now: u64) -> bool {
        let refresh = u64::try_from(SESSION_REFRESH.as_millis()).unwrap_or(u64::MAX);
        if let Some(last) = read(&self.0).get(id) {
            let seen = last.load(Ordering::Relaxed);
            // One caller wins the swap; the others keep answering directly.
            return now.saturating_sub(seen) >= refresh
                && last
                    .compare_exchange(seen, now, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok();
        }
        let mut map = write(&self.0);
        if map.len() >= SESSIONS_REMEMBERED {
            // rmcp has ended every session idle for 300 s; these were not refreshed
            // for longer than that.
            let stale = refresh.saturating_mul(6);
            map.retain(|_, last| now.saturating_sub(last.load(Ordering::Relaxed)) < stale);
        }
        map.entry(id.clone()).or_insert_with(|| AtomicU64::new(now));
        false
    }

    fn forget(&self, id: &Arc<str>) {
        write(&self.0).remove(id);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        read(&self.0).len()
    }
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Middleware in front of rmcp's `/mcp` service: answers what it takes, passes the rest.
pub async fn serve_or_pass(
    State(direct): State<Arc<Direct>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(era) = direct.takes(request.method(), request.headers()) else {
        return next.run(request).await;
    };
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_REQUEST_BYTES).await {
        Ok(bytes) => bytes,
        Err(_) => {
            // Over the limit without a Content-Length, or the client went away: the body
            // is gone, so this is the one answer given here rather than by rmcp.
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "Payload Too Large: request body exceeds {MAX_REQUEST_BYTES} bytes or could not be read"
                ),
            )
                .into_response();
        }
    };
    let header_name = parts.headers.get("mcp-name").and_then(|v| v.to_str().ok());
    let call = parse_call(&bytes, &era, header_name);
    let tool = call
        .as_ref()
        .and_then(|c| direct.gateway.tool(&c.params.name).cloned());
    let live = match (&era, &tool) {
        (Era::Session(id), Some(_)) => {
            direct.session_is_live(id).await && !direct.due_for_refresh(id)
        }
        (Era::Stateless, Some(_)) => true,
        (_, None) => false,
    };
    let (Some(call), Some(tool), true) = (call, tool, live) else {
        return next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
    };
    tracing::debug!(tool = %tool.name, stateless = era == Era::Stateless, "tools/call answered directly");
    let id = call.id.get().to_owned();
    let arguments = call.params.arguments.unwrap_or_default();
    let outcome = direct.gateway.call(&tool, arguments).await;
    let body = answer(&id, outcome, era == Era::Stateless);
    (
        [(header::CONTENT_TYPE, "application/json")],
        Body::from(body),
    )
        .into_response()
}

/// A JSON-RPC `tools/call` request, exactly as this path accepts it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Call<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    #[serde(borrow)]
    id: &'a RawValue,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Params<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
    /// Other keys (a progress token, client info) are allowed and unused.
    #[serde(rename = "_meta", default)]
    meta: Option<Map<String, Value>>,
}

/// The call, when the body is one this path takes for `era`: otherwise `None` (and
/// rmcp answers). `header_name` is the `Mcp-Name` header, which must match when sent.
fn parse_call<'a>(bytes: &'a [u8], era: &Era, header_name: Option<&str>) -> Option<Call<'a>> {
    let call: Call<'a> = serde_json::from_slice(bytes).ok()?;
    let id = call.id.get().as_bytes();
    // JSON-RPC ids are strings or integers here; anything else is rmcp's to refuse.
    let id_ok = id.first() == Some(&b'"')
        || (!id.is_empty() && id.iter().all(|b| b.is_ascii_digit() || *b == b'-'));
    let meta = call.params.meta.as_ref();
    let meta_ok = match era {
        // 2026-07-28 requires both keys; a request without them is rmcp's to refuse.
        Era::Stateless => {
            meta.and_then(|m| m.get(META_VERSION)) == Some(&Value::from(STATELESS_VERSION))
                && meta
                    .and_then(|m| m.get(META_CAPABILITIES))
                    .is_some_and(Value::is_object)
        }
        // A per-request version in a session is a negotiation rmcp decides on.
        Era::Session(_) => meta.is_none_or(|m| !m.contains_key(META_VERSION)),
    };
    let name_ok = match era {
        Era::Stateless => header_name == Some(call.params.name.as_ref()),
        Era::Session(_) => header_name.is_none_or(|h| h == call.params.name),
    };
    (call.jsonrpc == "2.0" && id_ok && call.method == "tools/call" && meta_ok && name_ok)
        .then_some(call)
}

/// The JSON-RPC answer: the same members, in the same order, as rmcp's `CallToolResult`
/// for this call, with the checked body copied in rather than re-serialised. `stateless`
/// adds 2026-07-28's `resultType`.
pub fn answer(id: &str, outcome: CallOutcome, stateless: bool) -> Vec<u8> {
    let CallOutcome {
        result,
        notes,
        signals,
    } = outcome;
    let body_len = result.as_ref().map_or(0, |s| s.body().len());
    // The text block escapes the body: quotes dominate JSON, so allow for growth.
    let mut out = Vec::with_capacity(body_len * 5 / 2 + 1024);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(if stateless {
        br#","result":{"resultType":"complete","content":[{"type":"text","text":"#.as_slice()
    } else {
        br#","result":{"content":[{"type":"text","text":"#.as_slice()
    });
    let is_error = match &result {
        Ok(structured) => {
            if structured.is_wrapped() {
                write_str(&mut out, &structured.text());
            } else {
                write_utf8_str(&mut out, structured.body());
            }
            false
        }
        Err(failure) => {
            write_str(&mut out, &failure.message);
            true
        }
    };
    out.push(b'}');
    if !notes.is_empty() {
        out.extend_from_slice(br#",{"type":"text","text":"#);
        write_str(&mut out, &super::notes_text(&notes));
        out.push(b'}');
    }
    out.push(b']');
    if let Ok(structured) = &result {
        out.extend_from_slice(br#","structuredContent":"#);
        if structured.is_wrapped() {
            out.extend_from_slice(br#"{"result":"#);
            out.extend_from_slice(structured.body());
            out.push(b'}');
        } else {
            out.extend_from_slice(structured.body());
        }
    }
    out.extend_from_slice(if is_error {
        br#","isError":true"#
    } else {
        br#","isError":false"#
    });
    out.extend_from_slice(br#","_meta":{"#);
    write_str(&mut out, SIGNALS_META_KEY);
    out.push(b':');
    // Writing a `Value` into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut out, &signals);
    out.extend_from_slice(b"}}}");
    out
}

/// Appends `s` as a JSON string (quoted and escaped).
fn write_str(out: &mut Vec<u8>, s: &str) {
    write_utf8_str(out, s.as_bytes());
}

/// Appends UTF-8 `bytes` as a JSON string, escaped exactly as `serde_json` escapes.
///
/// Takes bytes so a checked body needs no second UTF-8 pass (the parse verified every
/// string, and JSON outside strings is ASCII): only `"`, `\\` and control bytes change;
/// every other byte, multi-byte sequences included, is copied in runs. Eight bytes are
/// tested at a time (this copies the whole upstream body on every call): a bit mask marks
/// the bytes to escape, and only those are visited.
fn write_utf8_str(out: &mut Vec<u8>, bytes: &[u8]) {
    out.reserve(bytes.len() + bytes.len() / 4 + 2);
    out.push(b'"');
    let mut run = 0;
    let mut blocks = bytes.chunks_exact(8);
    let mut at = 0;
    for block in blocks.by_ref() {
        let word = u64::from_le_bytes([
            block[0], block[1], block[2], block[3], block[4], block[5], block[6], block[7],
        ]);
        // One bit (the high bit of its byte) per byte that needs escaping.
        let mut special = escape_mask(word);
        while special != 0 {
            let i = at + (special.trailing_zeros() / 8) as usize;
            escape_byte(out, bytes, &mut run, i, bytes[i]);
            special &= special - 1;
        }
        at += 8;
    }
    for (i, &b) in blocks.remainder().iter().enumerate() {
        escape_byte(out, bytes, &mut run, at + i, b);
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

/// The high bit of every byte of `word` that is `"`, `\\` or below 0x20, and no other
/// bit. Exact per byte: each test adds within a byte's low seven bits, so no carry
/// crosses into the next byte.
#[inline]
fn escape_mask(word: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let is_zero = |v: u64| !(((v & LOW7) + LOW7) | v) & HIGHS;
    let below_space = !(((word & LOW7) + ONES * 0x60) | word) & HIGHS;
    is_zero(word ^ (ONES * u64::from(b'"')))
        | is_zero(word ^ (ONES * u64::from(b'\\')))
        | below_space
}

/// Escapes `b` (at `i` in `bytes`) if it must be, first copying the pending run.
#[inline]
fn escape_byte(out: &mut Vec<u8>, bytes: &[u8], run: &mut usize, i: usize, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short: &[u8] = match b {
        b'"' => b"\\\"",
        b'\\' => b"\\\\",
        b'\n' => b"\\n",
        b'\r' => b"\\r",
        b'\t' => b"\\t",
        0x08 => b"\\b",
        0x0c => b"\\f",
        0x00..=0x1f => b"",
        _ => return,
    };
    out.extend_from_slice(&bytes[*run..i]);
    if short.is_empty() {
        out.extend_from_slice(b"\\u00");
        out.push(HEX[usize::from(b >> 4)]);
        out.push(HEX[usize::from(b & 0xf)]);
    } else {
        out.extend_from_slice(short);
    }
    *run = i + 1;
}

fn content_type_is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let essence = v.split(';').next().unwrap_or_default();
            essence.trim().eq_ignore_ascii_case("application/json")
        })
}

/// Both media types listed plainly (no quality parameters): anything subtler is rmcp's.
fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    let mut json = false;
    let mut sse = false;
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        if value.contains(['"', ';']) {
            return false;
        }
        for range in value.split(',') {
            let range = range.trim();
            json |= range.eq_ignore_ascii_case("application/json");
            sse |= range.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && sse
}

/// The `Host` header names an allowed host (and port, when the entry has one).
fn host_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(authority) = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| axum::http::uri::Authority::try_from(v).ok())
    else {
        return false;
    };
    let host = normalize(authority.host());
    allowed.iter().any(|entry| {
        match axum::http::uri::Authority::try_from(entry.trim()) {
            Ok(a) => {
                normalize(a.host()) == host
                    && a.port_u16().is_none_or(|p| authority.port_u16() == Some(p))
            }
            // `::1` is not an authority without brackets: compare it as a bare host.
            Err(_) => normalize(entry) == host,
        }
    })
}

fn normalize(host: &str) -> String {
    host.trim()
        .trim_matches('[')
        .trim_matches(']')
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn strings_are_escaped_exactly_as_serde_json_escapes_them() {
        let mut every_char: String = (0u8..0x80).map(char::from).collect();
        every_char.push_str("é ü 漢字 🦀 \u{2028} \u{7f} end\\");
        // Random strings heavy in the bytes that matter, at every length and alignment.
        let alphabet: Vec<char> = "\"\\\n\r\t\u{1}\u{1f} aZ{}:,é🦀".chars().collect();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut random = Vec::new();
        for len in 0..80 {
            let s: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            random.push(s);
        }
        for s in random.iter().map(String::as_str).chain([
            "",
            "plain",
            "\"",
            "\\",
            "{\"a\":\"b\\\"c\"}\n",
            every_char.as_str(),
        ]) {
            let mut ours = Vec::new();
            write_str(&mut ours, s);
            let theirs = serde_json::to_vec(s).expect("a string serialises");
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs),
                "{s:?}"
            );
        }
    }

    #[test]
    fn accept_needs_both_plain_media_types() {
        assert!(accepts_json_and_sse(&headers(&[(
            "accept",
            "application/json, text/event-stream"
        )])));
        assert!(accepts_json_and_sse(&headers(&[
            ("accept", "text/event-stream"),
            ("accept", "Application/JSON")
        ])));
        assert!(!accepts_json_and_sse(&headers(&[(
            "accept",
            "application/json"
        )])));
        assert!(!accepts_json_and_sse(&headers(&[(
            "accept",
            "application/json;q=0, text/event-stream"
        )])));
        assert!(!accepts_json_and_sse(&headers(&[("accept", "*/*")])));
    }

    #[test]
    fn hosts_are_matched_like_rmcp() {
        let allowed: Vec<String> = ["localhost", "127.0.0.1", "::1", "gw.example.com:8443"]
            .map(String::from)
            .to_vec();
        let ok = |host: &'static str| host_allowed(&headers(&[("host", host)]), &allowed);
        assert!(ok("127.0.0.1:8080"));
        assert!(ok("LOCALHOST"));
        assert!(ok("[::1]:9000"));
        assert!(ok("gw.example.com:8443"));
        assert!(!ok("gw.example.com:443"));
        assert!(!ok("evil.example.com"));
        assert!(!ok("127.0.0.1.evil.example.com"));
        assert!(!host_allowed(&HeaderMap::new(), &allowed));
    }

    #[test]
    fn a_busy_session_goes_through_rmcp_about_once_a_minute() {
        let r = Refreshes::default();
        let id: Arc<str> = Arc::from("s1");
        let minute = 60_000;
        assert!(!r.due(&id, 0), "just initialised through rmcp");
        let through_rmcp = (1..=600u64)
            .filter(|i| r.due(&id, i * 1_000)) // a call a second for ten minutes
            .count();
        assert_eq!(through_rmcp, 10);
        assert!(!r.due(&id, 600_000 + minute - 1));
        assert!(r.due(&id, 600_000 + minute));
        r.forget(&id);
        assert_eq!(r.len(), 0);
    }

    #[test]
    fn sessions_rmcp_has_ended_are_forgotten_when_many_are_remembered() {
        let r = Refreshes::default();
        for i in 0..SESSIONS_REMEMBERED {
            assert!(!r.due(&Arc::from(format!("old{i}")), 0));
        }
        assert_eq!(r.len(), SESSIONS_REMEMBERED);
        // Seven minutes later a new session arrives: the old ones are gone.
        assert!(!r.due(&Arc::from("new"), 7 * 60_000));
        assert_eq!(r.len(), 1);
    }

    #[test]
    fn only_a_plain_tools_call_is_taken() {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let good = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"web_search","arguments":{{"query":"q"}},{meta}}}}}"#
        );
        let stateless = Era::Stateless;
        let call = parse_call(good.as_bytes(), &stateless, Some("web_search")).expect("taken");
        assert_eq!(call.id.get(), "7");
        assert!(parse_call(good.as_bytes(), &stateless, Some("other_tool")).is_none());
        assert!(parse_call(good.as_bytes(), &stateless, None).is_none());
        let string_id = good.replace("\"id\":7", "\"id\":\"abc\"");
        assert!(parse_call(string_id.as_bytes(), &stateless, Some("web_search")).is_some());
        for refused in [
            good.replace("\"id\":7", "\"id\":null"),
            good.replace("\"id\":7", "\"id\":1.5"),
            good.replace("\"2.0\"", "\"1.0\""),
            good.replace("2026-07-28", "2025-11-25"),
            good.replace("\"arguments\"", "\"task\":{},\"arguments\""),
            good.replace(",\"io.modelcontextprotocol/clientCapabilities\":{}", ""),
            good.replace("{\"query\":\"q\"}", "[1]"),
            good.replace("\"method\":\"tools/call\"", "\"method\":\"tools/list\""),
            format!("{good} trailing"),
            "not json".to_owned(),
        ] {
            assert!(
                parse_call(refused.as_bytes(), &stateless, Some("web_search")).is_none(),
                "{refused}"
            );
        }

        // A session's call: no per-request version; Mcp-Name optional but must match.
        let session = Era::Session(Arc::from("abc"));
        let plain = r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"web_search","arguments":{"query":"q"},"_meta":{"progressToken":1}}}"#;
        assert!(parse_call(plain.as_bytes(), &session, None).is_some());
        assert!(parse_call(plain.as_bytes(), &session, Some("web_search")).is_some());
        assert!(parse_call(plain.as_bytes(), &session, Some("other")).is_none());
        assert!(
            parse_call(good.as_bytes(), &session, None).is_none(),
            "a per-request version"
        );
    }
}
