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
//!
//! The format is detected from the shape; `None` when the body is none of them.

use serde_json::{Map, Value};

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
    match root.get("status")? {
        Value::Object(status) => statuspage(root, status),
        Value::String(s) => health(root, s),
        _ => None,
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
}
