//! What one attempt's reply means: success with the checked body, or a classified
//! failure with what the model's message needs. A pure function of the reply, the
//! tool's contract and the tool's sunset state — classification happens here once per
//! attempt, and retry, breaker, metrics, incidents and the message all use its class.

use std::borrow::Cow;
use std::time::Duration;

use toolgate_contract::BodyError;
use toolgate_resilience::{Attempt, BodyCheck, ErrorClass, Said, classify};
use toolgate_signals::{Headers, Signals};

use crate::explain::{self, Detail};
use crate::upstream::own_origin::on_own_origin;
use crate::upstream::{CheckedBody, SendError, UpstreamResponse};
use toolgate_config::ToolSpec;

/// What one attempt turned into.
#[derive(Debug)]
pub enum AttemptResult {
    /// The body, checked against the contract (`null` when it was empty).
    Success(CheckedBody),
    /// A classified failure.
    Failed {
        /// Its class.
        class: ErrorClass,
        /// The server's wait, if it gave one.
        hint: Option<Duration>,
        /// What the message says about it.
        detail: Detail,
    },
}

/// Turns what came back into success or a classified failure.
pub fn interpret(
    tool: &ToolSpec,
    sent: Result<UpstreamResponse, SendError>,
    signals: Option<&Signals>,
    past_sunset: bool,
) -> AttemptResult {
    interpret_within(tool, sent, signals, past_sunset, usize::MAX)
}

/// [`interpret`], refusing a 2xx body of more than `max_values` JSON values before
/// anything parses it: checking, learning from or reading a version in a body builds a
/// tree of it, which for tiny or deeply nested values takes tens of times the body's
/// size (`toolgate_contract::BYTES_PER_VALUE`).
pub fn interpret_within(
    tool: &ToolSpec,
    sent: Result<UpstreamResponse, SendError>,
    signals: Option<&Signals>,
    past_sunset: bool,
    max_values: usize,
) -> AttemptResult {
    let read = Read {
        rate_limited: signals.is_some_and(|s| s.rate_limited),
        retry_after: signals.and_then(|s| s.retry_after),
        past_sunset,
        said: said(signals.and_then(|s| s.recovery)),
        maintenance: signals.map(|s| s.maintenance).unwrap_or_default(),
    };
    let response = match sent {
        Ok(r) => r,
        Err(e) => return not_answered(e, &read),
    };
    let status = response.status;
    if !(200..300).contains(&status) {
        return not_2xx(tool, &response, &read);
    }
    // Before the body is read as JSON: a gRPC-web body is binary frames.
    if let Some(failed) = grpc_failure(tool, status, &response.headers, &response.body, &read) {
        return failed;
    }
    if toolgate_contract::more_values_than(&response.body, max_values) {
        let detail = Detail::TooManyValues {
            status: Some(status),
            limit: max_values,
        };
        return failed(
            &read.attempt(status, BodyCheck::TooLarge),
            read.retry_after,
            detail,
        );
    }
    // The body as received, kept for a maintenance page should the contract refuse the
    // decoded one (a reference, not a copy).
    let received = response.body.clone();
    let body = match json_text(response.body, &response.headers) {
        Ok(body) => body,
        Err(detail) => return failed(&read.attempt(status, BodyCheck::NotJson), None, detail),
    };
    check(tool, status, body, &received, &response.headers, &read)
}

/// What the signals and the tool's sunset say about an attempt, for the resilience
/// layer's [`Attempt`].
struct Read {
    rate_limited: bool,
    retry_after: Option<Duration>,
    past_sunset: bool,
    said: Said,
    /// Whether the 2xx body is read for a maintenance page, which is told only when the
    /// contract refuses the body (and only then read).
    maintenance: toolgate_signals::maintenance::Pending,
}

/// What the reply's body says would fix it, in the resilience layer's words.
fn said(recovery: Option<toolgate_signals::recovery::Recovery>) -> Said {
    use toolgate_signals::recovery::Recovery;
    match recovery {
        None => Said::Nothing,
        // A full count is the account's too; only the engine's hold tells them apart.
        Some(Recovery::Account | Recovery::Holdings) => Said::Account,
        Some(Recovery::Credentials) => Said::Credentials,
        Some(Recovery::Transient) => Said::Transient,
        Some(Recovery::Request) => Said::Request,
        Some(Recovery::Unsupported) => Said::Unsupported,
        Some(Recovery::Retired) => Said::Retired,
    }
}

impl Read {
    fn attempt(&self, status: u16, body_ok: BodyCheck) -> Attempt {
        Attempt::Response {
            status,
            rate_limited: self.rate_limited,
            retry_after: self.retry_after,
            past_sunset: self.past_sunset,
            body_ok,
            said: self.said,
        }
    }
}

/// An attempt that got no reply to read: not sent, not answered, or a reply refused
/// while it was being read.
fn not_answered(e: SendError, read: &Read) -> AttemptResult {
    let retry_after = read.retry_after;
    match e {
        SendError::Timeout(t) => failed(&Attempt::Timeout, None, Detail::Timeout(t)),
        SendError::Connect { detail } => failed(&Attempt::Connect, None, Detail::Connect(detail)),
        // Sent, then the server went away: ambiguous, like a 5xx without a hint.
        SendError::Broken { detail } => AttemptResult::Failed {
            class: ErrorClass::ServerError,
            hint: None,
            detail: Detail::Connect(detail),
        },
        SendError::Protocol { detail } => AttemptResult::Failed {
            class: ErrorClass::ServerError,
            hint: None,
            detail: Detail::Protocol(detail),
        },
        // The arguments made a request the client will not build: the caller's to fix,
        // never a sign the upstream is failing.
        SendError::Build { detail } => AttemptResult::Failed {
            class: ErrorClass::ClientError,
            hint: None,
            detail: Detail::NotFormed(detail),
        },
        // The gateway's own limit, not the upstream's doing: the request was sent, so
        // it is retried only where a retry is safe, as a reply lost on the way would be.
        SendError::NoRoom {
            held, limit, part, ..
        } => AttemptResult::Failed {
            class: ErrorClass::ServerError,
            hint: None,
            detail: Detail::NoRoom { held, limit, part },
        },
        SendError::TooManyValues { limit } => failed(
            &read.attempt(200, BodyCheck::TooLarge),
            retry_after,
            Detail::TooManyValues {
                status: None,
                limit,
            },
        ),
        SendError::TooLarge { status, limit, .. } => {
            let check = if (200..300).contains(&status) {
                BodyCheck::TooLarge
            } else {
                BodyCheck::Valid
            };
            failed(
                &read.attempt(status, check),
                retry_after,
                Detail::TooLarge { status, limit },
            )
        }
    }
}

/// A reply outside 2xx: a redirect (never followed) or a failure status.
fn not_2xx(tool: &ToolSpec, response: &UpstreamResponse, read: &Read) -> AttemptResult {
    let status = response.status;
    if (300..400).contains(&status) {
        // Where it points helps the owner mend the tool (a moved endpoint, a new
        // version); never followed, and named only when it is a clean link that
        // carries none of the dependency's secrets, on the dependency's own origin.
        let secrets = explain::Secrets::of(tool);
        let location = response
            .headers
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| explain::link(v, &secrets))
            .filter(|l| on_own_origin(&tool.dependency.base_url, l));
        let detail = Detail::Redirect { status, location };
        return failed(
            &read.attempt(status, BodyCheck::Valid),
            read.retry_after,
            detail,
        );
    }
    let detail = Detail::Status {
        status,
        excerpt: explain::excerpt(&response.body, &explain::Secrets::of(tool)),
    };
    failed(
        &read.attempt(status, BodyCheck::Valid),
        read.retry_after,
        detail,
    )
}

/// A 2xx body as the JSON text the contract reads, or why it cannot be.
fn json_text(
    body: bytes::Bytes,
    headers: &reqwest::header::HeaderMap,
) -> Result<bytes::Bytes, Detail> {
    // An empty body (204, HEAD, a bare 200) is `null`: the contract decides whether
    // that is acceptable (`{type: "null"}`), rather than calling it "not JSON".
    // A UTF-8 byte order mark before the JSON (some Windows servers write one) is
    // not part of the document; RFC 8259 lets a reader ignore it, and the client gets
    // the JSON without it.
    // A body in another character set (UTF-16, Latin-1) is read as UTF-8 first; an
    // encoded body (`gzip` toolgate did not ask for) is left for the message below.
    let decoded = match content_encoding(headers) {
        Some(_) => Ok(body),
        None => super::charset::as_utf8(headers, body),
    };
    let body = match decoded {
        Ok(body) => body,
        Err(reason) => {
            let detail = Detail::NotJson {
                reason,
                excerpt: String::new(),
                encoding: content_encoding(headers),
            };
            return Err(detail);
        }
    };
    let body = match body.strip_prefix(UTF8_BOM) {
        Some(_) => body.slice(UTF8_BOM.len()..),
        None => body,
    };
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        bytes::Bytes::from_static(b"null")
    } else {
        body
    };
    Ok(body)
}

/// A 2xx body checked against the tool's contract: checked on every 2xx, and a
/// mismatch is drift, never retried. `received` is the body as it arrived, read for a
/// maintenance page when the contract refuses it.
fn check(
    tool: &ToolSpec,
    status: u16,
    body: bytes::Bytes,
    received: &[u8],
    headers: &reqwest::header::HeaderMap,
    read: &Read,
) -> AttemptResult {
    if let Some(failed) = graphql_failure(tool, status, &body, read) {
        return failed;
    }
    if let Some(failed) = jsonrpc_failure(tool, status, &body, read) {
        return failed;
    }
    // Checked after this step, so that a drifted body can still be returned.
    let checked_later = crate::learned::warns_on_declared(tool);
    // The common reply's whole check in one pass: JSON, no member named twice, and the
    // contract's schema. What it does not vouch for is read again below, for the reason.
    // The read notes where the body needs escaping, for the answer's text block.
    let escapes = (!checked_later)
        .then(|| tool.contract.response.vouch(&body))
        .flatten();
    let vouched = escapes.is_some();
    if !vouched && let Some(position) = super::duplicate_names::repeated_member(&body) {
        let detail = Detail::RepeatedMember {
            position,
            excerpt: explain::excerpt(&body, &explain::Secrets::of(tool)),
        };
        return failed(&read.attempt(status, BodyCheck::NotJson), None, detail);
    }
    let checked = if vouched || checked_later {
        Ok(())
    } else {
        super::number_range::check(&tool.contract.response, &body)
    };
    match checked {
        // A vendor throttling with a 2xx (an error envelope the signals read as a
        // throttle): believe the throttle, not the status. Not through `classify`,
        // which rightly calls any valid 2xx a success.
        Ok(()) if read.rate_limited => AttemptResult::Failed {
            class: ErrorClass::RateLimited,
            hint: read.retry_after,
            detail: Detail::Status {
                status,
                excerpt: String::new(),
            },
        },
        Ok(()) => AttemptResult::Success(match escapes {
            Some(escapes) => CheckedBody::with_escapes(body, escapes),
            None => body.into(),
        }),
        Err(_) if let Some(page) = read.maintenance.announced(received) => {
            maintenance_page(tool, status, &body, page, read)
        }
        Err(BodyError::NotJson(e)) => {
            let detail = Detail::NotJson {
                reason: e.to_string(),
                excerpt: explain::excerpt(&body, &explain::Secrets::of(tool)),
                encoding: content_encoding(headers),
            };
            failed(&read.attempt(status, BodyCheck::NotJson), None, detail)
        }
        Err(BodyError::Drift(drift)) => failed(
            &read.attempt(status, BodyCheck::SchemaMismatch),
            None,
            Detail::Drift(drift),
        ),
    }
}

/// A gRPC status other than OK that a 2xx carries: in its headers (gRPC-web's
/// trailers-only reply: `grpc-status: 16` beside a 200 and no body), or in the trailers
/// frame that ends a gRPC-web body (a reply with a body sends its trailers so).
/// Classified as the HTTP status it stands for, as a failed GraphQL reply is, and told
/// with the `grpc-message` it came with. One header looked up; a body is looked into only
/// when its `Content-Type` is gRPC-web's, and then only its frame headers and its last
/// frame ([`toolgate_signals::grpc_web::body_trailers`]).
fn grpc_failure(
    tool: &ToolSpec,
    status: u16,
    headers: &reqwest::header::HeaderMap,
    body: &[u8],
    read: &Read,
) -> Option<AttemptResult> {
    let in_headers = headers.get("grpc-status").and_then(|code| {
        let code = code.as_bytes();
        let stands_for = toolgate_signals::grpc_web::stands_for(code)?;
        let message = headers
            .get("grpc-message")
            .map(|m| Cow::Borrowed(m.as_bytes()));
        Some((stands_for, Cow::Borrowed(code), message, read.said))
    });
    let (stands_for, code, message, said) = match in_headers {
        Some(found) => found,
        None => {
            let kind = headers.get(reqwest::header::CONTENT_TYPE)?.as_bytes();
            let t = toolgate_signals::grpc_web::body_trailers(kind, body)?;
            // The signals read the headers only: the trailers' status says the rest.
            let said = match read.said {
                Said::Nothing => self::said(t.recovery),
                known => known,
            };
            (t.stands_for, t.status, t.message, said)
        }
    };
    let mut told = b"grpc-status ".to_vec();
    told.extend_from_slice(code.trim_ascii());
    if let Some(message) = message {
        told.extend_from_slice(b": ");
        told.extend_from_slice(&message);
    }
    let detail = Detail::Status {
        status,
        excerpt: explain::excerpt(&told, &explain::Secrets::of(tool)),
    };
    let attempt = Attempt::Response {
        status: stands_for,
        rate_limited: read.rate_limited,
        retry_after: read.retry_after,
        past_sunset: read.past_sunset,
        body_ok: BodyCheck::Valid,
        said,
    };
    Some(failed(&attempt, read.retry_after, detail))
}

/// A JSON-RPC error response sent with a 2xx (Solana's nodes, Ethereum's execution
/// clients, Bitcoin Core for JSON-RPC 2.0 requests answer so): classified as the status
/// its code stands for ([`toolgate_signals::jsonrpc::failed`]), whatever the contract
/// says of it, with the words of its message deciding the rest, as a failed GraphQL
/// reply is.
fn jsonrpc_failure(
    tool: &ToolSpec,
    status: u16,
    body: &[u8],
    read: &Read,
) -> Option<AttemptResult> {
    let stands_for = toolgate_signals::jsonrpc::failed(body)?;
    let detail = Detail::Status {
        status,
        excerpt: explain::excerpt(body, &explain::Secrets::of(tool)),
    };
    Some(failed(
        &read.attempt(stands_for, BodyCheck::Valid),
        read.retry_after,
        detail,
    ))
}

/// A GraphQL reply that failed, sent with a 2xx (GraphQL over HTTP answers a
/// well-formed request with a 200 whatever went wrong): classified as the status its
/// errors stand for, whatever the contract says of it, since a contract loose enough for
/// `data` passes `{"data": null, "errors": […]}`. Partial data beside errors is data.
fn graphql_failure(
    tool: &ToolSpec,
    status: u16,
    body: &[u8],
    read: &Read,
) -> Option<AttemptResult> {
    let toolgate_signals::graphql::Reply::Failed { status: stands_for } =
        toolgate_signals::graphql::read(body)?
    else {
        return None;
    };
    let detail = Detail::Status {
        status,
        excerpt: explain::excerpt(body, &explain::Secrets::of(tool)),
    };
    Some(failed(
        &read.attempt(stands_for, BodyCheck::Valid),
        read.retry_after,
        detail,
    ))
}

/// A 2xx the contract refused whose body says the service is under maintenance: the
/// upstream is unavailable, as a 503 would say, and the end the page names (or a
/// `Retry-After` beside it) is the wait; none named: a 503 without a hint.
fn maintenance_page(
    tool: &ToolSpec,
    status: u16,
    body: &[u8],
    page: toolgate_signals::maintenance::Announced,
    read: &Read,
) -> AttemptResult {
    let wait = page.wait.max(read.retry_after);
    let attempt = Attempt::Response {
        status: 503,
        rate_limited: false,
        retry_after: wait,
        past_sunset: false,
        body_ok: BodyCheck::Valid,
        said: Said::Nothing,
    };
    let detail = Detail::Status {
        status,
        excerpt: explain::excerpt(body, &explain::Secrets::of(tool)),
    };
    failed(&attempt, wait, detail)
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The `Content-Encoding` a reply came with, other than `identity`: the value when it
/// is a short list of plain tokens (`gzip`, `br`, `gzip, zstd`), else empty, since the
/// upstream wrote it and the model reads it.
fn content_encoding(headers: &reqwest::header::HeaderMap) -> Option<String> {
    const MAX_SHOWN: usize = 32;
    let value = headers.get(reqwest::header::CONTENT_ENCODING)?;
    let text = value.to_str().unwrap_or("").trim();
    if text.eq_ignore_ascii_case("identity") {
        return None;
    }
    let plain = !text.is_empty()
        && text.len() <= MAX_SHOWN
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b',' | b' '));
    Some(if plain {
        text.to_owned()
    } else {
        String::new()
    })
}

fn failed(attempt: &Attempt, hint: Option<Duration>, detail: Detail) -> AttemptResult {
    // `classify` returns None only for a valid 2xx, which never reaches here.
    let class = classify(attempt).unwrap_or(ErrorClass::ServerError);
    AttemptResult::Failed {
        class,
        hint,
        detail,
    }
}

/// Reads the reply's signals: its headers, and for an error reply (or a GraphQL 200 that
/// starts with `errors`) the first kilobytes of its body, where Slack, Discord, GraphQL
/// APIs and Salesforce say they throttle. A successful body is never scanned: it is the
/// contract's business, and the success path must not pay for it.
pub fn read_signals(
    tool: &ToolSpec,
    sent: &Result<UpstreamResponse, SendError>,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<Signals> {
    let mut signals = read_headers(tool, sent, now)?;
    if let Ok(r) = sent {
        if toolgate_signals::body::worth_reading(r.status, &r.body) {
            signals.absorb_body(toolgate_signals::body::read(r.status, &r.body, now));
        } else if (200..300).contains(&r.status)
            && let Some(b) = toolgate_signals::body::read_success(&r.body, now)
        {
            signals.absorb_body(b);
        }
        if (200..300).contains(&r.status) {
            signals.maintenance = toolgate_signals::maintenance::Pending::success_received(now);
        }
    }
    if let Ok(r) = sent
        && r.status == 410
    {
        observe_retirement(&mut signals, &r.body, now);
    }
    sanitise(tool, &mut signals);
    Some(signals)
}

/// A 410 that says the API itself was retired is the retirement, observed: the tool is
/// deprecated and its sunset has come, whatever the headers announced (a `Sunset` still
/// in the future, or none), so no note says it "still works" and the owner hears of it.
/// A 410 alone is not enough — an API answers 410 for one deleted item too — so it
/// counts when the reply also carries a deprecation notice, or when its first words
/// speak of a retirement ("this API version has been retired", "has been removed.
/// Please migrate to …", "no longer supported").
fn observe_retirement(signals: &mut Signals, body: &[u8], now: chrono::DateTime<chrono::Utc>) {
    const WORDS: [&str; 8] = [
        "deprecat",
        "retired",
        "sunset",
        "has been removed",
        "was removed",
        "no longer supported",
        "discontinued",
        "migrate to",
    ];
    let head = String::from_utf8_lossy(&body[..body.len().min(4096)]).to_lowercase();
    if signals.deprecation.is_none() && !WORDS.iter().any(|w| head.contains(w)) {
        return;
    }
    // The day it was seen, not the instant: the notice (and its incident, keyed by the
    // sunset day) stays the same for every 410 of that day.
    let today = now
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .map_or(now, |t| t.and_utc());
    let d = signals.deprecation.get_or_insert_with(Default::default);
    d.deprecated = true;
    d.sunset = Some(d.sunset.map_or(today, |s| s.min(today)));
    // Deprecated no later than it stopped working.
    d.since = Some(
        d.since
            .unwrap_or(today)
            .min(today)
            .min(d.sunset.unwrap_or(today)),
    );
}

/// Upstream text that signals carry on to the model, `_meta`, the store and incidents
/// (warnings, deprecation links) is capped, freed of control characters and of the
/// tool's secrets; a link that is not a short URL on the dependency's own origin is
/// dropped. Secrets are gathered only
/// when there is such text.
fn sanitise(tool: &ToolSpec, signals: &mut Signals) {
    /// A `Warning` text is a sentence, not a document.
    const MAX_WARNING: usize = 300;
    let has_text = !signals.warnings.is_empty()
        || !signals.unread.is_empty()
        || signals
            .deprecation
            .as_ref()
            .is_some_and(|d| d.successor.is_some() || d.info.is_some());
    if !has_text {
        return;
    }
    let secrets = explain::Secrets::of(tool);
    for w in &mut signals.warnings {
        *w = explain::upstream_text(w, &secrets, MAX_WARNING);
    }
    for u in &mut signals.unread {
        u.name = explain::upstream_text(&u.name, &secrets, MAX_WARNING);
        u.value = explain::upstream_text(&u.value, &secrets, MAX_WARNING);
    }
    if let Some(d) = signals.deprecation.as_mut() {
        // Kept with the links its owner may read (the model's view is
        // `own_origin::for_model`, where it is told).
        let named = |link: String| {
            explain::link(&link, &secrets)
                .filter(|l| crate::upstream::own_origin::for_owner(&tool.dependency, l))
        };
        d.successor = d.successor.take().and_then(named);
        d.info = d.info.take().and_then(named);
    }
}

fn read_headers(
    tool: &ToolSpec,
    sent: &Result<UpstreamResponse, SendError>,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<Signals> {
    let (status, headers) = match sent {
        Ok(r) => (r.status, &r.headers),
        Err(
            SendError::TooLarge {
                status, headers, ..
            }
            | SendError::NoRoom {
                status, headers, ..
            },
        ) => (*status, headers),
        Err(_) => return None,
    };
    let fields: Vec<(&str, &[u8])> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_bytes()))
        .collect();
    let headers = Headers::new(&fields);
    let mut signals = toolgate_signals::read(status, &headers, now, tool.dependency.flavour);
    super::pinned_version::check(tool, &headers, &mut signals);
    Some(signals)
}

#[cfg(test)]
mod tests;
