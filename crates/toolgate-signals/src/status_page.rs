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
    let root: Value = serde_json::from_slice(body).ok()?;
    let root = root.as_object()?;
    match root.get("status") {
        Some(Value::Object(status)) => return statuspage(root, status),
        Some(Value::String(s)) => return health(root, s),
        _ => {}
    }
    instatus(root)
        .or_else(|| better_stack(root))
        .or_else(|| status_io(root))
        .or_else(|| cachet(root))
        .or_else(|| incident_io(root))
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

fn word_health(s: &str) -> Health {
    match s.to_ascii_lowercase().as_str() {
        "pass" | "ok" | "up" => Health::Healthy,
        "warn" | "degraded" => Health::Degraded,
        "fail" | "error" | "down" | "out_of_service" => Health::Down,
        _ => Health::Unknown,
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
mod tests {
    use super::*;

    #[test]
    fn statuspage_status_json() {
        // Shape of https://www.githubstatus.com/api/v2/status.json
        let body = br#"{"page":{"id":"kctbh9vrtdwd","name":"GitHub","url":"https://www.githubstatus.com","updated_at":"2024-01-01T00:00:00Z"},"status":{"indicator":"minor","description":"Partially Degraded Service"}}"#;
        let s = parse(body).unwrap();
        assert_eq!(s.health, Health::Degraded);
        assert_eq!(s.indicator, "minor");
        assert_eq!(s.description.as_deref(), Some("Partially Degraded Service"));
        assert!(s.components.is_empty());
    }

    #[test]
    fn statuspage_summary_json_with_components() {
        let body = br#"{"page":{"id":"x"},"components":[
            {"id":"a","name":"API","status":"major_outage"},
            {"id":"b","name":"Webhooks","status":"operational"},
            {"id":"c","status":"operational"}],
            "incidents":[],"status":{"indicator":"critical","description":"Major System Outage"}}"#;
        let s = parse(body).unwrap();
        assert_eq!(s.health, Health::Down);
        assert_eq!(
            s.components,
            vec![
                ("API".to_owned(), "major_outage".to_owned()),
                ("Webhooks".to_owned(), "operational".to_owned())
            ]
        );
    }

    #[test]
    fn indicator_and_status_word_tables() {
        let indicators = [
            ("none", Health::Healthy),
            ("minor", Health::Degraded),
            ("major", Health::Degraded),
            ("maintenance", Health::Degraded),
            ("critical", Health::Down),
            ("sideways", Health::Unknown),
        ];
        for (indicator, want) in indicators {
            let body = format!(r#"{{"status":{{"indicator":"{indicator}","description":"d"}}}}"#);
            assert_eq!(parse(body.as_bytes()).unwrap().health, want, "{indicator}");
        }
        let words = [
            ("pass", Health::Healthy),
            ("warn", Health::Degraded),
            ("fail", Health::Down),
            ("UP", Health::Healthy),
            ("DOWN", Health::Down),
            ("OUT_OF_SERVICE", Health::Down),
            ("UNKNOWN", Health::Unknown),
        ];
        for (word, want) in words {
            let body = format!(r#"{{"status":"{word}"}}"#);
            assert_eq!(parse(body.as_bytes()).unwrap().health, want, "{word}");
        }
    }

    #[test]
    fn health_json_checks() {
        // Abridged from the draft's example.
        let body = br#"{"status":"warn","version":"1","description":"health of authz service",
            "checks":{"uptime":[{"componentType":"system","observedValue":1209600.245,"status":"pass"}],
            "cassandra:responseTime":[{"componentId":"dfd6cf2b","status":"warn"},{"componentId":"6fd416e0","status":"pass"}]}}"#;
        let s = parse(body).unwrap();
        assert_eq!(s.health, Health::Degraded);
        assert_eq!(s.description.as_deref(), Some("health of authz service"));
        assert_eq!(s.components.len(), 3);
        assert!(
            s.components
                .contains(&("cassandra:responseTime".to_owned(), "warn".to_owned()))
        );
    }

    #[test]
    fn spring_components() {
        let body = br#"{"status":"DOWN","components":{"db":{"status":"DOWN","details":{"error":"x"}},"ping":{"status":"UP"}}}"#;
        let s = parse(body).unwrap();
        assert_eq!(s.health, Health::Down);
        assert_eq!(s.components.len(), 2);
    }

    #[test]
    fn unrecognised_bodies() {
        for body in [
            &b""[..],
            b"<html>",
            b"[]",
            b"{}",
            b"{\"status\":5}",
            b"{\"status\":{}}",
            &[0xff],
        ] {
            assert_eq!(parse(body), None, "{:?}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn instatus_summary_json() {
        // https://instatus.com/help/api/public-data — the documented example response.
        let body = br#"{
"page": {"name": "Instatus", "url": "https://instat.us", "status": "HASISSUES"},
"activeIncidents": [{"name": "We're facing an issue with our API", "started": "Sat Jun 11 2022 18:55:50 GMT+0000 (Coordinated Universal Time)", "status": "INVESTIGATING", "impact": "MAJOROUTAGE", "url": "https://testing-widget.instatus.com/incident/cl4a8n3070721qtmzvts760c4"}],
"activeMaintenances": [{"name": "Database maintenance", "start": "Sat Jun 11 2022 18:55:54 GMT+0000 (Coordinated Universal Time)", "status": "NOTSTARTEDYET", "duration": "60", "url": "https://testing-widget.instatus.com/maintenance/cl4a8nlv50918qtmzdlw60ivu"}]
}"#;
        let s = parse(body).unwrap();
        assert_eq!(s.health, Health::Down);
        assert_eq!(s.indicator, "HASISSUES");
        assert_eq!(
            s.description.as_deref(),
            Some("We're facing an issue with our API")
        );
        assert_eq!(s.components.len(), 2);
        // The documented page statuses.
        for (status, want) in [
            ("UP", Health::Healthy),
            ("HASISSUES", Health::Degraded),
            ("UNDERMAINTENANCE", Health::Degraded),
            ("SOMEPARTIALOUTAGE", Health::Degraded),
            ("ALLMAJOROUTAGE", Health::Down),
            ("SIDEWAYS", Health::Unknown),
        ] {
            let body = format!(
                r#"{{"page":{{"name":"x","status":"{status}"}},"activeIncidents":[],"activeMaintenances":[]}}"#
            );
            let s = parse(body.as_bytes()).unwrap();
            assert_eq!((s.health, s.indicator.as_str()), (want, status), "{status}");
        }
    }

    #[test]
    fn better_stack_index_json() {
        // The documented index.json structure, with one resource in `included`.
        let body = br#"{"data":{"id":"165","type":"status_page","attributes":{"company_name":"Your Company","subdomain":"your-company-status","announcement":"Scheduled maintenance tonight at 2am EST","aggregate_state":"operational"},"relationships":{}},
            "included":[{"id":"1","type":"status_page_section","attributes":{"name":"Core"}},{"id":"2","type":"status_page_resource","attributes":{"public_name":"API","status":"operational"}}]}"#;
        let s = parse(body).unwrap();
        assert_eq!(s.health, Health::Healthy);
        assert_eq!(s.indicator, "operational");
        assert_eq!(
            s.description.as_deref(),
            Some("Scheduled maintenance tonight at 2am EST")
        );
        assert_eq!(
            s.components,
            vec![("API".to_owned(), "operational".to_owned())]
        );
        // The documented aggregate_state values.
        for (state, want) in [
            ("operational", Health::Healthy),
            ("degraded", Health::Degraded),
            ("downtime", Health::Down),
            ("maintenance", Health::Degraded),
        ] {
            let body = format!(
                r#"{{"data":{{"type":"status_page","attributes":{{"aggregate_state":"{state}"}}}}}}"#
            );
            assert_eq!(parse(body.as_bytes()).unwrap().health, want, "{state}");
        }
    }

    #[test]
    fn status_io_public_status_api() {
        // https://kb.status.io/developers/public-status-api — the documented example.
        let body = br#"{ "result":
{ "status_overall":
{ "updated": "2016-01-29T22:57:03.079Z",
"status": "Operational",
"status_code": 100
},
"status": [
{ "id": "56a807c7b62d59d808000010",
"name": "Website",
"updated": "2016-01-29T22:57:03.079Z",
"status": "Operational",
"status_code": 100,
"containers": [
{ "id": "56a807c7b62d59d808000012", "name": "US-West", "updated": "2016-01-29T22:55:53.004Z", "status": "Operational", "status_code": 100 },
{ "id": "56a807c7b62d59d808000013", "name": "US-East", "updated": "2016-01-29T22:55:53.004Z", "status": "Operational", "status_code": 100 }
]
}
],
"incidents": [],
"maintenance": { "active": [], "upcoming": [] }
}
}"#;
        let s = parse(body).unwrap();
        assert_eq!(s.health, Health::Healthy);
        assert_eq!(s.indicator, "Operational");
        assert_eq!(
            s.components,
            vec![("Website".to_owned(), "Operational".to_owned())]
        );
        // The detailed example's "Planned Maintenance" (200), and words for other codes.
        for (status, code, want) in [
            ("Planned Maintenance", 200, Health::Degraded),
            ("Degraded Performance", 300, Health::Degraded),
            ("Partial Service Disruption", 400, Health::Degraded),
            ("Service Disruption", 500, Health::Down),
            ("Security Event", 600, Health::Degraded),
            ("Mystery", 700, Health::Unknown),
        ] {
            let body = format!(
                r#"{{"result":{{"status_overall":{{"status":"{status}","status_code":{code}}},"status":[]}}}}"#
            );
            assert_eq!(parse(body.as_bytes()).unwrap().health, want, "{status}");
        }
    }

    #[test]
    fn cachet_components() {
        // Cachet's API docs (components): the first API's example, status name + id.
        let body = br#"{"data": [
{"updated_at": 1420029799, "created_at": 1420029577, "incident_count": 0, "status": "Operational", "status_id": 1, "description": "This is an example component", "name": "Example Component", "id": 5},
{"updated_at": 1420037024, "created_at": 1420037024, "incident_count": 0, "status": "Major Outage", "status_id": 4, "description": "This is a second example component", "name": "Second Example Components", "id": 2}
]}"#;
        let s = parse(body).unwrap();
        assert_eq!(s.health, Health::Degraded);
        assert_eq!(s.indicator, "Major Outage");
        assert_eq!(
            s.components,
            vec![
                ("Example Component".to_owned(), "Operational".to_owned()),
                (
                    "Second Example Components".to_owned(),
                    "Major Outage".to_owned()
                )
            ]
        );
        // The v2 shape: numeric status with status_name.
        let table = [
            (vec![1, 1], Health::Healthy),
            (vec![1, 2], Health::Degraded),
            (vec![3, 1], Health::Degraded),
            (vec![4, 4], Health::Down),
        ];
        for (levels, want) in table {
            let items: Vec<String> = levels
                .iter()
                .map(|l| format!(r#"{{"id":1,"name":"c","status":{l},"status_name":"n{l}"}}"#))
                .collect();
            let body = format!(r#"{{"data":[{}],"meta":{{}}}}"#, items.join(","));
            assert_eq!(parse(body.as_bytes()).unwrap().health, want, "{levels:?}");
        }
        // Not Cachet: statuses outside 1..=4, or no components at all.
        assert_eq!(parse(br#"{"data":[{"name":"c","status":9}]}"#), None);
        assert_eq!(parse(br#"{"data":[]}"#), None);
    }

    #[test]
    fn incident_io_widget_api() {
        // The documented three arrays; entries with name, status, affected components.
        let quiet = br#"{"ongoing_incidents":[],"in_progress_maintenances":[],"scheduled_maintenances":[]}"#;
        let s = parse(quiet).unwrap();
        assert_eq!(
            (s.health, s.indicator.as_str()),
            (Health::Healthy, "operational")
        );
        let incident = br#"{"ongoing_incidents":[{"id":"01H","name":"Elevated API latency","status":"investigating","url":"https://status.example.com/incidents/01H","last_update_message":"Looking into it","current_worst_impact":"degraded_performance","affected_components":[{"id":"01C","name":"API","group_name":"Core"}]}],"in_progress_maintenances":[],"scheduled_maintenances":[]}"#;
        let s = parse(incident).unwrap();
        assert_eq!(s.health, Health::Degraded);
        assert_eq!(s.indicator, "degraded_performance");
        assert_eq!(s.description.as_deref(), Some("Elevated API latency"));
        assert_eq!(
            s.components,
            vec![("API".to_owned(), "degraded_performance".to_owned())]
        );
        let outage = br#"{"ongoing_incidents":[{"name":"Down","status":"identified","current_worst_impact":"full_outage","affected_components":[]}],"in_progress_maintenances":[]}"#;
        assert_eq!(parse(outage).unwrap().health, Health::Down);
        let maintenance = br#"{"ongoing_incidents":[],"in_progress_maintenances":[{"name":"DB upgrade","status":"maintenance_in_progress","affected_components":[{"name":"DB"}]}]}"#;
        let s = parse(maintenance).unwrap();
        assert_eq!(
            (s.health, s.indicator.as_str()),
            (Health::Degraded, "in_progress_maintenance")
        );
    }
}
