//! What a tool's annotations say it may do, read as a client that auto-approves by them
//! reads them.
//!
//! MCP's behaviour hints default to the permissive side (`readOnlyHint` false,
//! `destructiveHint` true, `idempotentHint` false, `openWorldHint` true), and a client
//! that approves read-only tools without asking trusts them. A pinned tool whose live
//! hints claim *less* than its pin (read-only now) is served by its pin, the more
//! cautious claim; one whose live hints claim *more* (it now writes, destroys, repeats
//! side effects or reaches the outside world) would be served with a pin that
//! understates what a call does. That change widens the tool, and is named so.
//!
//! A hint that is not a boolean reads as its default: a client cannot act on
//! `"readOnlyHint": "yes"`, and the default is the permissive reading.

use serde_json::Value;

/// What a tool may do by its hints, each `true` when it may.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Allowed {
    writes: bool,
    destroys: bool,
    repeats_side_effects: bool,
    reaches_outside: bool,
}

fn hint(annotations: Option<&Value>, name: &str, default: bool) -> bool {
    annotations
        .and_then(|a| a.get(name))
        .and_then(Value::as_bool)
        .unwrap_or(default)
}

fn allowed(annotations: Option<&Value>) -> Allowed {
    let read_only = hint(annotations, "readOnlyHint", false);
    // `destructiveHint` and `idempotentHint` mean something only for a tool that writes.
    Allowed {
        writes: !read_only,
        destroys: !read_only && hint(annotations, "destructiveHint", true),
        repeats_side_effects: !read_only && !hint(annotations, "idempotentHint", false),
        reaches_outside: hint(annotations, "openWorldHint", true),
    }
}

/// What the `after` hints allow that the `before` ones did not, in people's words
/// ("modify its environment", "destroy data", …); empty when they allow nothing more.
pub(crate) fn widened(before: Option<&Value>, after: Option<&Value>) -> Vec<&'static str> {
    let (b, a) = (allowed(before), allowed(after));
    [
        (b.writes, a.writes, "modify its environment"),
        (b.destroys, a.destroys, "destroy data"),
        (
            b.repeats_side_effects,
            a.repeats_side_effects,
            "have side effects when repeated",
        ),
        (
            b.reaches_outside,
            a.reaches_outside,
            "reach the outside world",
        ),
    ]
    .into_iter()
    .filter(|(before, after, _)| !before && *after)
    .map(|(_, _, what)| what)
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn w(before: Value, after: Value) -> Vec<&'static str> {
        widened(Some(&before), Some(&after))
    }

    #[test]
    fn a_read_only_tool_turned_destructive_widens_and_the_reverse_does_not() {
        let read_only = json!({"readOnlyHint": true, "openWorldHint": false});
        for after in [
            json!({"readOnlyHint": false, "openWorldHint": false}),
            json!({"openWorldHint": false}),
            json!({"readOnlyHint": false, "destructiveHint": true, "openWorldHint": false}),
            // A hint a client cannot read is its default.
            json!({"readOnlyHint": "true", "openWorldHint": false}),
        ] {
            assert_eq!(
                w(read_only.clone(), after.clone()),
                [
                    "modify its environment",
                    "destroy data",
                    "have side effects when repeated"
                ],
                "{after}"
            );
        }
        assert!(w(json!({"readOnlyHint": false}), read_only.clone()).is_empty());
        assert!(w(json!({}), read_only.clone()).is_empty());
    }

    #[test]
    fn each_hint_widens_on_its_own_and_defaults_count() {
        let safe_writer = json!({"readOnlyHint": false, "destructiveHint": false,
            "idempotentHint": true, "openWorldHint": false});
        let cases = [
            (json!({"destructiveHint": true}), "destroy data"),
            (
                json!({"idempotentHint": false}),
                "have side effects when repeated",
            ),
            (json!({"openWorldHint": true}), "reach the outside world"),
        ];
        for (change, says) in cases {
            let mut after = safe_writer.clone();
            for (k, v) in change.as_object().into_iter().flatten() {
                after[k] = v.clone();
            }
            assert_eq!(w(safe_writer.clone(), after), [says]);
        }
        // Absent hints are the permissive defaults: dropping them all widens everything.
        assert_eq!(widened(Some(&safe_writer), None).len(), 3);
        // A title among the annotations allows nothing.
        assert!(
            w(safe_writer.clone(), {
                let mut a = safe_writer.clone();
                a["title"] = json!("Delete everything");
                a
            })
            .is_empty()
        );
    }
}
