//! Importing a newer spec into an existing config: hand-written entries are kept as
//! they are, and each imported tool whose contract would change is reported with the
//! same rename-aware diff runtime drift uses, and gets a bumped contract version.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};
use toolgate_contract::{ResponseContract, SharedSchemas};

use super::emit::{self, Kept, KeptEntry};
use super::{Imported, example};

/// The comment lines written directly above each entry of the `tools:` and
/// `dependencies:` sections of `existing`, by (section, key). YAML parsers drop
/// comments, so the text is read; keys are written at two spaces, plain or quoted.
pub fn comments(existing: &str) -> HashMap<(String, String), Vec<String>> {
    let mut out = HashMap::new();
    let mut section = String::new();
    let mut pending: Vec<String> = Vec::new();
    for line in existing.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(' ') && !line.starts_with('#') {
            section = line.split(':').next().unwrap_or("").trim().to_string();
            pending.clear();
            continue;
        }
        if let Some(c) = line.strip_prefix("  # ") {
            pending.push(c.to_string());
            continue;
        }
        if let Some(rest) = line.strip_prefix("  ")
            && !rest.starts_with(' ')
            && !rest.starts_with('#')
            && let Some(key) = key_of(rest)
        {
            out.insert((section.clone(), key), std::mem::take(&mut pending));
        }
        pending.clear();
    }
    out
}

/// The key of a `key:` or `key: value` line, unquoted.
fn key_of(line: &str) -> Option<String> {
    if line.starts_with('"') {
        let mut de = serde_json::Deserializer::from_str(line).into_iter::<String>();
        return de.next()?.ok();
    }
    if let Some(rest) = line.strip_prefix('\'') {
        let end = rest.find("':")?;
        return Some(rest[..end].replace("''", "'"));
    }
    let end = line
        .find(": ")
        .or_else(|| line.strip_suffix(':').map(str::len))?;
    Some(line[..end].to_string())
}

/// Whether a comment block holds the `# METHOD /path` marker the import writes.
fn marked(comments: &[String]) -> bool {
    comments.iter().any(|c| {
        super::operations::METHODS
            .iter()
            .any(|m| c.starts_with(&format!("{} /", m.to_ascii_uppercase())))
    })
}

/// Tool names in `existing` written by an import: each is preceded by the
/// `# METHOD /path` comment the import writes.
pub fn imported_names(existing: &str) -> Vec<String> {
    let mut out: Vec<String> = comments(existing)
        .into_iter()
        .filter(|((section, _), c)| section == "tools" && marked(c))
        .map(|((_, name), _)| name)
        .collect();
    out.sort();
    out
}

/// What an earlier import of `dependency` was run with: the `--prefix` and the owner
/// of its tools, so a re-import without them keeps both.
pub fn previous(existing: &str, dependency: &str) -> (Option<String>, Option<String>) {
    let notes = comments(existing);
    let prefix = notes
        .get(&("dependencies".to_string(), dependency.to_string()))
        .and_then(|c| {
            c.iter().find_map(|l| {
                let at = l.find(" --prefix ")?;
                let rest = &l[at + " --prefix ".len()..];
                rest.split_whitespace().next().map(str::to_string)
            })
        });
    let imported = imported_names(existing);
    let owner = toolgate_config::yaml::from_str::<Value>(existing)
        .ok()
        .and_then(|doc| {
            doc.get("tools")?
                .as_object()?
                .iter()
                .filter(|(k, v)| replaceable(&imported, dependency, k, v))
                .find_map(|(_, v)| {
                    v.get("owner")
                        .and_then(Value::as_str)
                        .filter(|o| !super::is_placeholder_owner(o))
                        .map(str::to_string)
                })
        });
    (prefix, owner)
}

/// Whether the existing tool entry `name` is one this import may replace: written by
/// an import, for this dependency (or one of its per-host dependencies).
fn replaceable(imported: &[String], dependency: &str, name: &str, tool: &Value) -> bool {
    let d = tool.get("dependency").and_then(Value::as_str).unwrap_or("");
    (d == dependency || d.starts_with(&format!("{dependency}_")))
        && imported.iter().any(|n| n == name)
}

/// Names of tools in `existing` this import must not take: hand-written ones, and
/// those of other dependencies.
pub fn foreign_tools(existing: &str, dependency: &str) -> Vec<String> {
    let Ok(doc) = toolgate_config::yaml::from_str::<Value>(existing) else {
        return Vec::new();
    };
    let imported = imported_names(existing);
    doc.get("tools")
        .and_then(Value::as_object)
        .map(|t| {
            t.iter()
                .filter(|(k, v)| !replaceable(&imported, dependency, k, v))
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// The API's shared schema set before and after the import: contracts that name its
/// components are compared with the components they reach.
struct Sets {
    old: Option<SharedSchemas>,
    new: Option<SharedSchemas>,
}

impl Sets {
    fn new(set: &str, old: Option<Value>, new: &BTreeMap<String, Value>) -> Sets {
        let compile = |components: BTreeMap<String, Value>| {
            SharedSchemas::new(BTreeMap::from([(set.to_owned(), components)])).ok()
        };
        Sets {
            old: old
                .and_then(|v| serde_json::from_value(v).ok())
                .and_then(compile),
            new: compile(new.clone()),
        }
    }

    /// The old contract, self-contained.
    fn before(&self, schema: &Value) -> Value {
        bundle(self.old.as_ref(), schema)
    }

    /// The new contract, self-contained.
    fn after(&self, schema: &Value) -> Value {
        bundle(self.new.as_ref(), schema)
    }
}

fn bundle(set: Option<&SharedSchemas>, schema: &Value) -> Value {
    match set {
        Some(s) => s.bundle(schema),
        None => schema.clone(),
    }
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
    let doc: Value = toolgate_config::yaml::from_str(existing)
        .map_err(|e| format!("the existing config is not read: {e}"))?;
    let empty = Map::new();
    let old_tools = doc
        .get("tools")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut kept = Kept::default();
    if let Some(top) = doc.as_object() {
        for (k, v) in top {
            if k != "dependencies" && k != "tools" && k != "schemas" {
                kept.top.insert(k.clone(), v.clone());
            }
        }
    }
    let notes = comments(existing);
    let entry = |section: &str, name: &str, value: &Value| KeptEntry {
        name: name.to_string(),
        value: value.clone(),
        comments: notes
            .get(&(section.to_string(), name.to_string()))
            .cloned()
            .unwrap_or_default(),
    };
    if let Some(deps) = doc.get("dependencies").and_then(Value::as_object) {
        for (k, v) in deps {
            if *k == imp.dependency {
                kept.dependency = Some(v.clone());
            } else if imp.extra_dependencies.iter().any(|(n, _)| n == k) {
                // Regenerated with the import.
            } else {
                kept.deps.push(entry("dependencies", k, v));
            }
        }
    }
    // This API's shared schemas are regenerated; other APIs' sets are kept as they are.
    let mut old_set = None;
    if let Some(sets) = doc.get("schemas").and_then(Value::as_object) {
        for (k, v) in sets {
            if *k == imp.dependency {
                old_set = Some(v.clone());
            } else {
                kept.schemas.push(entry("schemas", k, v));
            }
        }
    }
    let sets = Sets::new(&imp.dependency, old_set, &imp.schemas);
    let mut report = Vec::new();
    let mut versions = Vec::new();
    let imported = imported_names(existing);
    for (name, v) in old_tools {
        let ours = replaceable(&imported, &imp.dependency, name, v);
        let Some(new) = imp.tools.iter().find(|t| t.name == *name).filter(|_| ours) else {
            if ours {
                report.push(format!("{name}: no longer in the spec; kept as it was"));
            }
            kept.tools.push(entry("tools", name, v));
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
            .is_some_and(|r| !r.starts_with('#') && !r.starts_with("toolgate:"))
        {
            report.push(format!(
                "{name}: its contract lives in a schema file, which the import does not read; it now gets the spec's schema inline — compare them with `toolgate diff`"
            ));
        }
        let new_schema = new
            .response_schema
            .clone()
            .unwrap_or_else(|| Value::Object(Map::new()));
        match contract_change(&sets.before(&old_schema), &sets.after(&new_schema)) {
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
        let text = "tools:\n  # GET /pets\n  # weakened: x\n  list_pets:\n    dependency: pets\n  mine:\n    dependency: pets\n  # a note\n  other:\n    dependency: pets\n  # POST /x\n  \"1_2\":\n    dependency: pets\n";
        assert_eq!(
            imported_names(text),
            vec!["1_2".to_string(), "list_pets".to_string()]
        );
        let mine = json!({"dependency": "pets"});
        let imported = imported_names(text);
        assert!(replaceable(&imported, "pets", "list_pets", &mine));
        assert!(!replaceable(&imported, "pets", "mine", &mine));
        assert!(!replaceable(&imported, "cats", "list_pets", &mine));
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
