//! Status-page and health-endpoint bodies: how healthy does the dependency say it is?
//!
//! Sources:
//! - Atlassian Statuspage v2 (<https://metastatuspage.com/api/v2>): `status.json` and
//!   `summary.json` carry `status.indicator` (`none`, `minor`, `major`, `critical`,
//!   plus `maintenance`) and `status.description`; `summary.json` adds `components[]`
//!   with `operational`, `degraded_performance`, `partial_outage`, `major_outage`,
//!   `under_maintenance`.
//! - `application/health+json` (draft-inadarei-api-health-check): top-level `status`
//!   `pass`/`warn`/`fail` (aliases `ok`/`up`, `error`/`down`) and `checks` keyed by
//!   `component:measurement`, each an array of objects with a `status`.
//! - Spring Boot Actuator `/actuator/health`
//!   (<https://docs.spring.io/spring-boot/api/rest/actuator/health.html>): `status`
//!   `UP`/`DOWN`/`OUT_OF_SERVICE`/`UNKNOWN` and optional `components`.
//! - Instatus `summary.json` (<https://instatus.com/help/api/public-data>): `page.status`
//!   `UP` / `HASISSUES` / `UNDERMAINTENANCE`, with `activeIncidents[]` (`name`, `status`,
//!   `impact` such as `MAJOROUTAGE`) and `activeMaintenances[]`. The authenticated API
//!   (<https://instatus.com/help/api>) also lists finer page statuses
//!   (`ALLMAJOROUTAGE`, `SOMEPARTIALOUTAGE`, …), mapped by their words.
//! - Better Stack `index.json`
//!   (<https://betterstack.com/docs/uptime/status-pages/subscribing-to-status-updates/subscribing-to-api>):
//!   JSON:API, `data.attributes.aggregate_state` `operational` / `degraded` / `downtime` /
//!   `maintenance`, resources in `included[]` of type `status_page_resource` with a
//!   `status` (same words plus `not_monitored`).
//! - status.io Public Status API (<https://kb.status.io/developers/public-status-api>):
//!   `result.status_overall` `{status, status_code}` (`Operational` 100, `Planned
//!   Maintenance` 200 in the documented examples) and `result.status[]` components.
//!   Other codes are not listed on that page, so health is read from the status words.
//! - Cachet `GET /api/v1/components` (Cachet's API docs and its component-status table:
//!   1 Operational, 2 Performance issues, 3 Partial Outage, 4 Major outage): `data[]` with
//!   `name`, `status` (the number, or in the oldest API the name with `status_id`) and
//!   `status_name`. Cachet has no overall status: all components at 4 is down, any
//!   above 1 is degraded.
//! - incident.io status-page widget API
//!   (<https://docs.incident.io/status-pages/widget-api>): three arrays,
//!   `ongoing_incidents`, `in_progress_maintenances` and `scheduled_maintenances`, each
//!   entry with `name`, `status` and `affected_components`. Nothing ongoing is healthy;
//!   an ongoing incident or maintenance is degraded, and an incident whose
//!   `current_worst_impact` is `full_outage` is down (that field and value are from
//!   client type definitions, not from incident.io's page).
//!
//! The format is detected from the shape; `None` when the body is none of them. The raw
//! overall value is kept in [`PageStatus::indicator`] to show as is.

use serde_json::{Map, Value};

mod text;

/// At most this many components are kept from one page; the rest are noise for a model.
const MAX_COMPONENTS: usize = 64;

/// How healthy the dependency says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Health {
    /// Fully operational.
    Healthy,
    /// Working with reduced quality, partially, or under maintenance.
    Degraded,
    /// Not working.
    Down,
    /// Reported, but in a value this parser does not know.
    Unknown,
}

/// What a status page or health endpoint reports.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PageStatus {
    /// Overall health.
    pub health: Health,
    /// The raw overall indicator (`none`, `major`, `pass`, `UP`, …).
    pub indicator: String,
    /// The human-readable summary, when given.
    pub description: Option<String>,
    /// `(component name, raw component status)` pairs, in document order.
    pub components: Vec<(String, String)>,
}

/// Parses a status body, detecting the format. `None` for anything unrecognised.
///
/// ```
/// use toolgate_signals::status_page::{Health, parse};
/// let s = parse(br#"{"status":"UP"}"#).unwrap();
/// assert_eq!(s.health, Health::Healthy);
/// ```
#[must_use]
pub fn parse(body: &[u8]) -> Option<PageStatus> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        // Probes answer in a word or a sentence: `OK`, `LIVE`, `Ok.`, "Prometheus
        // Server is Healthy.".
        Err(_) => return text::parse(body),
    };
    // Apache Druid's `/status/health` answers a bare JSON `true`.
    if let Value::Bool(up) = value {
        return Some(PageStatus {
            health: if up { Health::Healthy } else { Health::Down },
            indicator: up.to_string(),
            description: None,
            components: Vec::new(),
        });
    }
    let known = value.as_object().and_then(|root| match root.get("status") {
        Some(Value::Object(status)) => statuspage(root, status),
        Some(Value::String(s)) => health(root, s),
        _ => instatus(root)
            .or_else(|| better_stack(root))
            .or_else(|| status_io(root))
            .or_else(|| cachet(root))
            .or_else(|| incident_io(root)),
    });
    match known {
        Some(p) if p.health != Health::Unknown => Some(p),
        // Not a known format, or a word it does not know: read the vocabulary.
        other => generic(&value).or(other),
    }
}

/// Atlassian Statuspage v2.
fn statuspage(root: &Map<String, Value>, status: &Map<String, Value>) -> Option<PageStatus> {
    let indicator = status.get("indicator")?.as_str()?.to_owned();
    let health = match indicator.to_ascii_lowercase().as_str() {
        "none" => Health::Healthy,
        "minor" | "major" | "maintenance" => Health::Degraded,
        "critical" => Health::Down,
        _ => Health::Unknown,
    };
    let components = root
        .get("components")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|c| {
                    Some((
                        c.get("name")?.as_str()?.to_owned(),
                        c.get("status")?.as_str()?.to_owned(),
                    ))
                })
                .take(MAX_COMPONENTS)
                .collect()
        })
        .unwrap_or_default();
    Some(PageStatus {
        health,
        indicator,
        description: text(status.get("description")),
        components,
    })
}

/// `application/health+json` and Spring Boot Actuator.
fn health(root: &Map<String, Value>, status: &str) -> Option<PageStatus> {
    let mut components = Vec::new();
    // health+json: "checks": {"db:responseTime": [{"status": "pass"}, ...]}
    if let Some(checks) = root.get("checks").and_then(Value::as_object) {
        for (name, entries) in checks {
            let entries = entries.as_array().map(Vec::as_slice).unwrap_or_default();
            for e in entries {
                if let Some(s) = e.get("status").and_then(Value::as_str) {
                    components.push((name.clone(), s.to_owned()));
                }
            }
        }
    }
    // Spring: "components": {"db": {"status": "UP"}, ...}
    if let Some(parts) = root.get("components").and_then(Value::as_object) {
        for (name, part) in parts {
            if let Some(s) = part.get("status").and_then(Value::as_str) {
                components.push((name.clone(), s.to_owned()));
            }
        }
    }
    components.truncate(MAX_COMPONENTS);
    Some(PageStatus {
        health: word_health(status),
        indicator: status.to_owned(),
        description: text(root.get("description")).or_else(|| text(root.get("output"))),
        components,
    })
}

/// The health a status word says, in the common vocabularies: Statuspage component
/// states, green/yellow/red (Elasticsearch, Heroku), pass/warn/fail
/// (`application/health+json`), passing/warning/critical (Consul), UP/DOWN (Spring,
/// MicroProfile), Healthy/Degraded/Unhealthy (ASP.NET Core), ok/failed (RabbitMQ),
/// Available/Degraded/Unavailable (Azure Resource Health), true/false (etcd),
/// working (django-health-check), OK/Partially Available/Unavailable (health-go).
/// A word followed by a reason (`unavailable: Database error`, as django-health-check
/// reports a failed check) is read by the word before the colon.
pub(crate) fn word_health(s: &str) -> Health {
    match bare_word_health(s) {
        Health::Unknown => s
            .split_once(':')
            .map_or(Health::Unknown, |(word, _)| bare_word_health(word)),
        h => h,
    }
}

fn bare_word_health(s: &str) -> Health {
    let n: String = s
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .take(40)
        .collect();
    match n.as_str() {
        "pass"
        | "passing"
        | "passed"
        | "ok"
        | "up"
        | "green"
        | "healthy"
        | "operational"
        | "available"
        | "online"
        | "true"
        | "good"
        | "ready"
        | "live"
        | "running"
        | "working"
        | "allsystemsoperational" => Health::Healthy,
        "warn"
        | "warning"
        | "degraded"
        | "yellow"
        | "amber"
        | "degradedperformance"
        | "partialoutage"
        | "partial"
        | "maintenance"
        | "undermaintenance"
        | "hasissues"
        | "minor"
        | "impaired"
        | "performanceissues"
        | "partiallyavailable"
        | "partiallydegraded"
        | "limited" => Health::Degraded,
        "fail" | "failed" | "failure" | "failing" | "error" | "down" | "critical" | "red"
        | "unhealthy" | "majoroutage" | "outage" | "unavailable" | "false" | "outofservice"
        | "downtime" | "offline" | "fatal" => Health::Down,
        _ => Health::Unknown,
    }
}

/// The worse of two healths; `Unknown` loses to any reading.
fn worse(a: Health, b: Health) -> Health {
    let rank = |h: Health| match h {
        Health::Unknown => 0,
        Health::Healthy => 1,
        Health::Degraded => 2,
        Health::Down => 3,
    };
    if rank(b) > rank(a) { b } else { a }
}

/// Keys that carry an overall health word.
fn status_key(k: &str) -> bool {
    let n: String = k
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    matches!(
        n.as_str(),
        "status"
            | "state"
            | "health"
            | "overall"
            | "overallstatus"
            | "availabilitystate"
            | "condition"
            | "level"
    )
}

/// Any JSON whose fields carry a health vocabulary: an overall status word (at the top
/// or in a `properties`/`data`/`result` object), health booleans (`healthy`, `sealed`),
/// or, failing those, lists and maps of components or checks, where the worst one
/// wins (a Nagios-style numeric `state` 0/1/2 counts as OK/WARNING/CRITICAL).
fn generic(root: &Value) -> Option<PageStatus> {
    let mut overall: Option<(Health, String)> = None;
    let mut components: Vec<(String, String)> = Vec::new();
    let mut worst = Health::Unknown;
    match root {
        Value::Object(map) => {
            overall_of(map, 0, &mut overall);
            for (k, v) in map.iter().take(MAX_COMPONENTS) {
                collect_components(k, v, &mut components, &mut worst);
            }
        }
        Value::Array(_) => collect_components("checks", root, &mut components, &mut worst),
        _ => return None,
    }
    components.truncate(MAX_COMPONENTS);
    let (health, indicator) = match overall {
        Some((h, word)) if h != Health::Unknown => (h, word),
        _ if worst != Health::Unknown => (worst, format!("{worst:?}").to_ascii_lowercase()),
        _ => {
            // Last: top-level fields whose values are health words (`"database": "ok"`),
            // only in a flat document: one that also holds lists or objects this reader
            // could not read (UptimeRobot's `"stat": "ok"` beside numeric monitor
            // states) says nothing healthy by its one word.
            let map = root.as_object()?;
            if map.values().any(|v| v.is_object() || v.is_array()) {
                return None;
            }
            let mut h = Health::Unknown;
            for v in map.values().take(MAX_COMPONENTS) {
                if let Some(s) = v.as_str() {
                    h = worse(h, word_health(s));
                }
            }
            if h == Health::Unknown {
                return None;
            }
            (h, format!("{h:?}").to_ascii_lowercase())
        }
    };
    Some(PageStatus {
        health,
        indicator,
        description: None,
        components,
    })
}

/// Boolean field names that say, by themselves, whether something is up.
const FLAGS: [&str; 9] = [
    "healthy",
    "ok",
    "up",
    "available",
    "ready",
    "live",
    "sealed",
    "down",
    "degraded",
];

/// The overall word of an object, looked for in it and in a few wrapper objects.
fn overall_of(map: &Map<String, Value>, depth: usize, out: &mut Option<(Health, String)>) {
    if depth > 2 || out.is_some() {
        return;
    }
    for (k, v) in map {
        if status_key(k)
            && let Some(s) = v.as_str()
        {
            let h = word_health(s);
            if h != Health::Unknown {
                *out = Some((h, s.to_owned()));
                return;
            }
        }
        // Kibana: `"status": {"overall": {"level": "available"}}`.
        if status_key(k)
            && let Some(inner) = v.as_object()
        {
            overall_of(inner, depth + 1, out);
            if out.is_some() {
                return;
            }
        }
        // `is_healthy` (Redpanda) is the `healthy` flag.
        let lower = k.to_ascii_lowercase();
        let n = lower
            .strip_prefix("is_")
            .or_else(|| lower.strip_prefix("is"))
            .filter(|rest| FLAGS.contains(rest))
            .unwrap_or(&lower);
        // `{"ok": 1}` (MongoDB's ping) is a flag too.
        let flag = v.as_bool().or_else(|| match v.as_u64() {
            Some(1) if n == "ok" => Some(true),
            Some(0) if n == "ok" => Some(false),
            _ => None,
        });
        let h = match (n, flag) {
            ("healthy" | "ok" | "up" | "available" | "ready" | "live", Some(true)) => {
                Health::Healthy
            }
            ("healthy" | "ok" | "up" | "available" | "ready" | "live", Some(false))
            | ("sealed" | "down", Some(true))
            | ("initialized", Some(false)) => Health::Down,
            ("degraded", Some(true)) => Health::Degraded,
            _ => Health::Unknown,
        };
        if h != Health::Unknown {
            // A `sealed: true` outweighs an earlier `initialized: true`.
            let prev = out.as_ref().map_or(Health::Unknown, |(p, _)| *p);
            *out = Some((worse(prev, h), k.clone()));
            if h == Health::Down {
                return;
            }
        }
    }
    if out.is_some() {
        return;
    }
    for key in ["properties", "data", "result", "attributes", "page"] {
        if let Some(inner) = map.get(key).and_then(Value::as_object) {
            overall_of(inner, depth + 1, out);
        }
    }
    if out.is_some() || depth > 0 {
        return;
    }
    // Per-role objects with their own flags (Nomad's `client` and `server`): the
    // worst one wins.
    let mut worst: Option<(Health, String)> = None;
    for inner in map
        .values()
        .filter_map(Value::as_object)
        .take(MAX_COMPONENTS)
    {
        let mut found = None;
        overall_of(inner, depth + 1, &mut found);
        if let Some((h, w)) = found {
            let prev = worst.as_ref().map_or(Health::Unknown, |(p, _)| *p);
            if worse(prev, h) != prev || worst.is_none() {
                worst = Some((h, w));
            }
        }
    }
    *out = worst;
}

/// Components or checks: an array of objects with a status, or a map of name → object
/// with a status.
fn collect_components(key: &str, v: &Value, out: &mut Vec<(String, String)>, worst: &mut Health) {
    let mut one = |name: String, entry: &Value| {
        let Some(obj) = entry.as_object() else {
            return;
        };
        for (k, s) in obj {
            if !status_key(k) {
                continue;
            }
            let (h, raw) = match s {
                Value::String(w) => (word_health(w), w.clone()),
                // Nagios plugin return codes.
                Value::Number(n) if k.eq_ignore_ascii_case("state") => match n.as_u64() {
                    Some(0) => (Health::Healthy, "OK".to_owned()),
                    Some(1) => (Health::Degraded, "WARNING".to_owned()),
                    Some(2) => (Health::Down, "CRITICAL".to_owned()),
                    _ => (Health::Unknown, n.to_string()),
                },
                _ => continue,
            };
            *worst = worse(*worst, h);
            if out.len() < MAX_COMPONENTS {
                out.push((name.clone(), raw));
            }
            return;
        }
    };
    let label = |entry: &Value, fallback: &str| {
        ["name", "Name", "system", "CheckID", "id", "component"]
            .iter()
            .find_map(|k| entry.get(*k).and_then(Value::as_str))
            .map_or_else(|| fallback.to_owned(), str::to_owned)
    };
    match v {
        Value::Array(items) => {
            for entry in items.iter().take(MAX_COMPONENTS) {
                one(label(entry, key), entry);
            }
        }
        Value::Object(map)
            if matches!(
                key,
                "components" | "checks" | "entries" | "services" | "details"
            ) =>
        {
            for (name, entry) in map.iter().take(MAX_COMPONENTS) {
                one(name.clone(), entry);
            }
        }
        _ => {}
    }
}

/// Parses what a status page or health endpoint answered, status included: a health
/// endpoint that answers 503 says it is down, whatever its body (Spring Boot,
/// MicroProfile, ASP.NET Core, Kubernetes `/readyz`, Vault and RabbitMQ all do), so a
/// 503 is never read as healthy, and a 503 with an unreadable body is still `Down`.
#[must_use]
pub fn parse_response(status: u16, body: &[u8]) -> Option<PageStatus> {
    match parse(body) {
        Some(p) if status == 503 && matches!(p.health, Health::Healthy | Health::Unknown) => {
            Some(PageStatus {
                health: Health::Down,
                ..p
            })
        }
        Some(p) => Some(p),
        None if status == 503 => {
            let text = String::from_utf8_lossy(&body[..body.len().min(512)]);
            let first = text.lines().map(str::trim).find(|l| !l.is_empty());
            Some(PageStatus {
                health: Health::Down,
                indicator: "HTTP 503".to_owned(),
                description: first.map(|l| l.chars().take(120).collect()),
                components: Vec::new(),
            })
        }
        None => None,
    }
}

/// Instatus `summary.json`: `{"page": {"status": "UP"}, "activeIncidents": [...]}`.
fn instatus(root: &Map<String, Value>) -> Option<PageStatus> {
    let page = root.get("page")?.as_object()?;
    let indicator = page.get("status")?.as_str()?.to_owned();
    let incidents = list(root, "activeIncidents");
    let upper = indicator.to_ascii_uppercase();
    let major = incidents.iter().any(|i| {
        i.get("impact")
            .and_then(Value::as_str)
            .is_some_and(|m| m.eq_ignore_ascii_case("MAJOROUTAGE"))
    });
    let health = match upper.as_str() {
        "UP" => Health::Healthy,
        "ALLMAJOROUTAGE" => Health::Down,
        "HASISSUES" if major => Health::Down,
        "HASISSUES" | "UNDERMAINTENANCE" => Health::Degraded,
        u if u.contains("OUTAGE") || u.contains("DEGRADED") || u.contains("MAINTENANCE") => {
            Health::Degraded
        }
        _ => Health::Unknown,
    };
    let mut components: Vec<(String, String)> = incidents
        .iter()
        .chain(list(root, "activeMaintenances").iter())
        .filter_map(|i| {
            Some((
                i.get("name")?.as_str()?.to_owned(),
                i.get("status")?.as_str()?.to_owned(),
            ))
        })
        .collect();
    components.truncate(MAX_COMPONENTS);
    Some(PageStatus {
        health,
        indicator,
        description: incidents.iter().find_map(|i| text(i.get("name"))),
        components,
    })
}

/// Better Stack `index.json` (JSON:API).
fn better_stack(root: &Map<String, Value>) -> Option<PageStatus> {
    let data = root.get("data")?.as_object()?;
    let attributes = data.get("attributes")?.as_object()?;
    let indicator = attributes.get("aggregate_state")?.as_str()?.to_owned();
    let health = match indicator.to_ascii_lowercase().as_str() {
        "operational" => Health::Healthy,
        "degraded" | "maintenance" => Health::Degraded,
        "downtime" => Health::Down,
        _ => Health::Unknown,
    };
    let mut components: Vec<(String, String)> = list(root, "included")
        .iter()
        .filter(|r| r.get("type").and_then(Value::as_str) == Some("status_page_resource"))
        .filter_map(|r| {
            let a = r.get("attributes")?;
            let name = ["public_name", "name", "resource_name"]
                .iter()
                .find_map(|k| text(a.get(*k)))?;
            Some((name, a.get("status")?.as_str()?.to_owned()))
        })
        .collect();
    components.truncate(MAX_COMPONENTS);
    Some(PageStatus {
        health,
        indicator,
        description: text(attributes.get("announcement")),
        components,
    })
}

/// status.io: `{"result": {"status_overall": {"status": "Operational", "status_code": 100}}}`.
fn status_io(root: &Map<String, Value>) -> Option<PageStatus> {
    let result = root.get("result")?.as_object()?;
    let overall = result.get("status_overall")?.as_object()?;
    let indicator = overall.get("status")?.as_str()?.to_owned();
    let code = overall.get("status_code").and_then(Value::as_u64);
    let health = match code {
        Some(100) => Health::Healthy,
        Some(200) => Health::Degraded,
        _ => status_words(&indicator),
    };
    let mut components = Vec::new();
    for c in list(result, "status") {
        if let (Some(name), Some(st)) = (text(c.get("name")), text(c.get("status"))) {
            components.push((name, st));
        }
    }
    components.truncate(MAX_COMPONENTS);
    Some(PageStatus {
        health,
        indicator,
        description: None,
        components,
    })
}

/// Health from a status phrase: "Operational", "Degraded Performance", "Service
/// Disruption", "Major Outage", …
fn status_words(s: &str) -> Health {
    let s = s.to_ascii_lowercase();
    if s == "operational" || s.starts_with("all systems operational") {
        Health::Healthy
    } else if s.contains("partial")
        || s.contains("degraded")
        || s.contains("maintenance")
        || s.contains("performance")
        || s.contains("security")
    {
        Health::Degraded
    } else if s.contains("outage") || s.contains("disruption") || s.contains("down") {
        Health::Down
    } else {
        Health::Unknown
    }
}

/// Cachet `GET /api/v1/components`: `{"data": [{"name": "API", "status": 1, ...}]}`.
fn cachet(root: &Map<String, Value>) -> Option<PageStatus> {
    let data = root.get("data")?.as_array()?;
    let mut levels = Vec::new();
    let mut components = Vec::new();
    for c in data {
        let c = c.as_object()?;
        // The number is `status` (v2) or `status_id` (the first API's docs).
        let level = c
            .get("status_id")
            .and_then(Value::as_u64)
            .or_else(|| c.get("status").and_then(Value::as_u64))?;
        let shown = text(c.get("status_name"))
            .or_else(|| text(c.get("status")))
            .unwrap_or_else(|| level.to_string());
        levels.push(level);
        let name = text(c.get("name"))?;
        if components.len() < MAX_COMPONENTS {
            components.push((name, shown));
        }
    }
    if levels.is_empty() || levels.iter().any(|l| !(1..=4).contains(l)) {
        return None;
    }
    let worst = levels.iter().copied().max().unwrap_or(1);
    let health = if levels.iter().all(|l| *l == 4) {
        Health::Down
    } else if worst > 1 {
        Health::Degraded
    } else {
        Health::Healthy
    };
    let indicator = match worst {
        1 => "Operational",
        2 => "Performance Issues",
        3 => "Partial Outage",
        _ => "Major Outage",
    };
    Some(PageStatus {
        health,
        indicator: indicator.to_owned(),
        description: None,
        components,
    })
}

/// incident.io widget API: `{"ongoing_incidents": [...], "in_progress_maintenances": [...]}`.
fn incident_io(root: &Map<String, Value>) -> Option<PageStatus> {
    let incidents = root.get("ongoing_incidents")?.as_array()?;
    let maintenances = list(root, "in_progress_maintenances");
    let impacts: Vec<&str> = incidents
        .iter()
        .filter_map(|i| i.get("current_worst_impact").and_then(Value::as_str))
        .collect();
    let (health, indicator) = if impacts
        .iter()
        .any(|i| i.eq_ignore_ascii_case("full_outage"))
    {
        (Health::Down, "full_outage".to_owned())
    } else if !incidents.is_empty() {
        let worst = impacts
            .iter()
            .find(|i| i.eq_ignore_ascii_case("partial_outage"))
            .or(impacts.first())
            .map_or("ongoing_incident", |i| *i);
        (Health::Degraded, worst.to_owned())
    } else if !maintenances.is_empty() {
        (Health::Degraded, "in_progress_maintenance".to_owned())
    } else {
        (Health::Healthy, "operational".to_owned())
    };
    let mut components = Vec::new();
    for event in incidents.iter().chain(maintenances.iter()) {
        let status = text(event.get("current_worst_impact"))
            .or_else(|| text(event.get("status")))
            .unwrap_or_default();
        for c in event
            .get("affected_components")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            if let Some(name) = text(c.get("name")).filter(|_| components.len() < MAX_COMPONENTS) {
                components.push((name, status.clone()));
            }
        }
    }
    Some(PageStatus {
        health,
        indicator,
        description: incidents
            .iter()
            .chain(maintenances.iter())
            .find_map(|i| text(i.get("name"))),
        components,
    })
}

/// The array at `key`, or nothing.
fn list<'a>(obj: &'a Map<String, Value>, key: &str) -> &'a [Value] {
    obj.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn text(v: Option<&Value>) -> Option<String> {
    v?.as_str().filter(|s| !s.is_empty()).map(str::to_owned)
}

#[cfg(test)]
mod tests;
