//! Problems a status document lists as raised, rather than parts that each carry a state:
//!
//! - Alarms and alerts raised on the dependency (Netdata's `/api/v1/alarms`: `"alarms":
//!   {"disk_space._": {"status": "CRITICAL", …}}`). A raised alarm is a condition of a
//!   working service, so it reads at worst degraded; a document whose `alarms` are empty
//!   has nothing raised and is healthy.
//! - Health-check results typed by their severity beside a message (Sonarr's and
//!   Radarr's `/api/v3/health`: `[{"source": "IndexerStatusCheck", "type": "warning",
//!   "message": "…"}]`): an `error` or a `warning` is a problem the service reports about
//!   itself, degraded; a `notice` (an update available) is healthy.
//! - A flag saying whether the data is safe (Hazelcast's `/hazelcast/health`:
//!   `"clusterSafe": false` while partitions migrate and backups lag): `false` is
//!   degraded, `true` healthy.

use serde_json::{Map, Value};

use super::{Health, MAX_ENTRIES, Reading, folded, word_health};

/// Names of members listing raised alarms or alerts.
const ALARM_LISTS: [&str; 2] = ["alarms", "alerts"];

/// Names of an entry's member typing it by severity.
const SEVERITY_KEYS: [&str; 3] = ["type", "severity", "level"];

/// Reads the raised alarms of `map`; returns whether it held a list of them.
pub(super) fn alarms(map: &Map<String, Value>, reading: &mut Reading) -> bool {
    let Some((key, list)) = map.iter().find(|(k, v)| {
        ALARM_LISTS.contains(&folded(k).as_str()) && (v.is_object() || v.is_array())
    }) else {
        return false;
    };
    let entries: Vec<(String, &Value)> = match list {
        Value::Object(named) => named
            .iter()
            .take(MAX_ENTRIES)
            .map(|(n, v)| (n.clone(), v))
            .collect(),
        Value::Array(items) => items
            .iter()
            .take(MAX_ENTRIES)
            .enumerate()
            .map(|(i, v)| (format!("{key}[{i}]"), v))
            .collect(),
        _ => Vec::new(),
    };
    if entries.is_empty() {
        reading.component(key.clone(), "none raised".to_owned(), Health::Healthy);
        return true;
    }
    for (name, entry) in entries {
        let Some(word) = entry.get("status").and_then(Value::as_str) else {
            continue;
        };
        let h = match word_health(word) {
            Health::Down => Health::Degraded,
            h => h,
        };
        if h != Health::Unknown {
            reading.component(name, word.to_owned(), h);
        }
    }
    true
}

/// An entry that reports a problem by its severity beside its message, read as at worst
/// degraded; `None` for any other entry.
pub(super) fn reported_problem(entry: &Map<String, Value>) -> Option<(Health, String)> {
    entry.get("message").and_then(Value::as_str)?;
    let word = SEVERITY_KEYS
        .iter()
        .find_map(|k| entry.get(*k).and_then(Value::as_str))?;
    let h = match folded(word).as_str() {
        "error" | "err" | "critical" | "fatal" | "warning" | "warn" => Health::Degraded,
        "notice" | "info" | "informational" | "ok" => Health::Healthy,
        _ => return None,
    };
    Some((h, word.to_owned()))
}

/// Flags saying whether the data is safe (`clusterSafe`), each a part.
pub(super) fn safety_flags(map: &Map<String, Value>, reading: &mut Reading) {
    for (k, v) in map.iter().take(MAX_ENTRIES) {
        let Some(safe) = v.as_bool() else {
            continue;
        };
        if folded(k).ends_with("safe") {
            let h = if safe {
                Health::Healthy
            } else {
                Health::Degraded
            };
            reading.component(k.clone(), v.to_string(), h);
        }
    }
}
