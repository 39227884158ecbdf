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
    let quiet =
        br#"{"ongoing_incidents":[],"in_progress_maintenances":[],"scheduled_maintenances":[]}"#;
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

#[test]
fn overall_words_nested_in_status_objects() {
    // Kibana's `/api/status`: status.overall.level, and the legacy status.overall.state.
    let h = |b: &str| parse(b.as_bytes()).map(|p| p.health);
    assert_eq!(
        h(r#"{"status":{"overall":{"level":"degraded","summary":"1 service is degraded"}}}"#),
        Some(Health::Degraded)
    );
    assert_eq!(
        h(r#"{"name":"kibana","status":{"overall":{"state":"red"}}}"#),
        Some(Health::Down)
    );
}

#[test]
fn is_prefixed_flags_and_words_with_reasons() {
    let h = |b: &str| parse(b.as_bytes()).map(|p| p.health);
    // Redpanda's health overview.
    assert_eq!(
        h(r#"{"is_healthy":true,"nodes_down":[]}"#),
        Some(Health::Healthy)
    );
    assert_eq!(
        h(r#"{"is_healthy":false,"nodes_down":[2]}"#),
        Some(Health::Down)
    );
    // `isolated` is not a flag name with `is` in front.
    assert_eq!(h(r#"{"isolated":true}"#), None);
    // django-health-check: "working", or the failure class before a colon.
    assert_eq!(
        h(r#"{"DatabaseBackend":"working","CacheBackend":"working"}"#),
        Some(Health::Healthy)
    );
    assert_eq!(
        h(r#"{"DatabaseBackend":"unavailable: Database error","CacheBackend":"working"}"#),
        Some(Health::Down)
    );
    // health-go.
    assert_eq!(
        h(r#"{"status":"Partially Available"}"#),
        Some(Health::Degraded)
    );
    // Apache Druid's bare boolean.
    assert_eq!(h("true"), Some(Health::Healthy));
    assert_eq!(h("false"), Some(Health::Down));
}

#[test]
fn a_lone_word_beside_unreadable_lists_says_nothing() {
    // UptimeRobot: `stat` says the call worked; the monitors' numeric states are not
    // health words, so the document is not read as healthy.
    let body = br#"{"stat":"ok","monitors":[{"id":1,"status":9}]}"#;
    assert_eq!(parse(body), None);
    // A flat map of health words is still read (Grafana's `/api/health`).
    let flat = br#"{"commit":"abc","database":"ok","version":"11.0.0"}"#;
    assert_eq!(parse(flat).map(|p| p.health), Some(Health::Healthy));
}
