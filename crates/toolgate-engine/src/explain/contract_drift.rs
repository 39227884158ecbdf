//! An open contract-drift incident as a model may read it. The incident was raised by
//! whichever agent's call first received the changed response, and its stored title
//! names the response's own keys (`new users.alice@example.com`) for the owner. Every
//! agent that may call the tool reads the incident in `dependency_health`, so what it is
//! told is the shape of the change only: the paths the contract itself promises (which
//! every caller of the tool is given anyway) and how many changes of which kind were
//! found elsewhere, never a key or value taken from one caller's response.

use serde_json::Value;

/// Contract paths named at most; the rest are counted.
const NAMED: usize = 3;
/// A named path is cut after this many characters.
const PATH_CHARS: usize = 120;

/// The model's line for an open contract-drift incident of `tool`, from the changes its
/// `detail` lists. `None` when the detail lists no changes: the stored title is then
/// built from a fixed reason (an unreadable or empty body), with nothing of a response
/// in it.
pub fn contract_drift_incident(tool: &str, detail: &Value) -> Option<String> {
    let changes = detail["changes"].as_array()?;
    let mut named = Vec::new();
    let mut elsewhere = 0usize;
    for c in changes {
        // Only a promised path is the contract's own name; `added` paths and a rename's
        // new name are the response's keys, which may be data (an id, an e-mail).
        let promised = match c["kind"].as_str() {
            Some("missing") => c["path"].as_str().map(|p| (p, "is missing")),
            Some("renamed") => c["from"]
                .as_str()
                .map(|p| (p, "is missing (probably renamed)")),
            Some("type_changed") => c["path"].as_str().map(|p| (p, "changed type")),
            _ => None,
        };
        match promised {
            Some((path, what)) if named.len() < NAMED && names_a_field(path) => {
                named.push(format!("{} {what}", field(path)))
            }
            _ => elsewhere += 1,
        }
    }
    elsewhere += detail["truncated"].as_u64().unwrap_or(0) as usize;
    if named.is_empty() && elsewhere == 0 {
        return None;
    }
    if elsewhere > 0 {
        named.push(format!(
            "{elsewhere} {}change{} not named here",
            if named.is_empty() { "" } else { "more " },
            if elsewhere == 1 { "" } else { "s" }
        ));
    }
    let contract = if detail["learned"] == true {
        "its learned contract"
    } else {
        "its contract"
    };
    Some(format!(
        "{tool} no longer matches {contract}: {}",
        named.join("; ")
    ))
}

/// A promised path as quoted: without control characters, capped.
fn field(path: &str) -> String {
    let clean: String = path
        .chars()
        .filter(|c| !c.is_control())
        .take(PATH_CHARS)
        .collect();
    format!("`{}`", if clean.is_empty() { "(root)" } else { &clean })
}

/// Whether a path reads as field names (`results[].snippet`, `@odata.nextLink`), which
/// may be told to any caller, rather than as data used as a key (`alice@example.com`,
/// `Q3 report.pdf`). A learned contract's paths come from callers' responses: a key that
/// is not a name is not repeated to another caller. Empty is the root.
pub fn names_a_field(path: &str) -> bool {
    const MAX_NAME: usize = 64;
    path.is_empty()
        || path.split('.').all(|segment| {
            let name = segment.trim_end_matches("[]");
            let rest = name.strip_prefix(['@', '$']).unwrap_or(name);
            !rest.is_empty()
                && name.len() <= MAX_NAME
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        })
}
