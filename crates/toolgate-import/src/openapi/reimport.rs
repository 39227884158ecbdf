//! Importing a newer spec into an existing config: hand-written entries are kept as
//! they are, and each imported tool whose contract would change is reported with the
//! same rename-aware diff runtime drift uses, and gets a bumped contract version.

use serde_json::{Map, Value};
use toolgate_contract::ResponseContract;

use super::emit::{self, Kept};
use super::{Imported, example};

/// Tool names in `existing` written by an import: each is preceded by the
/// `# METHOD /path` comment the import writes (YAML parsers drop comments, so the text
/// is read).
pub fn imported_names(existing: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut marked = false;
    for line in existing.lines() {
        if let Some(c) = line.strip_prefix("  # ") {
            if super::operations::METHODS
                .iter()
                .any(|m| c.starts_with(&format!("{} /", m.to_ascii_uppercase())))
            {
                marked = true;
            }
            continue;
        }
        if let Some(name) = line.strip_prefix("  ").and_then(|l| l.strip_suffix(':'))
            && !name.starts_with(' ')
            && marked
        {
            out.push(name.trim_matches(|c| c == '\'' || c == '"').to_string());
        }
        marked = false;
    }
    out
}

/// Whether the existing tool entry `name` is one this import may replace: written by
/// an import, for this dependency (or one of its per-host dependencies).
fn replaceable(existing: &str, dependency: &str, name: &str, tool: &Value) -> bool {
    let d = tool.get("dependency").and_then(Value::as_str).unwrap_or("");
    (d == dependency || d.starts_with(&format!("{dependency}_")))
        && imported_names(existing).iter().any(|n| n == name)
}

/// Names of tools in `existing` this import must not take: hand-written ones, and
/// those of other dependencies.
pub fn foreign_tools(existing: &str, dependency: &str) -> Vec<String> {
    let Ok(doc) = yaml_serde::from_str::<Value>(existing) else {
        return Vec::new();
    };
    doc.get("tools")
        .and_then(Value::as_object)
        .map(|t| {
            t.iter()
                .filter(|(k, v)| !replaceable(existing, dependency, k, v))
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// What changes between the contract `old` and `new`: an example of the new contract
/// checked against the old one, as if the upstream had started answering per the new
/// spec; and the other way round, for fields the new spec no longer promises.
pub fn contract_change(old: &Value, new: &Value) -> Option<(String, bool)> {
    if old == new {
        return None;
    }
    let old_c = ResponseContract::compile(old, None).ok()?;
    let new_c = ResponseContract::compile(new, None).ok()?;
    if let Err(drift) = old_c.check(&example::generate(new)) {
        let breaking = drift.changes.iter().any(|c| c.is_breaking());
        return Some((drift.summary(), breaking));
    }
    if let Err(drift) = new_c.check(&example::generate(old)) {
        return Some((format!("no longer promised: {}", drift.summary()), true));
    }
    Some((
        "the schema changed without changing this example's shape".into(),
        false,
    ))
}

/// `1.7` + breaking → `2.0`; otherwise `1.8`.
pub fn bump(version: &str, breaking: bool) -> String {
    let mut parts = version.split('.');
    let major: u64 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(1);
    let minor: u64 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    if breaking {
        format!("{}.0", major + 1)
    } else {
        format!("{major}.{}", minor + 1)
    }
}

/// The merged config and one report line per tool whose contract changes.
pub fn merge(existing: &str, imp: Imported) -> Result<(String, Vec<String>), String> {
    let doc: Value = yaml_serde::from_str(existing)
        .map_err(|e| format!("the existing config is not YAML: {e}"))?;
    let empty = Map::new();
    let old_tools = doc
        .get("tools")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut kept = Kept::default();
    for key in ["gateway", "alerts"] {
        if let Some(v) = doc.get(key) {
            kept.top.insert(key.into(), v.clone());
        }
    }
    if let Some(deps) = doc.get("dependencies").and_then(Value::as_object) {
        for (k, v) in deps {
            if *k == imp.dependency {
                kept.dependency = Some(v.clone());
            } else if imp.extra_dependencies.iter().any(|(n, _)| n == k) {
                // Regenerated with the import.
            } else {
                kept.deps.insert(k.clone(), v.clone());
            }
        }
    }
    let mut report = Vec::new();
    let mut versions = Vec::new();
    for (name, v) in old_tools {
        let ours = replaceable(existing, &imp.dependency, name, v);
        let Some(new) = imp.tools.iter().find(|t| t.name == *name).filter(|_| ours) else {
            if ours {
                report.push(format!("{name}: no longer in the spec; kept as it was"));
            }
            kept.tools.insert(name.clone(), v.clone());
            continue;
        };
        let old_version = v
            .pointer("/contract/version")
            .and_then(Value::as_str)
            .unwrap_or("1.0")
            .to_string();
        let old_schema = v
            .pointer("/contract/response_schema")
            .cloned()
            .unwrap_or(Value::Null);
        if old_schema
            .get("$ref")
            .and_then(Value::as_str)
            .is_some_and(|r| !r.starts_with('#'))
        {
            report.push(format!(
                "{name}: its contract lives in a schema file, which the import does not read; it now gets the spec's schema inline — compare them with `toolgate diff`"
            ));
        }
        let new_schema = new
            .response_schema
            .clone()
            .unwrap_or_else(|| Value::Object(Map::new()));
        match contract_change(&old_schema, &new_schema) {
            Some((summary, breaking)) => {
                let version = bump(&old_version, breaking);
                report.push(format!(
                    "{name}: contract {old_version} → {version}: {summary}"
                ));
                versions.push((name.clone(), version));
            }
            None => versions.push((name.clone(), old_version)),
        }
    }
    for t in &imp.tools {
        if !old_tools.contains_key(&t.name) {
            report.push(format!("{}: new tool", t.name));
        }
    }
    Ok((emit::config_with(&imp, &versions, &kept), report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn imported_entries_are_told_from_hand_written_ones_by_their_comment() {
        let text = "tools:\n  # GET /pets\n  # weakened: x\n  list_pets:\n    dependency: pets\n  mine:\n    dependency: pets\n  # a note\n  other:\n    dependency: pets\n";
        assert_eq!(imported_names(text), vec!["list_pets".to_string()]);
        let mine = json!({"dependency": "pets"});
        assert!(replaceable(text, "pets", "list_pets", &mine));
        assert!(!replaceable(text, "pets", "mine", &mine));
        assert!(!replaceable(text, "cats", "list_pets", &mine));
    }

    #[test]
    fn a_renamed_field_is_reported_as_a_rename_and_bumps_the_major() {
        let old = json!({"type": "object", "required": ["snippet"], "properties": {"snippet": {"type": "string"}}});
        let new = json!({"type": "object", "required": ["excerpt"], "properties": {"excerpt": {"type": "string"}}});
        let (summary, breaking) = contract_change(&old, &new).unwrap();
        assert!(summary.contains("probably a rename"), "{summary}");
        assert!(breaking);
        assert_eq!(bump("1.7", breaking), "2.0");
        assert_eq!(bump("1.7", false), "1.8");
        assert_eq!(contract_change(&old, &old), None);
    }
}
