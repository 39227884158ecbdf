//! Counts said as a JSON object in one rate-limit header.
//!
//! Source: Trakt's API sends every answer `X-Ratelimit: {"name":"UNAUTHED_API_GET_LIMIT",
//! "period":300,"limit":1000,"remaining":0,"until":"2020-10-10T00:24:00Z"}`
//! (<https://trakt.docs.apiary.io/#introduction/rate-limiting>).
//!
//! The rule is the shape, not the vendor: a header named by a rate-limit word alone
//! (`X-Ratelimit`, `Rate-Limit`, `X-Quota`), whose value is a JSON object, holds the
//! parts a family of headers would hold one a field. Its scalar members are handed to
//! the headers' shape reader (`shape.rs`) as if each were its own field under a
//! rate-limit word (`rate-limit-remaining`, `rate-limit-until`), so a member is read by
//! the same words and units as a header. Counts only: an object of shares used
//! (Meta's `X-App-Usage`) is `usage_json.rs`'s, and a quota is kept only when it has a
//! limit or what is left. Work is bounded: values past [`MAX_VALUE`] bytes are not
//! parsed, and at most [`MAX_MEMBERS`] members of one object are read.

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::quota::Collector;
use crate::{Headers, num, shape};

/// Bytes of one value parsed.
const MAX_VALUE: usize = 2048;
/// Members read per object.
const MAX_MEMBERS: usize = 16;
/// The longest member name and string value handed on.
const MAX_TEXT: usize = 64;

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    for (name, value) in h.iter() {
        if !names_a_rate_limit_alone(name.trim()) {
            continue;
        }
        let value = value.trim_ascii();
        if value.first() != Some(&b'{') || value.len() > MAX_VALUE {
            continue;
        }
        let Ok(Value::Object(members)) = serde_json::from_slice::<Value>(value) else {
            continue;
        };
        for q in read_members(members.iter().take(MAX_MEMBERS), now) {
            if q.limit.is_some() || q.remaining.is_some() {
                out.quota(q);
            }
        }
    }
}

/// The quotas the headers' shape reader finds in JSON `members`, each read as a field
/// under a rate-limit word (`remaining` as `rate-limit-remaining`): names and string
/// values past [`MAX_TEXT`] bytes and values that are not scalars are left out. Shared
/// with the budgets error bodies state (`body/limit_object.rs`).
pub(crate) fn read_members<'a>(
    members: impl Iterator<Item = (&'a String, &'a Value)>,
    now: DateTime<Utc>,
) -> Vec<crate::Quota> {
    let fields: Vec<(String, Vec<u8>)> = members
        .filter(|(k, _)| k.len() <= MAX_TEXT)
        .filter_map(|(k, v)| Some((format!("rate-limit-{}", k.replace('_', "-")), scalar(v)?)))
        .collect();
    let pairs: Vec<(&str, &[u8])> = fields
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_slice()))
        .collect();
    let mut found = Collector::default();
    shape::read(&Headers::new(&pairs), now, &mut found);
    found.quotas
}

/// A member's value as a field's bytes. A count written for people (`"10,000"`,
/// `"1.5k"`, `1e3`) is handed on as its digits, so the shape reader counts it as it
/// counts a header's `10000`.
pub(crate) fn scalar(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Number(n) if n.is_f64() => Some(
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 1e15)
                .map_or_else(|| n.to_string(), |f| format!("{f:.0}"))
                .into_bytes(),
        ),
        Value::Number(n) => Some(n.to_string().into_bytes()),
        Value::String(s) if s.len() <= MAX_TEXT => Some(
            num::written_count(s)
                .map_or_else(|| s.clone(), |n| n.to_string())
                .into_bytes(),
        ),
        _ => None,
    }
}

/// Whether a header name is a rate-limit word and nothing else but an `x` prefix:
/// `X-Ratelimit`, `X-Rate-Limit`, `RateLimit`, `X-Quota`, `Throttle`.
fn names_a_rate_limit_alone(name: &str) -> bool {
    let lower = name.to_ascii_lowercase().replace('_', "-");
    let bare = lower.strip_prefix("x-").unwrap_or(&lower).replace('-', "");
    matches!(
        bare.as_str(),
        "ratelimit" | "ratelimits" | "quota" | "throttle" | "throttling"
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use chrono::TimeZone;

    use super::*;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap()
    }

    /// The quotas the whole reading finds in one field.
    fn read_one(name: &str, value: &str) -> Vec<crate::Quota> {
        let fields: [(&str, &[u8]); 1] = [(name, value.as_bytes())];
        crate::read(200, &Headers::new(&fields), now(), crate::Flavour::Auto).quota
    }

    #[test]
    fn an_object_of_counts_in_a_rate_limit_header_is_a_quota() {
        let q = read_one(
            "X-Ratelimit",
            r#"{"name":"AUTHED_API_POST_LIMIT","period":1,"limit":1,"remaining":0,"until":"2025-06-01T12:00:01Z"}"#,
        );
        assert_eq!(q.len(), 1);
        assert_eq!((q[0].limit, q[0].remaining), (Some(1), Some(0)));
        assert_eq!(q[0].window, Some(Duration::from_secs(1)));
        assert_eq!(q[0].reset_after, Some(Duration::from_secs(1)));
        // Another spelling of the same shape: snake case, an epoch reset.
        let q = read_one(
            "Rate-Limit",
            r#"{"max":500,"left":42,"reset_at":1748779260}"#,
        );
        assert_eq!((q[0].limit, q[0].remaining), (Some(500), Some(42)));
        assert_eq!(q[0].reset_after, Some(Duration::from_secs(60)));
    }

    #[test]
    fn other_headers_and_values_are_not_read() {
        // Named for something else, an object with no counts, not JSON, too long.
        assert!(read_one("X-Request-Info", r#"{"limit":10,"remaining":5}"#).is_empty());
        assert!(read_one("X-Ratelimit-Policy", r#"{"limit":10,"remaining":5}"#).is_empty());
        assert!(read_one("X-Ratelimit", r#"{"tier":"gold","region":"eu"}"#).is_empty());
        assert!(read_one("X-Ratelimit", "{not json").is_empty());
        let long = format!(
            r#"{{"limit":10,"remaining":5,"pad":"{}"}}"#,
            "x".repeat(3000)
        );
        assert!(read_one("X-Quota", &long).is_empty());
    }
}
