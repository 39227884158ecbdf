//! Headers that say whose account the calls are for. Some APIs require, on every
//! operation, a header naming the tenant, consumer, organisation or marketplace the
//! caller acts for (Xero's `Xero-Tenant-Id`, Apideck's `x-apideck-consumer-id`, eBay's
//! `X-EBAY-C-MARKETPLACE-ID`). Imported as written, the model would be asked for it on
//! every call: a value it cannot know, and which one agent could set to another
//! account's. Such a header is bound once, for the deployment, from an `${ENV}`
//! reference the operator sets, as `--bind` binds a parameter.

use std::collections::HashMap;

use serde_json::Value;

use super::credentials::{self, Declared};
use super::refs::Refs;

/// The fewest operations that make "every operation requires it" mean something.
const MIN_OPERATIONS: usize = 3;

/// Headers whose value belongs to one request, never to the deployment: the
/// representation (`Accept`, `Content-Type`), conditions and ranges, and ids or stamps
/// made for each call.
const PER_REQUEST: &[&str] = &[
    "accept",
    "accept-charset",
    "accept-encoding",
    "accept-language",
    "content-encoding",
    "content-language",
    "content-length",
    "content-md5",
    "content-type",
    "date",
    "if-match",
    "if-modified-since",
    "if-none-match",
    "if-unmodified-since",
    "range",
];

/// Words of a header name that make its value one call's own (a correlation or request
/// id, an idempotency key, a signature or stamp computed per request, a URL the call
/// is about).
const PER_CALL_WORDS: &[&str] = &[
    "correlation",
    "digest",
    "idempotency",
    "nonce",
    "request",
    "signature",
    "timestamp",
    "trace",
    "uri",
    "url",
];

/// One header every operation (of at least [`MIN_OPERATIONS`]) requires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountHeader {
    /// Every spelling the operations use (header names ignore case; a spec may not).
    pub spellings: Vec<String>,
    /// How many operations require it.
    pub operations: usize,
}

impl AccountHeader {
    /// The spelling most operations use.
    pub fn name(&self) -> &str {
        &self.spellings[0]
    }
}

/// Headers that at least nine in ten of `ops` require, with no fixed value, that are
/// neither credentials (read by [`credentials`]) nor a request's own.
pub fn find(refs: &mut Refs, ops: &[Declared<'_>]) -> Vec<AccountHeader> {
    if ops.len() < MIN_OPERATIONS {
        return Vec::new();
    }
    // Lower-cased name → (required count, spellings with their counts).
    let mut seen: HashMap<String, (usize, Vec<(String, usize)>)> = HashMap::new();
    for (op_file, op, shared) in ops {
        let own = op
            .get("parameters")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| refs.deref(op_file, p).ok().map(|(_, p)| p));
        let params: Vec<Value> = own
            .collect::<Vec<_>>()
            .into_iter()
            .chain(
                shared
                    .iter()
                    .filter_map(|(file, p)| refs.deref(file, p).ok().map(|(_, p)| p)),
            )
            .collect();
        let mut counted: Vec<String> = Vec::new();
        for p in &params {
            if p.get("in").and_then(Value::as_str) != Some("header")
                || p.get("required") != Some(&Value::Bool(true))
                || has_choices(p)
            {
                continue;
            }
            let Some(name) = p.get("name").and_then(Value::as_str) else {
                continue;
            };
            let key = name.to_ascii_lowercase();
            if counted.contains(&key) {
                continue;
            }
            counted.push(key.clone());
            let entry = seen.entry(key).or_default();
            entry.0 += 1;
            match entry.1.iter_mut().find(|(s, _)| s == name) {
                Some((_, n)) => *n += 1,
                None => entry.1.push((name.to_string(), 1)),
            }
        }
    }
    let total = ops.len();
    let mut out: Vec<AccountHeader> = seen
        .into_iter()
        .filter(|(key, (n, _))| *n * 10 >= total * 9 && says_who(key))
        .map(|(_, (operations, mut spellings))| {
            spellings.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            AccountHeader {
                spellings: spellings.into_iter().map(|(s, _)| s).collect(),
                operations,
            }
        })
        .collect();
    out.sort_by(|a, b| a.name().cmp(b.name()));
    out
}

/// Whether a required header's name can say whose account a call is for: not a
/// credential, a request signature, a standard per-request header or a per-call id.
fn says_who(lower: &str) -> bool {
    if credentials::named(lower).is_some()
        || credentials::signing_parameter(lower)
        || PER_REQUEST.contains(&lower)
        || !super::header::is_header_name(lower)
    {
        return false;
    }
    !lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| PER_CALL_WORDS.contains(&word))
}

/// Whether the parameter says what its value is (`enum`, `const`, `default`): a choice
/// made per call, or a value the importer already sends as written.
fn has_choices(p: &Value) -> bool {
    const SAYS: [&str; 3] = ["enum", "const", "default"];
    SAYS.iter().any(|k| p.get(*k).is_some())
        || p.get("schema")
            .is_some_and(|s| SAYS.iter().any(|k| s.get(*k).is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_naming_the_account_is_told_from_a_calls_own() {
        for who in [
            "xero-tenant-id",
            "x-apideck-consumer-id",
            "x-ebay-c-marketplace-id",
            "x-frankie-customerid",
            "wm_svc.name",
        ] {
            assert!(says_who(who), "{who}");
        }
        for own in [
            "accept",
            "content-type",
            "if-match",
            "x-request-id",
            "wm_qos.correlation_id",
            "x-apideck-downstream-url",
            "idempotency-key",
            "x-api-key",
            "authorization",
            "x-amz-date",
            "wm_sec.timestamp",
        ] {
            assert!(!says_who(own), "{own}");
        }
    }
}
