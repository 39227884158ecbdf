//! IETF `draft-ietf-httpapi-ratelimit-headers`, every generation.
//!
//! Source: <https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/>
//! - drafts 00–06: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (delta
//!   seconds; GitLab and others send epoch seconds, hence [`crate::reset::parse`]), with
//!   the window in `RateLimit-Policy: 100;w=60` (or, in early drafts, a quota-policy list
//!   after the limit: `RateLimit-Limit: 100, 100;w=60`).
//! - draft 07: one dictionary, `RateLimit: limit=100, remaining=50, reset=30`.
//! - draft 08 onward: named policies in structured fields (RFC 9651),
//!   `RateLimit-Policy: "default";q=100;w=60` and `RateLimit: "default";r=50;t=30`, several
//!   per field (draft 08 used tokens instead of strings; both are accepted).
//!
//! Atlassian sends the draft-08+ shape as `Beta-RateLimit` / `Beta-RateLimit-Policy`; see
//! [`read_structured`]. Unparseable fields are ignored.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sfv::{BareItem, Dictionary, List, ListEntry, Parameters, Parser};

use crate::quota::Collector;
use crate::{Headers, Quota, num, reset};

/// One member of a `RateLimit-Policy` list: unnamed (`100;w=60`) or named (`"x";q=100`).
#[derive(Debug, PartialEq)]
struct Policy {
    name: Option<String>,
    quota: Option<u64>,
    window: Option<Duration>,
}

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    let policies = read_structured(h, "ratelimit", "ratelimit-policy", out);
    read_split_fields(h, now, &policies, out);
}

/// Reads `RateLimit`/`RateLimit-Policy` (or a vendor-prefixed pair) in the draft-07
/// dictionary or draft-08+ list shape. Returns the parsed policies for the older fields.
fn read_structured(
    h: &Headers<'_>,
    field: &str,
    policy_field: &str,
    out: &mut Collector,
) -> Vec<Policy> {
    let policies = h
        .joined(policy_field)
        .map(|v| parse_policies(&v))
        .unwrap_or_default();
    let mut seen: Vec<&str> = Vec::new();
    if let Some(v) = h.joined(field) {
        if let Some(q) = parse_draft07(&v, &policies) {
            out.quota(q);
        } else {
            for q in parse_named(&v, &policies) {
                if let Some(p) = policies
                    .iter()
                    .find(|p| p.name.as_deref() == Some(&q.policy))
                {
                    seen.extend(p.name.as_deref());
                }
                out.quota(q);
            }
        }
    }
    // Named policies with no current state still tell the model the limit and window.
    for p in &policies {
        if let Some(name) = p.name.as_deref().filter(|n| !seen.contains(n)) {
            out.quota(Quota {
                limit: p.quota,
                window: p.window,
                ..Quota::new(name)
            });
        }
    }
    policies
}

/// Atlassian's beta fields share the draft-08+ grammar.
pub(crate) fn read_beta(h: &Headers<'_>, out: &mut Collector) {
    read_structured(h, "beta-ratelimit", "beta-ratelimit-policy", out);
}

/// Drafts 00–06: three (or four) separate fields.
fn read_split_fields(
    h: &Headers<'_>,
    now: DateTime<Utc>,
    policies: &[Policy],
    out: &mut Collector,
) {
    let first = |name: &str| -> Option<String> {
        let v = h.get_str(name)?;
        Some(v.split([',', ';']).next().unwrap_or("").trim().to_owned())
    };
    let limit = first("ratelimit-limit").and_then(|v| num::limit(&v));
    let remaining = first("ratelimit-remaining").and_then(|v| num::count(&v));
    let reset_after = first("ratelimit-reset").and_then(|v| reset::parse_str(&v, now));
    // Early drafts list quota policies inside RateLimit-Limit itself.
    let inline = h
        .joined("ratelimit-limit")
        .map(|v| parse_policies(&v))
        .unwrap_or_default();
    let window = unnamed_window(policies, limit).or_else(|| unnamed_window(&inline, limit));
    out.quota(Quota {
        limit,
        remaining,
        reset_after,
        window: if limit.is_some() || remaining.is_some() {
            window
        } else {
            None
        },
        ..Quota::new("default")
    });
}

/// The window of the unnamed policy matching `limit`, else of the first unnamed one.
fn unnamed_window(policies: &[Policy], limit: Option<u64>) -> Option<Duration> {
    let unnamed = || policies.iter().filter(|p| p.name.is_none());
    unnamed()
        .find(|p| p.window.is_some() && limit.is_some() && p.quota == limit)
        .or_else(|| unnamed().find(|p| p.window.is_some()))
        .and_then(|p| p.window)
}

fn parse_policies(v: &str) -> Vec<Policy> {
    let Ok(list) = Parser::new(v).parse::<List>() else {
        return lenient_policies(v);
    };
    list.iter()
        .filter_map(|entry| match entry {
            ListEntry::Item(item) => Some(item),
            ListEntry::InnerList(_) => None,
        })
        .filter_map(|item| {
            let (name, quota) = match &item.bare_item {
                BareItem::Integer(i) => (None, non_negative(i64::from(*i))),
                BareItem::String(s) => (Some(s.as_str().to_owned()), param_u64(&item.params, "q")),
                BareItem::Token(t) => (Some(t.as_str().to_owned()), param_u64(&item.params, "q")),
                _ => return None,
            };
            let window = param_u64(&item.params, "w")
                .or_else(|| param_u64(&item.params, "window"))
                .map(|w| Duration::from_secs(w).min(reset::MAX_RESET));
            Some(Policy {
                name,
                quota,
                window,
            })
        })
        .collect()
}

/// Policies most of the way to the structured form, which its parser refuses: Hugging
/// Face's Hub names the kind of window before the policy's name, `"fixed window";"api";
/// q=500;w=300` (<https://huggingface.co/docs/hub/rate-limits>), a bare string where a
/// parameter belongs. Each comma's item is read by its `;` parts: the last quoted one
/// names the policy, `q` and `w` are its quota and window. At most [`MAX_LENIENT`]
/// items are read.
fn lenient_policies(v: &str) -> Vec<Policy> {
    v.split(',')
        .take(MAX_LENIENT)
        .filter_map(|item| {
            let mut name = None;
            let (mut quota, mut window) = (None, None);
            for part in item.split(';').map(str::trim) {
                if let Some(quoted) = part.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
                    name = Some(quoted.to_owned());
                } else if let Some((k, v)) = part.split_once('=') {
                    let n = v.trim().parse::<u64>().ok();
                    match k.trim() {
                        "q" => quota = n,
                        "w" => window = n.map(|w| Duration::from_secs(w).min(reset::MAX_RESET)),
                        _ => {}
                    }
                }
            }
            name.map(|name| Policy {
                name: Some(name),
                quota,
                window,
            })
        })
        .collect()
}

/// Items of a policy field read when it is not a structured field.
const MAX_LENIENT: usize = 16;

/// Draft 07: `RateLimit: limit=100, remaining=50, reset=30`.
fn parse_draft07(v: &str, policies: &[Policy]) -> Option<Quota> {
    let dict = Parser::new(v).parse::<Dictionary>().ok()?;
    let int = |key: &str| match dict.get(key) {
        Some(ListEntry::Item(item)) => item.bare_item.as_integer().map(i64::from),
        _ => None,
    };
    let (limit, remaining, reset) = (int("limit"), int("remaining"), int("reset"));
    if limit.is_none() && remaining.is_none() && reset.is_none() {
        return None;
    }
    let limit = limit.and_then(non_negative);
    Some(Quota {
        limit,
        remaining: remaining.and_then(non_negative),
        reset_after: reset.map(reset::from_delta_secs),
        window: unnamed_window(policies, limit),
        ..Quota::new("default")
    })
}

/// Draft 08+: `RateLimit: "default";r=50;t=30, "daily";r=900;t=3600`.
fn parse_named(v: &str, policies: &[Policy]) -> Vec<Quota> {
    let Ok(list) = Parser::new(v).parse::<List>() else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|entry| match entry {
            ListEntry::Item(item) => Some(item),
            ListEntry::InnerList(_) => None,
        })
        .filter_map(|item| {
            let name = match &item.bare_item {
                BareItem::String(s) => s.as_str().to_owned(),
                BareItem::Token(t) => t.as_str().to_owned(),
                _ => return None,
            };
            let policy = policies.iter().find(|p| p.name.as_deref() == Some(&name));
            Some(Quota {
                limit: policy.and_then(|p| p.quota),
                remaining: param_i64(&item.params, "r").and_then(non_negative),
                reset_after: param_i64(&item.params, "t").map(reset::from_delta_secs),
                window: policy.and_then(|p| p.window),
                policy: name,
            })
        })
        .collect()
}

fn param_i64(params: &Parameters, key: &str) -> Option<i64> {
    params.get(key)?.as_integer().map(i64::from)
}

fn param_u64(params: &Parameters, key: &str) -> Option<u64> {
    param_i64(params, key).and_then(non_negative)
}

fn non_negative(i: i64) -> Option<u64> {
    u64::try_from(i).ok()
}

#[cfg(test)]
mod tests;
