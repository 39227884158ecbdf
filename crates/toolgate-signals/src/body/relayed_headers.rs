//! Rate-limit headers an error body repeats from the reply it passes on.
//!
//! A router in front of other APIs may answer a throttle with the upstream's own headers
//! inside its error: OpenRouter's 429 carries `"error": {"metadata": {"headers":
//! {"X-RateLimit-Limit": "50", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset":
//! "1748822400000"}}}` (quoted in the issues of the agents that call it). The rule is
//! the shape: an object named `headers` whose members are strings is a set of header
//! fields, read by the same readers as the reply's own ([`crate::read`]), and the
//! budget they state is the throttle's. Read only on a throttled reply, from a body that
//! parses whole within the prefix, at most [`MAX_DEPTH`] levels down, [`MAX_NODES`]
//! values in and [`MAX_FIELDS`] fields of the object.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::{Flavour, Headers, Quota};

const MAX_DEPTH: usize = 6;
const MAX_NODES: usize = 256;
/// Fields of the object read.
const MAX_FIELDS: usize = 32;
/// The longest field name and value read.
const MAX_TEXT: usize = 256;

/// The budgets the relayed header fields state.
pub(super) fn quotas(prefix: &[u8], now: DateTime<Utc>) -> Vec<Quota> {
    let Ok(root) = serde_json::from_slice::<Value>(prefix) else {
        return Vec::new();
    };
    let mut budget = MAX_NODES;
    let Some(fields) = find(&root, 0, &mut budget) else {
        return Vec::new();
    };
    let pairs: Vec<(&str, &[u8])> = fields
        .iter()
        .take(MAX_FIELDS)
        .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?.as_bytes())))
        .filter(|(k, v)| k.len() <= MAX_TEXT && v.len() <= MAX_TEXT)
        .collect();
    // The relayed status is not known; what the fields count is read as on a throttle.
    crate::read(429, &Headers::new(&pairs), now, Flavour::Auto).quota
}

/// The first object named `headers` (depth first) whose members are all strings.
fn find<'a>(v: &'a Value, depth: usize, budget: &mut usize) -> Option<&'a Map<String, Value>> {
    if *budget == 0 || depth > MAX_DEPTH {
        return None;
    }
    *budget -= 1;
    match v {
        Value::Object(map) => {
            if let Some(Value::Object(fields)) = map.get("headers")
                && !fields.is_empty()
                && fields.values().all(Value::is_string)
            {
                return Some(fields);
            }
            map.values()
                .take(MAX_FIELDS)
                .find_map(|c| find(c, depth + 1, budget))
        }
        Value::Array(items) => items
            .iter()
            .take(MAX_FIELDS)
            .find_map(|c| find(c, depth + 1, budget)),
        _ => None,
    }
}
