//! What an upstream MCP server's answer to `tools/call` means.
//!
//! - A transport failure or a non-2xx HTTP answer is read exactly as for an HTTP tool
//!   (connect, timeout, 5xx, 429 and 503 with `Retry-After`).
//! - A JSON-RPC error is classified by its code: the request's fault (`-32600`,
//!   `-32601`, `-32602`, `-32700`, `-32002` resource not found, `-32042` URL elicitation
//!   required) is `client_error`; `-32001` (the TypeScript SDK's request timeout) is
//!   `timeout`; the proposed `-32023` RateLimited, and the `429` some servers send, are
//!   `rate_limited` with the wait from `data.retryAfterSeconds`; the rest, `-32603`
//!   included, is `server_error`.
//! - A result with `isError: true` is the tool's own failure (`tool_error`): passed to
//!   the model unchanged, never retried.
//! - Every result is first checked for its shape (nesting, content blocks, a
//!   `structuredContent` that is an object, no object naming a member twice), and text lines that would pass for toolgate's notes are
//!   marked (see `result_check`).
//! - Any other result is checked: when the tool has an output schema (the pinned
//!   `outputSchema` or a contract override), its `structuredContent` must be there and
//!   match it, else it is `contract_drift` with the rename-aware diff.

use std::time::Duration;
use toolgate_mcp_client::codes;

use serde::Deserialize;
use serde_json::value::RawValue;
use toolgate_contract::BodyError;
use toolgate_resilience::ErrorClass;
use toolgate_signals::Signals;

use super::RpcError;
use crate::explain::{self, Detail};
use crate::upstream::{AttemptResult, SendError, UpstreamResponse};
use toolgate_config::ToolSpec;

/// Reads one attempt's answer.
pub fn interpret(
    spec: &ToolSpec,
    sent: Result<UpstreamResponse, SendError>,
    signals: Option<&Signals>,
    past_sunset: bool,
) -> AttemptResult {
    let response = match sent {
        Ok(r) if (200..300).contains(&r.status) => r,
        other => return crate::upstream::interpret(spec, other, signals, past_sunset),
    };
    // A JSON-RPC error came beside an empty body; a result is the body, as the server
    // wrote it: read here once, for the members interpretation needs, and passed on
    // as the same bytes.
    if let Some(e) = response.rpc_error {
        return rpc_error(spec, *e, signals);
    }
    let Ok(call) = serde_json::from_slice::<CallResult<'_>>(&response.body) else {
        return protocol("the result is not a tools/call result");
    };
    if let Some(failed) = misshapen(spec, &response.body, &call) {
        return failed;
    }
    // Every result, a tool error's too, is checked for its nesting and content blocks,
    // and has lines that would pass for toolgate's notes marked as the server's.
    let body = match super::result_check::checked(
        &response.body,
        call.content,
        call.structured,
        call.meta,
        Some(&spec.dependency.base_url),
    ) {
        Ok(body) => body,
        Err(detail) => return protocol(&detail),
    };
    let body = without_toolgate_keys(spec, body, call.meta);
    if call.is_error == Some(true) {
        return tool_error(spec, body, call.content);
    }
    if signals.is_some_and(|s| s.rate_limited) {
        // Throttled in the headers of a successful answer: believe the throttle.
        return AttemptResult::Failed {
            class: ErrorClass::RateLimited,
            hint: signals.and_then(|s| s.retry_after),
            detail: Detail::Status {
                status: response.status,
                excerpt: String::new(),
            },
        };
    }
    if spec.contract.advertised && !crate::learned::warns_on_declared(spec) {
        let Some(structured) = call.structured else {
            return AttemptResult::Failed {
                class: ErrorClass::ContractDrift,
                hint: None,
                detail: Detail::NoStructuredContent,
            };
        };
        match crate::upstream::number_range::check(
            &spec.contract.response,
            structured.get().as_bytes(),
        ) {
            Ok(()) => {}
            Err(BodyError::Drift(drift)) => {
                return AttemptResult::Failed {
                    class: ErrorClass::ContractDrift,
                    hint: None,
                    detail: Detail::Drift(drift),
                };
            }
            // The answer parsed as JSON a moment ago, so its part parses too.
            Err(BodyError::NotJson(e)) => return protocol(&e.to_string()),
        }
    }
    AttemptResult::Success(body.into())
}

/// The members of a `tools/call` result that interpretation reads.
#[derive(Deserialize)]
struct CallResult<'a> {
    #[serde(rename = "isError", default)]
    is_error: Option<bool>,
    #[serde(rename = "structuredContent", borrow, default)]
    structured: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    // Read with the rest, under whatever spelling (`"\u005fmeta"` too): its keys
    // alone say whether the server wrote in toolgate's namespace.
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<&'a RawValue>,
}

/// The failure of a result whose members are not of the types a `tools/call` result
/// has, or that names a member twice; `None` when its shape is sound.
fn misshapen(spec: &ToolSpec, body: &[u8], call: &CallResult<'_>) -> Option<AttemptResult> {
    // `content` is a list of blocks (or absent, or null).
    if let Some(c) = call.content
        && c.get() != "null"
        && !c.get().starts_with('[')
    {
        return Some(protocol("the result is not a tools/call result"));
    }
    // `structuredContent` is a JSON object (or absent): a string or a list there fails
    // the clients that read it (the SDKs check the result's types, and drop the whole
    // result) and would be read by none as the tool's words, whatever it says.
    if let Some(s) = call.structured
        && s.get() != "null"
        && !s.get().starts_with('{')
    {
        return Some(protocol(
            "the result's `structuredContent` is not a JSON object",
        ));
    }
    // An object naming a member twice reads one way to the contract check and maybe
    // another to the client, which gets the bytes as written: no reading is safe.
    // Like a contract break, it is the reply's own shape: retrying will not mend it.
    let position = crate::upstream::duplicate_names::repeated_member(body)?;
    Some(AttemptResult::Failed {
        class: ErrorClass::ContractDrift,
        hint: None,
        detail: Detail::RepeatedMember {
            position,
            excerpt: explain::excerpt(body, &explain::Secrets::of(spec)),
        },
    })
}

/// A result with `isError: true`: the tool's own failure, its first text as the
/// excerpt and the whole result passed on without the server's credentials.
fn tool_error(spec: &ToolSpec, body: bytes::Bytes, content: Option<&RawValue>) -> AttemptResult {
    let secrets = explain::Secrets::of(spec);
    let blocks: Vec<serde_json::Value> = content
        .and_then(|c| serde_json::from_str(c.get()).ok())
        .unwrap_or_default();
    let text = blocks
        .iter()
        .find_map(|c| c.get("text").and_then(serde_json::Value::as_str))
        .unwrap_or_default();
    let excerpt = explain::upstream_text(text, &secrets, 300);
    let result = std::str::from_utf8(&body).unwrap_or_default();
    AttemptResult::Failed {
        class: ErrorClass::ToolError,
        hint: None,
        detail: Detail::ToolError {
            result: scrubbed(result, body.clone(), &secrets),
            excerpt,
        },
    }
}

/// A tool error's result with the server's own credentials (its `headers` or `env`
/// values) replaced by `[redacted]` in every string: a server that echoes the token it
/// was sent ("invalid token sk-…") must not hand it to the model. `bytes` is returned
/// as it is when no configured secret occurs in the text.
fn scrubbed(text: &str, bytes: bytes::Bytes, secrets: &explain::Secrets) -> bytes::Bytes {
    if secrets.scrub(text) == text {
        // Not even JSON-escaped forms can hold a secret the raw text does not, except
        // `\/` and `\uXXXX` escapes; those are checked on the parsed strings below.
        if !text.contains('\\') {
            return bytes;
        }
    }
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(text) else {
        return bytes;
    };
    fn walk(v: &mut serde_json::Value, secrets: &explain::Secrets) {
        match v {
            serde_json::Value::String(s) => {
                let clean = secrets.scrub(s);
                if clean != *s {
                    *s = clean;
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|i| walk(i, secrets)),
            serde_json::Value::Object(m) => m.values_mut().for_each(|i| walk(i, secrets)),
            _ => {}
        }
    }
    walk(&mut value, secrets);
    serde_json::to_vec(&value).map_or(bytes, bytes::Bytes::from)
}

/// The result without `_meta` keys in toolgate's namespace (see [`super::foreign_meta`]).
/// Only the keys of the top-level `_meta`, already found by the one parse of the
/// result, are read to decide; the result is rewritten only when one is toolgate's.
fn without_toolgate_keys(
    spec: &ToolSpec,
    body: bytes::Bytes,
    meta: Option<&RawValue>,
) -> bytes::Bytes {
    if !meta.is_some_and(super::foreign_meta::names_toolgate_key) {
        return body;
    }
    match super::foreign_meta::without_toolgate_keys(&body) {
        Some(cleaned) => {
            tracing::warn!(tool = %spec.name, "the MCP server's result carries _meta keys in toolgate's namespace (dev.toolgate/); they were removed so agents do not read them as toolgate's");
            bytes::Bytes::from(cleaned)
        }
        None => body,
    }
}

fn protocol(detail: &str) -> AttemptResult {
    AttemptResult::Failed {
        class: ErrorClass::ServerError,
        hint: None,
        detail: Detail::Protocol(detail.to_string()),
    }
}

/// A JSON-RPC error's class and wait.
fn rpc_error(spec: &ToolSpec, error: RpcError, signals: Option<&Signals>) -> AttemptResult {
    let class = match error.code {
        codes::PARSE_ERROR
        | codes::INVALID_REQUEST
        | codes::METHOD_NOT_FOUND
        | codes::INVALID_PARAMS
        | codes::RESOURCE_NOT_FOUND
        | codes::URL_ELICITATION_REQUIRED
        | codes::MISSING_REQUIRED_CLIENT_CAPABILITY => ErrorClass::ClientError,
        codes::REQUEST_TIMEOUT => ErrorClass::Timeout,
        -32023 | 429 => ErrorClass::RateLimited,
        _ => ErrorClass::ServerError,
    };
    let hint = retry_after(&error).or_else(|| signals.and_then(|s| s.retry_after));
    // A refusal that names a wait is a throttle: retrying after the wait helps, so it
    // is never told as "will not help".
    let class = if class == ErrorClass::ClientError && hint.is_some() {
        ErrorClass::RateLimited
    } else {
        class
    };
    let message = explain::upstream_text(&error.message, &explain::Secrets::of(spec), 300);
    AttemptResult::Failed {
        class,
        hint: if class == ErrorClass::RateLimited {
            hint
        } else {
            None
        },
        detail: Detail::Rpc {
            code: error.code,
            message,
        },
    }
}

/// `data.retryAfterSeconds` (or `retry_after_seconds`, `retryAfter`, `retry_after`),
/// seconds as a number; at most a day, so a hostile value cannot park calls forever.
fn retry_after(error: &RpcError) -> Option<Duration> {
    let data = error.data.as_ref()?;
    [
        "retryAfterSeconds",
        "retry_after_seconds",
        "retryAfter",
        "retry_after",
    ]
    .iter()
    .find_map(|k| data.get(*k).and_then(serde_json::Value::as_f64))
    .filter(|s| s.is_finite() && *s >= 0.0)
    .map(|s| Duration::from_secs_f64(s.min(86_400.0)))
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod spelling_tests;
