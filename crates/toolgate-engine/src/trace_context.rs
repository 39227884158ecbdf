//! W3C trace context: read from a call's `_meta` (`traceparent`, `tracestate`), checked
//! by the W3C grammar, and written to what goes upstream. Used by the upstream kinds to
//! propagate a caller's trace, and by the telemetry module to parent a call's span.

use opentelemetry::trace::{SpanContext, SpanId, TraceFlags, TraceId, TraceState};
use serde_json::{Map, Value};

/// W3C: a `tracestate` longer than 512 characters may be dropped whole.
pub(crate) const MAX_TRACESTATE: usize = 512;

/// The caller's span context from a request's `_meta` (`traceparent`, `tracestate`),
/// when the `traceparent` is valid. A `tracestate` that is not valid is dropped, the
/// parent kept.
pub fn caller_context(meta: &Map<String, Value>) -> Option<SpanContext> {
    let parent = meta.get("traceparent")?.as_str()?;
    let (trace_id, span_id, flags) = parse_traceparent(parent)?;
    let state = meta
        .get("tracestate")
        .and_then(Value::as_str)
        .and_then(parse_tracestate)
        .unwrap_or_default();
    Some(SpanContext::new(trace_id, span_id, flags, true, state))
}

/// The trace context to send upstream from a call's `_meta`: `traceparent` (and
/// `tracestate`) in canonical form, when the `traceparent` is valid; nothing otherwise,
/// so a hostile value never reaches a header or a server.
pub fn propagated(meta: Option<&Map<String, Value>>) -> Vec<(&'static str, String)> {
    let Some(context) = meta.and_then(caller_context) else {
        return Vec::new();
    };
    let mut out = vec![("traceparent", traceparent(&context))];
    let state = context.trace_state().header();
    if !state.is_empty() {
        out.push(("tracestate", state));
    }
    out
}

/// A W3C `traceparent`: `{version}-{trace-id}-{parent-id}-{flags}`, lowercase hex. A
/// version other than `00` is read by its first four fields (W3C: a later version may
/// append fields after a `-`); `ff`, all-zero ids and anything malformed are `None`.
pub fn parse_traceparent(text: &str) -> Option<(TraceId, SpanId, TraceFlags)> {
    let text = text.trim_matches([' ', '\t']);
    if !text.is_ascii() || text.len() < 55 {
        return None;
    }
    let version = text.get(0..2)?;
    if !is_lower_hex(version) || version == "ff" {
        return None;
    }
    if version == "00" && text.len() != 55 {
        return None;
    }
    if text.len() > 55 && text.as_bytes()[55] != b'-' {
        return None;
    }
    let bytes = text.as_bytes();
    if bytes[2] != b'-' || bytes[35] != b'-' || bytes[52] != b'-' {
        return None;
    }
    let (trace, span, flags) = (text.get(3..35)?, text.get(36..52)?, text.get(53..55)?);
    if !is_lower_hex(trace) || !is_lower_hex(span) || !is_lower_hex(flags) {
        return None;
    }
    let trace_id = TraceId::from_hex(trace).ok()?;
    let span_id = SpanId::from_hex(span).ok()?;
    let flags = u8::from_str_radix(flags, 16).ok()?;
    if trace_id == TraceId::INVALID || span_id == SpanId::INVALID {
        return None;
    }
    // Only the sampled bit is defined for propagation; unknown bits are not passed on.
    Some((
        trace_id,
        span_id,
        TraceFlags::new(flags) & TraceFlags::SAMPLED,
    ))
}

/// A W3C `tracestate`, when valid and at most 512 characters. Checked here by the W3C
/// grammar, not only by the SDK's parser, which lets control characters through in
/// values (a CR LF would then reach an upstream's header or `_meta`).
pub(crate) fn parse_tracestate(text: &str) -> Option<TraceState> {
    if text.len() > MAX_TRACESTATE || !text.is_ascii() {
        return None;
    }
    let members: Vec<&str> = text
        .split(',')
        .map(|m| m.trim_matches([' ', '\t']))
        .filter(|m| !m.is_empty())
        .collect();
    if members.len() > 32 || !members.iter().all(|m| valid_member(m)) {
        return None;
    }
    members.join(",").parse::<TraceState>().ok()
}

/// One `key=value` of a `tracestate`.
fn valid_member(member: &str) -> bool {
    let Some((key, value)) = member.split_once('=') else {
        return false;
    };
    let key_char = |b: u8| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'*' | b'/');
    let key_ok = match key.split_once('@') {
        None => {
            key.len() <= 256
                && key.as_bytes().first().is_some_and(u8::is_ascii_lowercase)
                && key.bytes().all(key_char)
        }
        Some((tenant, system)) => {
            (1..=241).contains(&tenant.len())
                && tenant.bytes().all(key_char)
                && tenant
                    .as_bytes()
                    .first()
                    .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                && (1..=14).contains(&system.len())
                && system
                    .as_bytes()
                    .first()
                    .is_some_and(u8::is_ascii_lowercase)
                && system.bytes().all(key_char)
        }
    };
    key_ok
        && (1..=256).contains(&value.len())
        && value
            .bytes()
            .all(|b| (0x20..=0x7e).contains(&b) && b != b',' && b != b'=')
        && !value.ends_with(' ')
}

fn is_lower_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The `traceparent` of a span context.
pub fn traceparent(context: &SpanContext) -> String {
    format!(
        "00-{}-{}-{:02x}",
        context.trace_id(),
        context.span_id(),
        context.trace_flags().to_u8()
    )
}
