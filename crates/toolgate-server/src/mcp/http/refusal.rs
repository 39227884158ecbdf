//! Every answer of `/mcp` that is not the server's: one type for the refusals of POST,
//! GET and DELETE, and the one place that maps a refusal — or a JSON-RPC error code the
//! server answered with — to an HTTP status.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::super::dispatch::{Reply, StepUp};
use super::super::envelope::Era;
use super::super::jsonrpc::{self, Id};
use super::ALLOW;

/// Why a request to `/mcp` is answered before it reaches the server.
#[derive(Debug)]
pub(super) enum Refusal {
    /// `Accept` leaves out what this method answers with (the sentence says what).
    NotAcceptable(&'static str),
    /// A POST whose body is not `application/json`.
    UnsupportedMediaType,
    /// A body over `gateway.max_request_bytes`.
    TooLarge { max: usize },
    /// A body that did not arrive within `gateway.body_timeout`.
    BodyTimedOut,
    /// A body that is no JSON-RPC message: its JSON-RPC error, already written.
    Malformed(jsonrpc::Refusal),
    /// A header toolgate cannot read or a version it does not speak (the sentence).
    BadHeader(String),
    /// Headers that say something else than the body (2026-07-28).
    HeaderMismatch { id: Option<Id>, reason: String },
    /// A message this endpoint does not take (the sentence).
    InvalidRequest { id: Option<Id>, reason: String },
    /// A handshake-era request without `Mcp-Session-Id`.
    SessionRequired,
    /// A session this replica cannot serve: the client initialises again.
    SessionUnknown,
    /// The session table is full; `retry_s` is when to try again. `share`: the caller
    /// holds that many, its share of a full table (`gateway.session_share`).
    SessionsFull {
        max: usize,
        share: Option<usize>,
        retry_s: u64,
    },
    /// GET or DELETE under the stateless revision, or another method.
    MethodNotAllowed,
    /// A tool call whose access token lacks a scope the tool needs: 403 with the
    /// challenge naming them, so the client can step up (nothing was sent upstream).
    InsufficientScope(StepUp),
}

impl Refusal {
    /// The HTTP status of this refusal.
    pub(super) fn status(&self) -> StatusCode {
        match self {
            Refusal::NotAcceptable(_) => StatusCode::NOT_ACCEPTABLE,
            Refusal::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Refusal::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Refusal::BodyTimedOut => StatusCode::REQUEST_TIMEOUT,
            Refusal::Malformed(_)
            | Refusal::BadHeader(_)
            | Refusal::HeaderMismatch { .. }
            | Refusal::InvalidRequest { .. }
            | Refusal::SessionRequired => StatusCode::BAD_REQUEST,
            Refusal::SessionUnknown => StatusCode::NOT_FOUND,
            Refusal::SessionsFull { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Refusal::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Refusal::InsufficientScope(_) => StatusCode::FORBIDDEN,
        }
    }

    /// The JSON-RPC error code of a refusal answered as JSON; `None` for the ones
    /// answered in plain text (the client's HTTP stack reads those, not its JSON-RPC).
    pub(super) fn code(&self) -> Option<i64> {
        match self {
            Refusal::TooLarge { .. } | Refusal::InvalidRequest { .. } => {
                Some(jsonrpc::INVALID_REQUEST)
            }
            Refusal::Malformed(refusal) => Some(refusal.code),
            Refusal::HeaderMismatch { .. } => Some(jsonrpc::HEADER_MISMATCH),
            Refusal::SessionsFull { .. } => Some(jsonrpc::SERVER_BUSY),
            Refusal::NotAcceptable(_)
            | Refusal::BodyTimedOut
            | Refusal::UnsupportedMediaType
            | Refusal::BadHeader(_)
            | Refusal::SessionRequired
            | Refusal::SessionUnknown
            | Refusal::MethodNotAllowed
            | Refusal::InsufficientScope(_) => None,
        }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let status = self.status();
        let code = self.code();
        match self {
            Refusal::NotAcceptable(sentence) => text(status, sentence),
            Refusal::UnsupportedMediaType => text(
                status,
                "Unsupported Media Type: Content-Type must be application/json",
            ),
            Refusal::BadHeader(sentence) => text(status, &sentence),
            Refusal::SessionRequired => text(status, "Bad Request: Session ID is required"),
            Refusal::BodyTimedOut => {
                // The rest of the body may still be on its way: the connection cannot
                // carry another request.
                let mut response = text(
                    status,
                    "Request Timeout: the request body did not arrive in time (gateway.body_timeout)",
                );
                response
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
                response
            }
            Refusal::SessionUnknown => text(status, "Not Found: Session not found"),
            Refusal::MethodNotAllowed => {
                (status, [(header::ALLOW, ALLOW)], "Method Not Allowed").into_response()
            }
            Refusal::InsufficientScope(StepUp { challenge, message }) => {
                let mut response = text(status, &message);
                if let Ok(value) = HeaderValue::from_str(&challenge) {
                    response
                        .headers_mut()
                        .insert(header::WWW_AUTHENTICATE, value);
                }
                response
            }
            Refusal::Malformed(refusal) => json(status, refusal.to_json()),
            Refusal::TooLarge { max } => json(
                status,
                jsonrpc::error(
                    None,
                    code.unwrap_or(jsonrpc::INVALID_REQUEST),
                    &format!(
                        "Invalid Request: the body exceeds {max} bytes (gateway.max_request_bytes)"
                    ),
                    None,
                ),
            ),
            Refusal::HeaderMismatch { id, reason } | Refusal::InvalidRequest { id, reason } => {
                json(
                    status,
                    jsonrpc::error(
                        id.as_ref(),
                        code.unwrap_or(jsonrpc::INVALID_REQUEST),
                        &reason,
                        None,
                    ),
                )
            }
            Refusal::SessionsFull {
                max,
                share,
                retry_s,
            } => sessions_full(status, code, max, share, retry_s),
        }
    }
}

/// A new session refused because the session table is full (`share`: the caller
/// holds at least its share of it); logged, since raising the limit is the operator's
/// call, and told with the wait.
fn sessions_full(
    status: StatusCode,
    code: Option<i64>,
    max: usize,
    share: Option<usize>,
    retry_s: u64,
) -> Response {
    let (message, data) = match share {
        None => {
            tracing::warn!(
                max_sessions = max,
                "session limit reached: refusing a new session (raise gateway.max_sessions or lower gateway.session_idle)"
            );
            (
                format!(
                    "toolgate has {max} open sessions, its limit (gateway.max_sessions); retry in {retry_s} s, \
                     close sessions you no longer use (DELETE /mcp), or use the stateless 2026-07-28 revision"
                ),
                serde_json::json!({ "max_sessions": max, "retry_after_s": retry_s }),
            )
        }
        Some(share) => {
            tracing::warn!(
                max_sessions = max,
                session_share = share,
                "session limit reached: refusing a new session to a caller holding its share of the table (gateway.session_share)"
            );
            (
                format!(
                    "toolgate's {max} sessions are all open, and you hold at least {share} of them, your share of a full table \
                     (gateway.session_share); close sessions you no longer use (DELETE /mcp) or retry in {retry_s} s"
                ),
                serde_json::json!({
                    "max_sessions": max,
                    "session_share": share,
                    "retry_after_s": retry_s
                }),
            )
        }
    };
    let body = jsonrpc::error(
        None,
        code.unwrap_or(jsonrpc::SERVER_BUSY),
        &message,
        Some(&data),
    );
    let mut response = json(status, body);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(retry_s));
    response
}

/// The HTTP status of the server's answer: under 2026-07-28 some JSON-RPC errors are
/// also HTTP errors (so intermediaries see them); under the handshake revisions every
/// answer is 200.
pub(super) fn status_of(reply: &Reply) -> StatusCode {
    if reply.era == Era::Handshake {
        return StatusCode::OK;
    }
    reply
        .error
        .and_then(|e| StatusCode::from_u16(e.modern_status).ok())
        .unwrap_or(StatusCode::OK)
}

pub(super) fn text(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message.to_owned(),
    )
        .into_response()
}

pub(super) fn json(status: StatusCode, body: Vec<u8>) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every refusal answered as JSON carries a JSON-RPC code, every plain-text one
    /// carries none, and the status is what clients and proxies expect.
    #[tokio::test]
    async fn each_refusal_has_one_status_and_a_code_exactly_when_its_body_is_json_rpc() {
        let malformed = match jsonrpc::parse(b"{") {
            Err(refusal) => refusal,
            Ok(_) => panic!("`{{` is no JSON-RPC message"),
        };
        let cases = [
            (Refusal::NotAcceptable("Not Acceptable: x"), 406, None),
            (Refusal::UnsupportedMediaType, 415, None),
            (Refusal::BodyTimedOut, 408, None),
            (
                Refusal::TooLarge { max: 10 },
                413,
                Some(jsonrpc::INVALID_REQUEST),
            ),
            (
                Refusal::Malformed(malformed),
                400,
                Some(jsonrpc::PARSE_ERROR),
            ),
            (Refusal::BadHeader("Bad Request: x".into()), 400, None),
            (
                Refusal::HeaderMismatch {
                    id: None,
                    reason: "x".into(),
                },
                400,
                Some(jsonrpc::HEADER_MISMATCH),
            ),
            (
                Refusal::InvalidRequest {
                    id: None,
                    reason: "x".into(),
                },
                400,
                Some(jsonrpc::INVALID_REQUEST),
            ),
            (Refusal::SessionRequired, 400, None),
            (Refusal::SessionUnknown, 404, None),
            (
                Refusal::SessionsFull {
                    max: 2,
                    share: None,
                    retry_s: 7,
                },
                503,
                Some(jsonrpc::SERVER_BUSY),
            ),
            (Refusal::MethodNotAllowed, 405, None),
        ];
        for (refusal, status, code) in cases {
            let what = format!("{refusal:?}");
            assert_eq!(refusal.status().as_u16(), status, "{what}");
            assert_eq!(refusal.code(), code, "{what}");
            let busy = matches!(refusal, Refusal::SessionsFull { .. });
            let response = refusal.into_response();
            assert_eq!(response.status().as_u16(), status, "{what}");
            if busy {
                assert_eq!(response.headers()[header::RETRY_AFTER], "7");
            }
            let body = axum::body::to_bytes(response.into_body(), 1 << 16)
                .await
                .expect("body");
            let parsed = serde_json::from_slice::<serde_json::Value>(&body).ok();
            assert_eq!(
                parsed
                    .as_ref()
                    .and_then(|v| v.pointer("/error/code"))
                    .and_then(serde_json::Value::as_i64),
                code,
                "{what}: {}",
                String::from_utf8_lossy(&body)
            );
        }
    }
}
