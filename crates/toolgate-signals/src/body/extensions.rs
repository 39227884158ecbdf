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
//! - graphql-java and Spring for GraphQL setups: `extensions.deprecations[]` of
//!   `{"name", "path", "reason"}`, whose reason need not say "deprecated" ("Use
//!   `identifiers` instead").
//!
//! Each becomes a notice for the model, verbatim (capped); whether it names the called
//! resource or one field of the query is for the words to say, as for `Warning: 299`.
//! An item of a member named for deprecations is one whatever its words: when they do
//! not say so, the notice says it of the item's subject (its `path`, `field` or `name`),
//! "`book.isbn` is deprecated: Use `identifiers` instead", so the model learns which
//! field, and the notice reads as the deprecation it is.
//! At most [`MAX_NOTICES`] notices of at most [`MAX_TEXT`] characters are taken.

use serde_json::Value;

/// The `extensions` members that hold notices.
const KEYS: [&str; 3] = ["warnings", "deprecations", "deprecationWarnings"];
/// The item members that hold the text, in order of preference.
const TEXTS: [&str; 3] = ["message", "reason", "deprecationReason"];
/// The item members that name what is deprecated, in order of preference.
const SUBJECTS: [&str; 3] = ["path", "field", "name"];
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
        // `warnings` may hold anything; the other members list deprecations only.
        let deprecations = key != "warnings";
        for item in items.iter().take(MAX_NOTICES) {
            let text = match item {
                Value::String(s) => Some(s.as_str()),
                Value::Object(o) => TEXTS.iter().find_map(|k| o.get(*k)?.as_str()),
                _ => None,
            };
            let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
                continue;
            };
            let said = deprecations && !text.to_ascii_lowercase().contains("deprecat");
            let text: String = match item.as_object().and_then(subject) {
                Some(subject) if said => format!("`{subject}` is deprecated: {text}"),
                _ if said => format!("Deprecated: {text}"),
                _ => text.to_owned(),
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

/// What an item says is deprecated: its `path` (a string, or a list of names joined by
/// `.`), `field` or `name`, when short enough to quote.
fn subject(item: &serde_json::Map<String, Value>) -> Option<String> {
    /// The longest subject quoted; a longer one is not a field's name.
    const MAX_SUBJECT: usize = 120;
    SUBJECTS.iter().find_map(|k| {
        let s = match item.get(*k)? {
            Value::String(s) => s.trim().to_owned(),
            Value::Array(parts) => parts
                .iter()
                .take(16)
                .map(|p| match p {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join("."),
            _ => return None,
        };
        (!s.is_empty() && s.len() <= MAX_SUBJECT && !s.contains('`')).then_some(s)
    })
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
                "`humans.faith` is deprecated: Lost"
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

    #[test]
    fn a_deprecation_whose_reason_does_not_say_so_is_said_of_its_subject() {
        // graphql-java's `{name, path, reason}`, and a path given as a list.
        let v = serde_json::json!({"deprecations": [
            {"name": "isbn", "path": "book.isbn", "reason": "Use `identifiers` instead"},
            {"path": ["shop", "legacyId"], "reason": "Will be removed in 2026-04"},
            {"reason": "Use orderBy"}
        ]});
        let got = notices(&v);
        assert_eq!(
            got,
            [
                "`book.isbn` is deprecated: Use `identifiers` instead",
                "`shop.legacyId` is deprecated: Will be removed in 2026-04",
                "Deprecated: Use orderBy"
            ]
        );
        assert!(
            got.iter()
                .all(|t| crate::warning::body_notice(t).deprecation)
        );
        // A reason that says it already is kept as it is.
        let v = serde_json::json!({"deprecationWarnings": [
            {"field": "a.b", "deprecationReason": "Deprecated since v3; use c"}
        ]});
        assert_eq!(notices(&v), ["Deprecated since v3; use c"]);
    }

    #[test]
    fn a_general_warning_is_not_made_a_deprecation() {
        // `warnings` holds any advice: its words alone decide.
        let v = serde_json::json!({"warnings": [
            {"message": "Query cost is high", "path": ["items"]}
        ]});
        let got = notices(&v);
        assert_eq!(got, ["Query cost is high"]);
        assert!(!crate::warning::body_notice(&got[0]).deprecation);
        // A subject too long or oddly quoted is left out, not the notice.
        let long = "a".repeat(500);
        let v = serde_json::json!({"deprecations": [{"path": long, "reason": "Use x"}]});
        assert_eq!(notices(&v), ["Deprecated: Use x"]);
    }
}
