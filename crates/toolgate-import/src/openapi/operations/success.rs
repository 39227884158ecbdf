//! The 2xx answers an operation documents besides the one its contract is read from.
//!
//! Every 2xx reply is checked against the tool's one contract, whatever its status. An
//! operation that answers `200` with the resource and `204` with nothing (GitHub's
//! check-then-create endpoints), `201` with a new resource and `200` with another
//! shape, or `202` with a job where `200` holds the result, gets back a body the first
//! schema does not describe: read alone, that schema would call each such reply drift.
//! The contract is therefore every body the operation documents for a 2xx status
//! (`anyOf`), and `null` (how an empty body is checked) when one of them has none.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::schema::Dialect;
use super::{is_any, is_json};

/// What another 2xx answer of the operation holds.
#[derive(Debug, PartialEq)]
pub enum Other<'a> {
    /// No body: `204`/`205`, or a response that documents no content.
    Empty,
    /// A JSON body with this schema, found in this file.
    Body(&'a Path, &'a Value),
    /// A JSON body without a schema: any JSON value.
    AnyJson,
}

/// The other 2xx answers among `resolved` (status, file, response object) beside
/// `chosen`, with their status. A body that is not JSON is left out: the gateway never
/// reads one as the contract's, whatever the contract says.
pub fn others<'a>(
    dialect: Dialect,
    resolved: &'a [(String, PathBuf, Value)],
    chosen: &str,
) -> Vec<(&'a str, Other<'a>)> {
    resolved
        .iter()
        .filter(|(code, _, _)| code != chosen && is_2xx(code))
        .filter_map(|(code, file, resp)| Some((code.as_str(), answer(dialect, code, file, resp)?)))
        .collect()
}

/// `204 No Content` and `205 Reset Content`: RFC 9110 lets neither carry content,
/// whatever a description lists for them.
pub fn never_has_content(code: &str) -> bool {
    code == "204" || code == "205"
}

/// `200`…`299`, or the range `2XX`.
fn is_2xx(code: &str) -> bool {
    let b = code.as_bytes();
    b.len() == 3
        && b[0] == b'2'
        && (b[1..].iter().all(u8::is_ascii_digit) || b[1..].eq_ignore_ascii_case(b"xx"))
}

fn answer<'a>(dialect: Dialect, code: &str, file: &'a Path, resp: &'a Value) -> Option<Other<'a>> {
    if never_has_content(code) {
        return Some(Other::Empty);
    }
    if dialect == Dialect::Swagger2 {
        return Some(match resp.get("schema") {
            Some(schema) => Other::Body(file, schema),
            None => Other::Empty,
        });
    }
    let content = match resp.get("content").and_then(Value::as_object) {
        Some(c) if !c.is_empty() => c,
        _ => return Some(Other::Empty),
    };
    let (_, media) = content
        .iter()
        .find(|(k, _)| is_json(k) && !is_any(k))
        .or_else(|| content.iter().find(|(k, _)| is_json(k)))?;
    Some(match media.get("schema") {
        Some(schema) => Other::Body(file, schema),
        None => Other::AnyJson,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn statuses_and_ranges_are_told_from_other_keys() {
        for c in ["200", "201", "299", "2XX", "2xx"] {
            assert!(is_2xx(c), "{c}");
        }
        for c in ["default", "20", "2000", "3XX", "2X1", "", "२००"] {
            assert!(!is_2xx(c), "{c}");
        }
    }

    #[test]
    fn each_other_answer_is_read_for_its_body() {
        let f = PathBuf::from("api.yaml");
        let resolved = vec![
            (
                "200".to_string(),
                f.clone(),
                json!({"content": {"application/json": {"schema": {"type": "object"}}}}),
            ),
            (
                "201".to_string(),
                f.clone(),
                json!({"content": {"application/json": {"schema": {"type": "array"}}}}),
            ),
            (
                "202".to_string(),
                f.clone(),
                json!({"description": "Accepted"}),
            ),
            (
                "204".to_string(),
                f.clone(),
                json!({"content": {"application/json": {"schema": {"type": "object"}}}}),
            ),
            (
                "206".to_string(),
                f.clone(),
                json!({"content": {"application/json": {}}}),
            ),
            (
                "207".to_string(),
                f.clone(),
                json!({"content": {"text/csv": {"schema": {"type": "string"}}}}),
            ),
            (
                "404".to_string(),
                f.clone(),
                json!({"description": "Not found"}),
            ),
        ];
        let got = others(Dialect::Oas30, &resolved, "200");
        let array = json!({"type": "array"});
        assert_eq!(
            got,
            vec![
                ("201", Other::Body(&f, &array)),
                ("202", Other::Empty),
                ("204", Other::Empty),
                ("206", Other::AnyJson),
            ]
        );
    }
}
