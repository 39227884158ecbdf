//! Deprecation notices a successful GraphQL answer carries in its `extensions`.
//!
//! A GraphQL API cannot deprecate by status or header per field, so several say it in
//! the answer itself, next to `data`, on a 200:
//! - monday.com (API changelog, "Warning messages now included in API responses"):
//!   `"extensions": {"warnings": [{"message": "Replaced by
//!   Query.items_page_by_column_values since 2023-10", "path": […]}]}`;
//! - Visma Business NXT ("Deprecation warning"): `extensions.warnings[].message`;
//! - Apollo Server's deprecation plugins: `extensions.deprecations[]` of
//!   `{"field", "reason"}`, and graphql-ruby setups `deprecationWarnings[]` with
//!   `deprecationReason`.
//!
//! Each becomes a notice for the model, verbatim (capped); whether it names the called
//! resource or one field of the query is for the words to say, as for `Warning: 299`.
//! At most [`MAX_NOTICES`] notices of at most [`MAX_TEXT`] characters are taken.

use serde_json::Value;

/// The `extensions` members that hold notices.
const KEYS: [&str; 3] = ["warnings", "deprecations", "deprecationWarnings"];
/// The item members that hold the text, in order of preference.
const TEXTS: [&str; 3] = ["message", "reason", "deprecationReason"];
/// Notices taken from one answer.
const MAX_NOTICES: usize = 4;
/// Characters kept of one notice.
const MAX_TEXT: usize = 300;

/// The notices in one `extensions` object.
pub(super) fn notices(extensions: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for key in KEYS {
        let Some(Value::Array(items)) = extensions.get(key) else {
            continue;
        };
        for item in items.iter().take(MAX_NOTICES) {
            let text = match item {
                Value::String(s) => Some(s.as_str()),
                Value::Object(o) => TEXTS.iter().find_map(|k| o.get(*k)?.as_str()),
                _ => None,
            };
            let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
                continue;
            };
            let text: String = text
                .chars()
                .filter(|c| !c.is_control())
                .take(MAX_TEXT)
                .collect();
            if !out.contains(&text) {
                out.push(text);
            }
            if out.len() == MAX_NOTICES {
                return out;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notice_shapes() {
        let v: Value = serde_json::json!({
            "warnings": [
                {"message": "Replaced by Query.items_page_by_column_values since 2023-10",
                 "path": ["query", "items_by_column_values"]},
                {"path": ["no", "text"]},
                "plain text",
                {"message": "   "}
            ],
            "deprecations": [{"field": "title", "reason": "title is deprecated. Use name"}],
            "deprecationWarnings": [{"field": "humans.faith", "deprecationReason": "Lost"}]
        });
        assert_eq!(
            notices(&v),
            [
                "Replaced by Query.items_page_by_column_values since 2023-10",
                "plain text",
                "title is deprecated. Use name",
                "Lost"
            ]
        );
        assert!(notices(&serde_json::json!({"cost": {"requestedQueryCost": 1}})).is_empty());
        assert!(notices(&serde_json::json!({"warnings": "not a list"})).is_empty());
        let long = "x".repeat(1000);
        let many: Vec<Value> = (0..50)
            .map(|i| Value::String(format!("{i}{long}")))
            .collect();
        let got = notices(&serde_json::json!({ "warnings": many }));
        assert_eq!(got.len(), MAX_NOTICES);
        assert!(got.iter().all(|t| t.chars().count() == MAX_TEXT));
    }
}
