//! Lists of incidents and maintenances: is anything open, and how bad is it?
//!
//! Many status APIs report their state as the list of what is going on rather than as
//! one word: Atlassian Statuspage `incidents/unresolved.json` and
//! `scheduled-maintenances/active.json`, Slack's `active_incidents`, Google Cloud's
//! `incidents.json` (a bare array; an incident without `end` is ongoing), Uptime Kuma's
//! status-page `incident`, Zendesk's `/api/incidents/active` (JSON:API `data[]` of type
//! `incident`, `resolvedAt` null while open), Statuspal's `current_incident_type`,
//! Salesforce Trust's `Incidents`/`Maintenances`, Cachet's `/api/v1/incidents` (`status`
//! 0 Scheduled, 1 Investigating, 2 Identified, 3 Watching, 4 Fixed, with
//! `human_status`).
//!
//! One reader covers them by shape:
//! - a list is an array under a key that names incidents, maintenances, events,
//!   outages or issues (at the top or in a wrapper object), a single event object or
//!   `null` under such a key, a bare array or `data[]` whose items look like incidents;
//! - an entry is open unless its status reads resolved, completed, postmortem, fixed,
//!   closed (or not started yet: scheduled, upcoming), or it carries an end
//!   (`end`, `resolved_at`, `resolvedAt`, `ended_at`, `resolved: true`, …);
//! - in a list of scheduled or upcoming work only entries whose status says they are
//!   in progress are open, since such lists also hold future work;
//! - no open entry in a recognised list is healthy; an open maintenance is degraded;
//!   an open incident is degraded, or down when its impact, severity or type reads as
//!   an outage (`critical`, `full_outage`, `SERVICE_OUTAGE`, severity `high`). On
//!   Statuspage's impact scale `major` is a partial outage, degraded as the page's
//!   `major` indicator is; on Statuspal's two-step incident type it is the outage.
//!   An impact of `none` says the entry is informational.
//! - a list whose key says it holds the past (`past_incidents`, `previous_outages`,
//!   `incident_history`, `resolvedIncidents`: CacheGenie's status API lists finished
//!   incidents with no status or end of their own) is history: recognised, never open.

use serde_json::{Map, Value};

use super::{Health, MAX_COMPONENTS, MAX_ENTRIES, word_health, worse};

/// What the event lists of a document say.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Events {
    /// Healthy when every recognised list has no open entry.
    pub health: Health,
    /// The raw impact of the worst open entry, or a plain summary.
    pub indicator: String,
    /// The title of the worst open entry.
    pub description: Option<String>,
    /// `(title, raw impact or status)` of the open entries.
    pub open: Vec<(String, String)>,
}

/// Whether a list holds incidents or planned work, which reads differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Incident,
    Maintenance,
    /// Scheduled or upcoming work: open only while in progress.
    Planned,
}

/// Collects the open entries while the document is walked.
#[derive(Default)]
struct Tally {
    recognised: bool,
    worst: Option<(Health, String, Option<String>)>,
    open: Vec<(String, String)>,
}

/// Reads the event lists of a document; `None` when it has none.
pub(super) fn read(root: &Value) -> Option<Events> {
    let mut tally = Tally::default();
    match root {
        Value::Array(items) if looks_like_event_list(items) => {
            read_list(items, Kind::Incident, &mut tally);
        }
        Value::Object(map) => walk(map, 0, &mut tally),
        _ => {}
    }
    if !tally.recognised {
        return None;
    }
    let (health, indicator, description) = match tally.worst {
        Some((h, raw, title)) => (h, raw, title),
        None => (Health::Healthy, "no_open_incidents".to_owned(), None),
    };
    Some(Events {
        health,
        indicator,
        description,
        open: tally.open,
    })
}

/// Looks for event lists in an object and in the objects it wraps, two levels deep.
fn walk(map: &Map<String, Value>, depth: usize, tally: &mut Tally) {
    for (key, value) in map.iter().take(MAX_ENTRIES) {
        if is_current_incident_word(key) {
            // Statuspal: `current_incident_type` is null while nothing is open.
            tally.recognised = true;
            if let Some(word) = value.as_str() {
                let health = incident_type_health(word);
                if health != Health::Healthy {
                    note(
                        tally,
                        worse(Health::Degraded, health),
                        word,
                        None,
                        Kind::Incident,
                    );
                }
            }
        } else if let Some(kind) = event_key(key) {
            if names_the_past(key) {
                // What has happened, not what is going on: nothing in it is open.
                tally.recognised = true;
            } else {
                read_value(value, kind, tally);
            }
        } else if key == "data"
            && let Value::Array(items) = value
            && !items.is_empty()
            && items
                .iter()
                .take(MAX_ENTRIES)
                .all(|i| i.as_object().is_some_and(is_incident_like))
        {
            read_list(items, Kind::Incident, tally);
        } else if depth < 2
            && let Value::Object(inner) = value
        {
            walk(inner, depth + 1, tally);
        }
    }
}

/// The value under an event key: a list, a container of lists, one event, or `null`.
fn read_value(value: &Value, kind: Kind, tally: &mut Tally) {
    match value {
        Value::Array(items) => read_list(items, kind, tally),
        Value::Null => tally.recognised = true,
        Value::Object(obj) => {
            // status.io: `"maintenance": {"active": [...], "upcoming": [...]}`.
            let mut container = false;
            for (key, inner) in obj.iter().take(MAX_ENTRIES) {
                let Value::Array(items) = inner else {
                    continue;
                };
                let words = key_words(key);
                let planned = words.iter().any(|w| is_planned_word(w));
                let current = words
                    .iter()
                    .any(|w| matches!(w.as_str(), "active" | "ongoing" | "current" | "open"));
                if planned || current {
                    container = true;
                    let kind = if planned { Kind::Planned } else { kind };
                    read_list(items, kind, tally);
                }
            }
            // Uptime Kuma: `"incident": {"title": ..., "style": "danger"}`.
            if !container && looks_like_single_event(obj) {
                tally.recognised = true;
                read_entry(obj, kind, tally);
            }
        }
        _ => {}
    }
}

fn read_list(items: &[Value], kind: Kind, tally: &mut Tally) {
    tally.recognised = true;
    for item in items.iter().take(MAX_ENTRIES) {
        if let Some(obj) = item.as_object() {
            read_entry(obj, kind, tally);
        }
    }
}

fn read_entry(obj: &Map<String, Value>, kind: Kind, tally: &mut Tally) {
    let fields = Fields(obj);
    let kind = match kind {
        Kind::Incident if fields.str("type").is_some_and(names_maintenance) => Kind::Maintenance,
        other => other,
    };
    if !is_open(&fields, kind) {
        return;
    }
    let impact = impact_of(&fields);
    let health = match (kind, &impact) {
        // Planned work is degraded whatever impact it declares.
        (Kind::Maintenance | Kind::Planned, _) => Health::Degraded,
        (Kind::Incident, Some((h, _))) => *h,
        (Kind::Incident, None) => Health::Degraded,
    };
    let raw = impact.map(|(_, raw)| raw).unwrap_or_else(|| match kind {
        Kind::Incident => "open_incident".to_owned(),
        Kind::Maintenance | Kind::Planned => "in_progress_maintenance".to_owned(),
    });
    let title = ["title", "name", "external_desc", "summary", "message"]
        .iter()
        .find_map(|k| fields.str(k))
        .map(str::to_owned);
    note(tally, health, &raw, title, kind);
}

/// Records one open entry; the first at the worst level names the reading. An entry
/// without a title is listed by its kind, and gives no description.
fn note(tally: &mut Tally, health: Health, raw: &str, title: Option<String>, kind: Kind) {
    if health == Health::Healthy {
        return;
    }
    let prev = tally.worst.as_ref().map_or(Health::Unknown, |w| w.0);
    if tally.worst.is_none() || worse(prev, health) != prev {
        tally.worst = Some((health, raw.to_owned(), title.clone()));
    } else if let Some(worst) = tally.worst.as_mut()
        && worst.0 == health
        && worst.2.is_none()
    {
        // Statuspal's page-level word has no title; an entry at its level does.
        worst.2.clone_from(&title);
    }
    if tally.open.len() < MAX_COMPONENTS {
        let name = title.unwrap_or_else(|| {
            match kind {
                Kind::Incident => "incident",
                Kind::Maintenance | Kind::Planned => "maintenance",
            }
            .to_owned()
        });
        tally.open.push((name, raw.to_owned()));
    }
}

/// An entry's fields, looked up in the entry and in its JSON:API `attributes`.
struct Fields<'a>(&'a Map<String, Value>);

impl<'a> Fields<'a> {
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.0.get(key).or_else(|| {
            self.0
                .get("attributes")
                .and_then(Value::as_object)
                .and_then(|a| a.get(key))
        })
    }

    fn str(&self, key: &str) -> Option<&'a str> {
        self.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    }
}

/// Fields whose presence (not null, not false) says an entry has ended.
const END_KEYS: [&str; 12] = [
    "end",
    "ended",
    "ended_at",
    "endedAt",
    "end_time",
    "endTime",
    "resolved",
    "resolved_at",
    "resolvedAt",
    "closed_at",
    "closedAt",
    "fixed_at",
];

fn is_open(fields: &Fields<'_>, kind: Kind) -> bool {
    let ended = END_KEYS.iter().any(|k| match fields.get(k) {
        None | Some(Value::Null | Value::Bool(false)) => false,
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(_) => true,
    });
    if ended {
        return false;
    }
    let status = status_word(fields);
    if let Some(word) = &status {
        let words = key_words(word);
        let joined: String = words.concat();
        let any = |f: fn(&str) -> bool| f(&joined) || words.iter().any(|w| f(w));
        if any(is_closed_word) || any(is_planned_word) {
            return false;
        }
        if kind == Kind::Planned {
            return any(is_in_progress_word);
        }
    }
    // Cachet incidents: 0 Scheduled and 4 Fixed are not open.
    if status.is_none()
        && let Some(n) = fields.get("status").and_then(Value::as_u64)
    {
        return matches!(n, 1..=3);
    }
    kind != Kind::Planned
}

/// The entry's status word: `status`, Cachet's `human_status`, or `status.human`.
fn status_word(fields: &Fields<'_>) -> Option<String> {
    fields
        .str("status")
        .or_else(|| fields.str("human_status"))
        .or_else(|| fields.str("state"))
        .or_else(|| fields.get("status")?.get("human")?.as_str())
        .map(str::to_owned)
}

fn is_closed_word(w: &str) -> bool {
    matches!(
        w,
        "resolved"
            | "completed"
            | "complete"
            | "postmortem"
            | "fixed"
            | "closed"
            | "ended"
            | "finished"
            | "done"
            | "cancelled"
            | "canceled"
            | "restored"
            | "recovered"
            | "inactive"
    )
}

fn is_planned_word(w: &str) -> bool {
    matches!(
        w,
        "scheduled" | "upcoming" | "planned" | "future" | "notstarted" | "notstartedyet"
    )
}

fn is_in_progress_word(w: &str) -> bool {
    matches!(
        w,
        "inprogress"
            | "progress"
            | "active"
            | "ongoing"
            | "started"
            | "underway"
            | "investigating"
            | "identified"
            | "monitoring"
            | "verifying"
    )
}

/// Fields that carry how bad an entry is.
const IMPACT_KEYS: [&str; 10] = [
    "impact",
    "current_worst_impact",
    "status_impact",
    "severity",
    "impact_level",
    "incident_type",
    "current_incident_type",
    "type",
    "style",
    "level",
];

/// The worst impact an entry declares, with its raw word.
fn impact_of(fields: &Fields<'_>) -> Option<(Health, String)> {
    let mut worst: Option<(Health, String)> = None;
    for key in IMPACT_KEYS {
        let Some(word) = fields.str(key) else {
            continue;
        };
        let h = impact_health(word);
        // A JSON:API `type` that is not a health word (`incident`, `incidents`, …)
        // names the resource, not its impact.
        if key == "type" && h == Health::Unknown {
            continue;
        }
        let h = if h == Health::Unknown {
            Health::Degraded
        } else {
            h
        };
        if worst.as_ref().is_none_or(|(w, _)| worse(*w, h) != *w) {
            worst = Some((h, word.to_owned()));
        }
    }
    // Zendesk: `"outage": true` beside the impact.
    if fields.get("outage").and_then(Value::as_bool) == Some(true) {
        worst = Some((Health::Down, "outage".to_owned()));
    }
    worst
}

/// How bad an impact, severity or incident type is. `none` is an informational entry.
///
/// Statuspage's impact scale (`none`, `minor`, `major`, `critical`) is the scale of its
/// page indicator: its documents colour a `major` impact orange, as a partial outage and
/// the "Partial System Outage" of a `major` indicator, and keep red (a major outage) for
/// `critical`. So an open `major` entry is degraded and only `critical` is down, as the
/// indicator is read.
fn impact_health(word: &str) -> Health {
    let n = super::folded(word);
    match n.as_str() {
        "none" => Health::Healthy,
        "major" => Health::Degraded,
        "high" | "highest" | "severe" | "sev1" | "p1" => Health::Down,
        "medium" | "moderate" | "low" | "lowest" | "sev2" | "sev3" | "p2" | "p3" => {
            Health::Degraded
        }
        "maintenance" | "undermaintenance" | "scheduled" => Health::Degraded,
        _ => match word_health(word) {
            // An open entry with a healthy-sounding impact is still open.
            Health::Healthy => Health::Degraded,
            h => h,
        },
    }
}

/// How bad the type of the incident open now is (Statuspal's `current_incident_type`:
/// `minor`, `major` or `scheduled`). A two-step scale has no `critical` above `major`,
/// so there `major` is its outage.
fn incident_type_health(word: &str) -> Health {
    match super::folded(word).as_str() {
        "major" => Health::Down,
        _ => impact_health(word),
    }
}

/// The lowercase words of a key or status: `activeIncidents`, `scheduled_maintenances`,
/// `MAJOR INCIDENT` → `active incidents`, `scheduled maintenances`, `major incident`.
pub(super) fn key_words(key: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in key.chars().take(80) {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// The kind of list a key names, if it names one.
fn event_key(key: &str) -> Option<Kind> {
    let words = key_words(key);
    let names = |w: &str| {
        let w = w.strip_suffix("list").unwrap_or(w);
        let w = w.strip_suffix('s').unwrap_or(w);
        matches!(w, "incident" | "maintenance" | "event" | "outage" | "issue")
    };
    if !words.iter().any(|w| names(w)) {
        return None;
    }
    if words.iter().any(|w| is_planned_word(w)) {
        Some(Kind::Planned)
    } else if words.iter().any(|w| names_maintenance(w)) {
        Some(Kind::Maintenance)
    } else {
        Some(Kind::Incident)
    }
}

/// Whether an event list's key says it holds the past: `past_incidents`,
/// `previousOutages`, `incident_history`, `resolved_incidents`.
fn names_the_past(key: &str) -> bool {
    key_words(key).iter().any(|w| {
        matches!(
            w.as_str(),
            "past" | "previous" | "history" | "historical" | "former" | "archived"
        ) || is_closed_word(w)
    })
}

/// Whether a key names a list of incidents, maintenances, events, outages or issues.
pub(super) fn is_event_key(key: &str) -> bool {
    event_key(key).is_some()
}

fn names_maintenance(w: &str) -> bool {
    w.to_ascii_lowercase().contains("maintenance")
}

/// `current_incident_type`, `incident_impact`: one word for what is open now.
fn is_current_incident_word(key: &str) -> bool {
    let words = key_words(key);
    words.iter().any(|w| w == "incident")
        && words
            .last()
            .is_some_and(|w| matches!(w.as_str(), "type" | "impact" | "severity" | "level"))
}

/// Fields that only incidents carry: Cachet's `human_status`, Statuspage's
/// `incident_updates`, an impact or an end.
fn looks_like_event(obj: &Map<String, Value>) -> bool {
    let fields = Fields(obj);
    let typed = fields.str("type").is_some_and(|t| event_key(t).is_some())
        || obj
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| event_key(t).is_some());
    typed
        || [
            "human_status",
            "incident_updates",
            "occurred_at",
            "begin",
            "started",
            "startedAt",
            "started_at",
        ]
        .iter()
        .chain(END_KEYS.iter())
        .chain(IMPACT_KEYS[..6].iter())
        .any(|k| fields.get(k).is_some())
}

/// A bare array or `data[]` is an event list when every item looks like an event.
pub(super) fn looks_like_event_list(items: &[Value]) -> bool {
    !items.is_empty()
        && items
            .iter()
            .take(MAX_ENTRIES)
            .all(|i| i.as_object().is_some_and(looks_like_event))
}

/// One event object: something with a title or a status to show.
fn looks_like_single_event(obj: &Map<String, Value>) -> bool {
    looks_like_event(obj)
        || ["title", "name", "message", "content", "status"]
            .iter()
            .any(|k| obj.get(*k).is_some_and(Value::is_string))
}

/// Whether a `data[]` item is an incident rather than a component: Cachet serves both
/// under `data`, and only its incidents carry a `message` and a `component_id`.
pub(super) fn is_incident_like(obj: &Map<String, Value>) -> bool {
    looks_like_event(obj) || obj.contains_key("message") || obj.contains_key("component_id")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_words_split_camel_and_snake_case() {
        assert_eq!(key_words("activeIncidents"), ["active", "incidents"]);
        assert_eq!(
            key_words("scheduled_maintenances"),
            ["scheduled", "maintenances"]
        );
        assert_eq!(key_words("MAJOR_INCIDENT"), ["major", "incident"]);
        assert_eq!(event_key("maintenanceList"), Some(Kind::Maintenance));
        assert_eq!(event_key("Incidents"), Some(Kind::Incident));
        assert_eq!(event_key("scheduled_maintenances"), Some(Kind::Planned));
        assert_eq!(event_key("components"), None);
        assert!(is_current_incident_word("current_incident_type"));
        assert!(!is_current_incident_word("incident_count"));
    }

    #[test]
    fn a_list_of_past_incidents_is_history_not_an_open_incident() {
        let outage = serde_json::json!([{"name": "API down", "impact": "critical"}]);
        for key in [
            "past_incidents",
            "previousOutages",
            "incident_history",
            "resolvedIncidents",
        ] {
            let doc = serde_json::json!({ key: outage.clone() });
            let e = read(&doc).expect("a recognised list");
            assert_eq!(e.health, Health::Healthy, "{key}");
        }
        // The same entry under a list of what is going on is open.
        let doc = serde_json::json!({ "incidents": outage });
        let e = read(&doc).expect("a recognised list");
        assert_eq!(e.health, Health::Down);
    }
}
