//! An answer that is nothing but counts against their limits: a usage report.
//!
//! DeepL's `GET /v2/usage` answers `{"character_count": 180118, "character_limit":
//! 1250000}` (<https://developers.deepl.com/api-reference/usage-and-quota>), with
//! `document_count`/`document_limit` beside it on some plans: each unit's count used of
//! its limit. The member names carry no rate-limit word, so the shape reader does not
//! see them; what makes them a budget is the answer itself, every member of which is a
//! `<unit>_count` paired with the `<unit>_limit` of the same unit. A list answer with a
//! `count` and a `limit` for its paging always carries its items too, and a lone count
//! or limit is data: neither is read.

use serde_json::{Map, Value};

use crate::Quota;

/// Members an answer may have to be read as a usage report.
const MAX_MEMBERS: usize = 16;
/// The longest answer parsed as one.
const MAX_BODY: usize = 2048;
/// What the name of a limit member ends with, as sent.
const LIMIT: &[u8] = b"_limit\"";

/// One quota per unit when the answer is a usage report; none otherwise.
pub(super) fn quotas(body: &[u8]) -> Vec<Quota> {
    // Most answers name no limit: a substring search spares parsing them.
    if body.len() > MAX_BODY || !body.windows(LIMIT.len()).any(|w| w == LIMIT) {
        return Vec::new();
    }
    let Ok(Value::Object(members)) = serde_json::from_slice::<Value>(body) else {
        return Vec::new();
    };
    if members.len() < 2 || members.len() > MAX_MEMBERS {
        return Vec::new();
    }
    report(&members).unwrap_or_default()
}

/// The quotas of `members` when each is a whole count paired with its unit's limit.
fn report(members: &Map<String, Value>) -> Option<Vec<Quota>> {
    let mut out = Vec::new();
    for (name, value) in members {
        value.as_u64()?;
        let (unit, is_limit) = unit_of(name)?;
        let pair = members.get(&format!(
            "{unit}_{}",
            if is_limit { "count" } else { "limit" }
        ));
        let pair = pair.and_then(Value::as_u64)?;
        if !is_limit {
            continue;
        }
        let (limit, used) = (value.as_u64()?, pair);
        out.push(Quota {
            limit: Some(limit),
            remaining: Some(limit.saturating_sub(used)),
            ..Quota::new(unit)
        });
    }
    (!out.is_empty()).then_some(out)
}

/// The unit a `<unit>_count` or `<unit>_limit` member counts, and whether it is the
/// limit; `None` for any other name (a bare `count` or `limit` names no unit).
fn unit_of(name: &str) -> Option<(&str, bool)> {
    let (unit, part) = name.rsplit_once('_')?;
    let is_limit = match part {
        "limit" => true,
        "count" => false,
        _ => return None,
    };
    (!unit.is_empty() && unit.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
        .then_some((unit, is_limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(body: &str) -> Vec<(String, Option<u64>, Option<u64>)> {
        quotas(body.as_bytes())
            .into_iter()
            .map(|q| (q.policy, q.limit, q.remaining))
            .collect()
    }

    #[test]
    fn counts_against_their_limits_are_a_budget_each() {
        // DeepL's usage answer.
        assert_eq!(
            read(r#"{"character_count": 180118, "character_limit": 1250000}"#),
            [("character".to_owned(), Some(1_250_000), Some(1_069_882))]
        );
        // Several units, one past its limit.
        let q = read(
            r#"{"document_count": 12, "document_limit": 10, "team_document_count": 3, "team_document_limit": 50}"#,
        );
        assert_eq!(
            q,
            [
                ("document".to_owned(), Some(10), Some(0)),
                ("team_document".to_owned(), Some(50), Some(47)),
            ]
        );
    }

    #[test]
    fn paging_counts_lone_members_and_other_answers_are_data() {
        for body in [
            // Paging beside the items, and a bare count and limit.
            r#"{"count": 2, "limit": 10, "items": [{"id": 1}, {"id": 2}]}"#,
            r#"{"count": 2, "limit": 10}"#,
            r#"{"page_count": 3, "page_limit": 50, "results": []}"#,
            // A count with no limit of its unit, or a limit of another.
            r#"{"character_count": 20}"#,
            r#"{"character_count": 20, "document_limit": 10}"#,
            // Not whole counts.
            r#"{"character_count": "20", "character_limit": "100"}"#,
            r#"{"error_count": -1, "error_limit": 5}"#,
            // Not an object.
            r#"[{"character_count": 1, "character_limit": 2}]"#,
            "",
        ] {
            assert!(read(body).is_empty(), "{body}");
        }
        // Bounded: a long answer is not parsed as a report.
        let long = format!(
            r#"{{"a_count": 1, "a_limit": 2, "pad": "{}"}}"#,
            "x".repeat(4096)
        );
        assert!(read(&long).is_empty());
    }
}
