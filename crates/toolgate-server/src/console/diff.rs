//! An incident's diff side by side: what the contract (or the pin) expects on the left,
//! what arrived on the right, one row per change, a rename highlighted on both sides.
//! Reads the detail incidents store: a response drift's `changes`
//! (`toolgate_contract::Change`, tagged by `kind`), or a definition drift's changes
//! (`DefinitionChange::to_json`: texts before/after, or a schema `drift` with its own
//! changes). Every value is upstream-written and escaped.

use std::fmt::Write as _;

use serde_json::Value;

use super::layout::esc;

/// The diff section of an incident's page; a note when the detail has no changes.
pub fn render(detail: &Value) -> String {
    let mut rows = String::new();
    for change in detail["changes"].as_array().into_iter().flatten() {
        row(&mut rows, change, "");
    }
    let mut out = String::new();
    if let Some(summary) = detail["summary"].as_str() {
        let _ = write!(out, "<h2>Diff</h2><p>{}</p>", esc(summary));
    } else if !rows.is_empty() {
        out.push_str("<h2>Diff</h2>");
    }
    if rows.is_empty() {
        let pretty = serde_json::to_string_pretty(detail).unwrap_or_default();
        let _ = write!(
            out,
            "<h2>Detail</h2><pre class=\"mono\">{}</pre>",
            esc(&pretty)
        );
        return out;
    }
    let _ = write!(
        out,
        "<div class=\"diff\" id=\"diff\" role=\"table\" aria-label=\"expected against received\">\
         <div class=\"head\" role=\"columnheader\">Expected</div><div class=\"head\" role=\"columnheader\">Received</div>{rows}</div>"
    );
    if detail["truncated"].as_u64().unwrap_or(0) > 0 {
        let _ = write!(
            out,
            "<p class=\"muted\">{} more changes not shown.</p>",
            detail["truncated"]
        );
    }
    out
}

fn cell(out: &mut String, class: &str, text: &str) {
    let _ = write!(
        out,
        "<div class=\"{class}\" role=\"cell\">{}</div>",
        esc(text)
    );
}

fn text(v: &Value) -> String {
    match v {
        Value::Null => "(none)".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What a definition change is about: "tool search", "prompt summarize" or "resource
/// template file:///{path}".
fn subject(c: &Value) -> String {
    use toolgate_contract::DefinitionKind as K;
    for kind in [K::Prompt, K::ResourceTemplate] {
        if let Some(name) = c.get(kind.key()) {
            return format!("{} {}", kind.noun(), text(name));
        }
    }
    format!("tool {}", text(&c["tool"]))
}

/// One change as a row (or several, for a schema drift inside a definition change).
fn row(out: &mut String, c: &Value, prefix: &str) {
    let s = |k: &str| c[k].as_str().unwrap_or("").to_string();
    let at = |p: String| format!("{prefix}{p}");
    let has_path = c.get("path").is_some();
    // A prompt's or resource template's change reads as a tool's (`prompt_title`: `title`).
    let (_, kind) =
        toolgate_contract::DefinitionKind::of_change_kind(c["kind"].as_str().unwrap_or(""));
    match kind {
        "renamed" => {
            cell(
                out,
                "old rename",
                &format!("{}: {}", at(s("from")), s("type_name")),
            );
            cell(
                out,
                "new rename",
                &format!("{}: {}", at(s("to")), s("type_name")),
            );
            let _ = write!(
                out,
                "<div class=\"why\" role=\"cell\">renamed {} → {} ({})</div>",
                esc(&at(s("from"))),
                esc(&at(s("to"))),
                esc(&s("why"))
            );
        }
        "missing" => {
            cell(out, "old", &format!("{}: {}", at(s("path")), s("expected")));
            cell(out, "", "(missing)");
        }
        "added" if has_path => {
            cell(out, "", "(not in the contract)");
            cell(out, "new", &format!("{}: {}", at(s("path")), s("found")));
        }
        "type_changed" => {
            cell(out, "old", &format!("{}: {}", at(s("path")), s("expected")));
            cell(out, "new", &format!("{}: {}", at(s("path")), s("found")));
        }
        "invalid" => {
            cell(out, "old", &at(s("path")));
            cell(out, "new", &s("message"));
        }
        "keyword" => {
            let what = format!("{} {}", at(s("path")), s("keyword"));
            cell(out, "old", &format!("{what}: {}", text(&c["before"])));
            cell(out, "new", &format!("{what}: {}", text(&c["after"])));
        }
        "added" => {
            cell(out, "", "(not pinned)");
            cell(out, "new", &format!("new {}", subject(c)));
        }
        "removed" => {
            cell(out, "old", &subject(c));
            cell(out, "", "(no longer listed)");
        }
        kind => {
            if c.get("before").is_some() || c.get("after").is_some() {
                let what = format!("{} {kind}", subject(c));
                cell(out, "old", &format!("{what}: {}", text(&c["before"])));
                cell(out, "new", &format!("{what}: {}", text(&c["after"])));
            }
            let nested = format!("{}: ", subject(c));
            for inner in c["drift"]["changes"].as_array().into_iter().flatten() {
                row(out, inner, &nested);
            }
            for (key, class) in [("removed", "old"), ("added", "new")] {
                for field in c[key].as_array().into_iter().flatten() {
                    if class == "old" {
                        cell(out, "old", &format!("{nested}{}", text(field)));
                        cell(out, "", "(removed)");
                    } else {
                        cell(out, "", "(not pinned)");
                        cell(out, "new", &format!("{nested}{}", text(field)));
                    }
                }
            }
            if c.get("before").is_none() && c["drift"].is_null() && c.get("summary").is_some() {
                cell(out, "old", &s("summary"));
                cell(out, "new", "");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_rename_names_both_fields_side_by_side() {
        let detail = json!({
            "summary": "renamed results[].snippet → results[].excerpt",
            "changes": [
                {"kind": "renamed", "from": "results[].snippet", "to": "results[].excerpt", "type_name": "string", "why": "same type"},
                {"kind": "type_changed", "path": "total", "expected": "integer", "found": "string"},
            ]
        });
        let html = render(&detail);
        let old = html
            .find("old rename\" role=\"cell\">results[].snippet: string")
            .unwrap();
        let new = html
            .find("new rename\" role=\"cell\">results[].excerpt: string")
            .unwrap();
        assert!(old < new, "{html}");
        assert!(html.contains("total: integer") && html.contains("total: string"));
    }

    #[test]
    fn upstream_text_in_a_definition_change_is_escaped() {
        let detail = json!({"changes": [
            {"kind": "description", "tool": "t", "before": "ok", "after": "<script>steal()</script>"},
            {"kind": "input_schema", "tool": "t", "drift": {"changes": [
                {"kind": "keyword", "path": "q", "keyword": "description", "before": "a", "after": "<img src=x onerror=y>"}
            ]}}
        ]});
        let html = render(&detail);
        assert!(
            !html.contains("<script>") && !html.contains("<img"),
            "{html}"
        );
        assert!(html.contains("&lt;script&gt;steal()&lt;/script&gt;"));
        assert!(
            html.contains("t: q description: &lt;img src=x onerror=y&gt;"),
            "{html}"
        );
    }
}
