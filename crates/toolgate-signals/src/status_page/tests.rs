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
    // One check failing beside a working one; django-health-check answers 500 then,
    // which `read_response` reads as down.
    assert_eq!(
        h(r#"{"DatabaseBackend":"unavailable: Database error","CacheBackend":"working"}"#),
        Some(Health::Degraded)
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
    // UptimeRobot: `stat` says the call worked, never that the service is healthy; the
    // monitors' numbers are read on UptimeRobot's scale (9 is down, `scale.rs`).
    let body = br#"{"stat":"ok","monitors":[{"id":1,"status":9}]}"#;
    assert_eq!(parse(body).map(|p| p.health), Some(Health::Down));
    // The same word beside numbers whose scale nothing names says nothing.
    let body = br#"{"result":"ok","monitors":[{"id":1,"status":9}]}"#;
    assert_eq!(parse(body), None);
    // A flat map of health words is still read (Grafana's `/api/health`).
    let flat = br#"{"commit":"abc","database":"ok","version":"11.0.0"}"#;
    assert_eq!(parse(flat).map(|p| p.health), Some(Health::Healthy));
}

/// The health `parse` reads, or `None`.
fn health_of(body: &str) -> Option<Health> {
    parse(body.as_bytes()).map(|p| p.health)
}

#[test]
fn statuspage_open_incident_and_maintenance_lists() {
    // incidents/unresolved.json: an open incident of major impact. Statuspage colours a
    // major impact orange, a partial outage, as it does the `major` page indicator
    // ("Partial System Outage"): degraded, as that indicator is read.
    let unresolved = r#"{"page":{"id":"kctbh9vrtdwd","name":"Acme"},"incidents":[
        {"id":"i1","name":"Elevated API error rates","status":"investigating","impact":"major",
         "components":[{"name":"API","status":"partial_outage"}],
         "incident_updates":[{"status":"investigating","body":"We are investigating."}]}]}"#;
    let s = parse(unresolved.as_bytes()).unwrap();
    assert_eq!(
        (s.health, s.indicator.as_str()),
        (Health::Degraded, "major")
    );
    assert_eq!(s.description.as_deref(), Some("Elevated API error rates"));
    assert_eq!(
        s.components,
        vec![("Elevated API error rates".to_owned(), "major".to_owned())]
    );
    let minor = unresolved.replace(r#""impact":"major""#, r#""impact":"minor""#);
    assert_eq!(health_of(&minor), Some(Health::Degraded));
    // Red, a major outage, is the critical impact.
    let critical = unresolved.replace(r#""impact":"major""#, r#""impact":"critical""#);
    assert_eq!(health_of(&critical), Some(Health::Down));
    // Nothing unresolved is healthy.
    assert_eq!(
        health_of(r#"{"page":{"id":"x"},"incidents":[]}"#),
        Some(Health::Healthy)
    );
    // incidents.json keeps history: resolved and postmortem entries are not open.
    let history = r#"{"page":{"id":"x"},"incidents":[
        {"name":"Old","status":"resolved","impact":"critical","resolved_at":"2025-04-01T12:00:00Z"},
        {"name":"Older","status":"postmortem","impact":"major"}]}"#;
    assert_eq!(health_of(history), Some(Health::Healthy));
    // scheduled-maintenances/active.json: in progress is degraded whatever the impact.
    let active = r#"{"page":{"id":"x"},"scheduled_maintenances":[{"id":"m1","name":"Database upgrade",
        "status":"in_progress","impact":"critical","components":[{"name":"API","status":"under_maintenance"}]}]}"#;
    let s = parse(active.as_bytes()).unwrap();
    assert_eq!(s.health, Health::Degraded);
    assert_eq!(s.description.as_deref(), Some("Database upgrade"));
    // scheduled-maintenances/upcoming.json: planned work has not started.
    let upcoming = r#"{"page":{"id":"x"},"scheduled_maintenances":[{"id":"m2","name":"Later",
        "status":"scheduled","impact":"maintenance","scheduled_for":"2099-01-01T00:00:00Z"}]}"#;
    assert_eq!(health_of(upcoming), Some(Health::Healthy));
    // An informational incident (impact none) is open but reports no impact.
    let informational = r#"{"incidents":[{"name":"FYI","status":"monitoring","impact":"none"}]}"#;
    assert_eq!(health_of(informational), Some(Health::Healthy));
}

#[test]
fn slack_current_status_reads_its_word_from_the_list() {
    // https://slack-status.com/api/v2.0.0/current
    let ok = r#"{"status":"ok","active_incidents":[],"date_created":"2018-09-07T18:34:15-07:00","date_updated":"2018-09-07T18:34:15-07:00"}"#;
    assert_eq!(health_of(ok), Some(Health::Healthy));
    let outage = r#"{"status":"active","date_created":"2025-05-01T10:00:00-07:00","active_incidents":[
        {"id":546,"title":"Users cannot send messages","type":"outage","status":"active",
         "services":["Messaging","Connectivity"],"notes":[{"body":"We are investigating."}]}]}"#;
    let s = parse(outage.as_bytes()).unwrap();
    assert_eq!(s.health, Health::Down);
    assert_eq!(s.description.as_deref(), Some("Users cannot send messages"));
    let incident = r#"{"status":"active","active_incidents":[{"id":547,"title":"Delays loading files","type":"incident","status":"active","services":["Files"]}]}"#;
    assert_eq!(health_of(incident), Some(Health::Degraded));
    let maintenance = r#"{"status":"active","active_incidents":[{"id":548,"title":"Upgrade","type":"maintenance","status":"active"}]}"#;
    assert_eq!(health_of(maintenance), Some(Health::Degraded));
    // A word nobody explains, with nothing open, stays unknown.
    assert_eq!(
        health_of(r#"{"status":"active","active_incidents":[]}"#),
        Some(Health::Unknown)
    );
}

#[test]
fn google_cloud_incidents_json_open_means_no_end() {
    let old = r#"{"id":"a1","begin":"2025-04-01T10:00:00+00:00","end":"2025-04-01T12:00:00+00:00",
        "external_desc":"Cloud SQL connectivity issues","service_name":"Cloud SQL","severity":"high",
        "status_impact":"SERVICE_OUTAGE","most_recent_update":{"text":"Resolved.","status":"AVAILABLE"}}"#;
    let new = r#"{"id":"b2","begin":"2025-05-01T10:00:00+00:00",
        "external_desc":"Cloud Run requests failing in us-central1","service_name":"Cloud Run",
        "severity":"high","status_impact":"SERVICE_OUTAGE",
        "most_recent_update":{"text":"Mitigation in progress.","status":"SERVICE_OUTAGE"}}"#;
    assert_eq!(health_of(&format!("[{old}]")), Some(Health::Healthy));
    let s = parse(format!("[{new},{old}]").as_bytes()).unwrap();
    assert_eq!(s.health, Health::Down);
    assert_eq!(
        s.description.as_deref(),
        Some("Cloud Run requests failing in us-central1")
    );
    let low = r#"[{"id":"c3","begin":"2025-05-01T10:00:00+00:00","external_desc":"Console slow",
        "severity":"low","status_impact":"SERVICE_INFORMATION"}]"#;
    assert_eq!(health_of(low), Some(Health::Degraded));
}

#[test]
fn uptime_kuma_status_page_incident_and_maintenance() {
    let page = |incident: &str, maintenance: &str| {
        format!(
            r#"{{"config":{{"slug":"acme","title":"Acme","published":true}},"incident":{incident},
            "publicGroupList":[{{"id":1,"name":"Services","monitorList":[{{"id":1,"name":"API"}}]}}],
            "maintenanceList":[{maintenance}]}}"#
        )
    };
    let danger = r#"{"id":1,"title":"API outage","content":"API is down","style":"danger","createdDate":"2025-05-01 10:00:00"}"#;
    let s = parse(page(danger, "").as_bytes()).unwrap();
    assert_eq!((s.health, s.indicator.as_str()), (Health::Down, "danger"));
    assert_eq!(s.description.as_deref(), Some("API outage"));
    let warning = danger.replace("danger", "warning");
    assert_eq!(health_of(&page(&warning, "")), Some(Health::Degraded));
    assert_eq!(health_of(&page("null", "")), Some(Health::Healthy));
    let under = r#"{"id":3,"title":"DB move","status":"under-maintenance"}"#;
    assert_eq!(health_of(&page("null", under)), Some(Health::Degraded));
    let inactive = r#"{"id":3,"title":"DB move","status":"inactive"}"#;
    assert_eq!(health_of(&page("null", inactive)), Some(Health::Healthy));
}

#[test]
fn zendesk_active_incidents_json_api() {
    let active = r#"{"data":[{"id":"123","type":"incident","attributes":{"title":"Email delays",
        "impact":"minor","startedAt":"2025-05-01T10:00:00Z","resolvedAt":null},
        "relationships":{"services":{"data":[{"id":"1","type":"service"}]}}}],
        "included":[{"id":"1","type":"service","attributes":{"name":"Support"}}]}"#;
    let s = parse(active.as_bytes()).unwrap();
    assert_eq!(s.health, Health::Degraded);
    assert_eq!(s.description.as_deref(), Some("Email delays"));
    // A major impact is a partial outage on Statuspage's scale; the outage flag, or a
    // critical impact, says the service is down.
    let major = active.replace(r#""impact":"minor""#, r#""impact":"major""#);
    assert_eq!(health_of(&major), Some(Health::Degraded));
    let critical = active.replace(r#""impact":"minor""#, r#""impact":"critical""#);
    assert_eq!(health_of(&critical), Some(Health::Down));
    let flagged = active.replace(r#""impact":"minor""#, r#""impact":"minor","outage":true"#);
    assert_eq!(health_of(&flagged), Some(Health::Down));
    let resolved = active.replace(
        r#""resolvedAt":null"#,
        r#""resolvedAt":"2025-05-01T11:00:00Z""#,
    );
    assert_eq!(health_of(&resolved), Some(Health::Healthy));
    // An empty `data` says nothing about what kind of list it is.
    assert_eq!(parse(br#"{"data":[],"included":[]}"#), None);
}

#[test]
fn statuspal_current_incident_type_and_other_event_lists() {
    let statuspal = |t: &str| {
        format!(
            r#"{{"status_page":{{"name":"Acme","subdomain":"acme","current_incident_type":{t}}},
            "services":[{{"id":1,"name":"API","current_incident_type":{t},"children":[]}}],"maintenances":[]}}"#
        )
    };
    assert_eq!(health_of(&statuspal("null")), Some(Health::Healthy));
    assert_eq!(health_of(&statuspal(r#""minor""#)), Some(Health::Degraded));
    assert_eq!(health_of(&statuspal(r#""major""#)), Some(Health::Down));
    // Heroku's v4 current-status: `resolved: false` is open, beside red systems.
    let heroku = r#"{"status":[{"system":"Apps","status":"green"},{"system":"Data","status":"green"}],
        "incidents":[{"id":1,"title":"Postgres slow","resolved":false}],"scheduled":[]}"#;
    assert_eq!(health_of(heroku), Some(Health::Degraded));
    let fixed = heroku.replace(r#""resolved":false"#, r#""resolved":true"#);
    assert_eq!(health_of(&fixed), Some(Health::Healthy));
    // Salesforce Trust: capitalised lists, entries without titles.
    let salesforce =
        r#"{"key":"NA1","status":"OK","isActive":true,"Incidents":[],"Maintenances":[{"id":2}]}"#;
    let s = parse(salesforce.as_bytes()).unwrap();
    assert_eq!(s.health, Health::Degraded);
    assert_eq!(s.description, None);
    assert_eq!(
        s.components,
        vec![(
            "maintenance".to_owned(),
            "in_progress_maintenance".to_owned()
        )]
    );
    // status.io keeps maintenances in `active` and `upcoming` lists.
    let status_io_like = r#"{"incidents":[],"maintenance":{"active":[{"name":"Patch","status":"In Progress"}],"upcoming":[{"name":"Later","status":"Planned"}]}}"#;
    assert_eq!(health_of(status_io_like), Some(Health::Degraded));
}

#[test]
fn a_healthy_word_does_not_hide_failing_parts() {
    // UptimeRobot's public status page: `status` is the request's result.
    let psp = r#"{"status":"ok","psp":{"name":"Acme","monitors":[
        {"monitorId":1,"name":"API","statusClass":"danger","ratio":{"ratio":"97.1"}},
        {"monitorId":2,"name":"Web","statusClass":"success"}],"totalCount":2},
        "statistics":{"counts":{"up":1,"down":1,"paused":0,"total":2},"count_result":"down"}}"#;
    let s = parse(psp.as_bytes()).unwrap();
    // One monitor down beside one up: the page works in part.
    assert_eq!(
        (s.health, s.indicator.as_str()),
        (Health::Degraded, "API: danger")
    );
    assert_eq!(
        s.components,
        vec![
            ("API".to_owned(), "danger".to_owned()),
            ("Web".to_owned(), "success".to_owned())
        ]
    );
    let all_up = psp.replace("danger", "success");
    assert_eq!(health_of(&all_up), Some(Health::Healthy));
    // A generic envelope around components.
    let envelope =
        r#"{"status":"success","data":{"components":[{"name":"API","status":"major_outage"}]}}"#;
    assert_eq!(health_of(envelope), Some(Health::Down));
    // An envelope with nothing readable inside says nothing.
    assert_eq!(
        parse(br#"{"status":"ok","data":{"items":[{"id":1}]}}"#),
        None
    );
    assert_eq!(
        parse(br#"{"success":true,"result":{"items":[{"id":1}]}}"#),
        None
    );
    // A healthy overall word beside a failing check: the check wins, and names it.
    let s = parse(br#"{"status":"UP","checks":[{"name":"db","status":"DOWN"}]}"#).unwrap();
    assert_eq!((s.health, s.indicator.as_str()), (Health::Down, "DOWN"));
    // An open incident outweighs a healthy word.
    let word_and_list = r#"{"status":"operational","incidents":[{"name":"API errors","status":"identified","impact":"critical"}]}"#;
    assert_eq!(health_of(word_and_list), Some(Health::Down));
    // `ok` beside an empty object or a flat header is still the health (CouchDB `/_up`,
    // Solr's ping).
    assert_eq!(
        health_of(r#"{"status":"ok","seeds":{}}"#),
        Some(Health::Healthy)
    );
    assert_eq!(
        health_of(r#"{"responseHeader":{"zkConnected":true,"status":0,"QTime":1},"status":"OK"}"#),
        Some(Health::Healthy)
    );
    // A flat `success` flag is read.
    assert_eq!(health_of(r#"{"success":false}"#), Some(Health::Down));
}

#[test]
fn compound_status_words_are_read_by_whole_parts() {
    for (word, want) in [
        ("MAJOR_INCIDENT_CORE", Health::Down),
        ("MAJOR_INCIDENT_NONCORE", Health::Down),
        ("MINOR_INCIDENT_CORE", Health::Degraded),
        ("MAINTENANCE_CORE", Health::Degraded),
        ("MAINTENANCE_NONCORE", Health::Degraded),
        ("incident", Health::Degraded),
        ("SERVICE_OUTAGE", Health::Down),
        // Google Cloud's dashboard ranks a service disruption below an outage.
        ("SERVICE_DISRUPTION", Health::Degraded),
        ("Partial Service Disruption", Health::Degraded),
        ("minor-outage", Health::Degraded),
        ("full_outage", Health::Down),
        ("OK", Health::Healthy),
        ("fully-operational", Health::Healthy),
        ("operational_with_issues", Health::Degraded),
        // Only whole parts count, and a negation makes the word unreadable.
        ("incidental", Health::Unknown),
        ("outageless", Health::Unknown),
        ("NOT_OK", Health::Unknown),
        ("no-issues", Health::Unknown),
        ("no major outage", Health::Unknown),
        ("SERVICE_INFORMATION", Health::Unknown),
    ] {
        assert_eq!(word_health(word), want, "{word}");
    }
    // Salesforce Trust instance status and OpenStatus's page status.
    let salesforce = r#"{"key":"NA1","location":"NA","environment":"production","status":"MAJOR_INCIDENT_CORE",
        "isActive":true,"Incidents":[{"id":1,"message":{"pathSummary":"Users cannot log in"}}],"Maintenances":[]}"#;
    let s = parse(salesforce.as_bytes()).unwrap();
    assert_eq!(
        (s.health, s.indicator.as_str()),
        (Health::Down, "MAJOR_INCIDENT_CORE")
    );
    assert_eq!(
        health_of(
            r#"{"key":"NA1","status":"MAINTENANCE_CORE","Incidents":[],"Maintenances":[{"id":2}]}"#
        ),
        Some(Health::Degraded)
    );
    assert_eq!(
        health_of(r#"{"status":"incident"}"#),
        Some(Health::Degraded)
    );
}

#[test]
fn cachet_incidents_are_not_components() {
    // Cachet `GET /api/v1/incidents`: status 4 is Fixed, not a major outage.
    let fixed = r#"{"meta":{"pagination":{"total":2}},"data":[
        {"id":1,"component_id":0,"name":"Old DB outage","status":4,"human_status":"Fixed","visible":1,"message":"Fixed."},
        {"id":2,"component_id":0,"name":"Old slowness","status":4,"human_status":"Fixed","visible":1,"message":"Fixed."}]}"#;
    assert_eq!(health_of(fixed), Some(Health::Healthy));
    let open = r#"{"meta":{},"data":[{"id":3,"component_id":1,"name":"API errors","status":1,"human_status":"Investigating","visible":1,"message":"Looking into it"}]}"#;
    let s = parse(open.as_bytes()).unwrap();
    assert_eq!(s.health, Health::Degraded);
    assert_eq!(s.description.as_deref(), Some("API errors"));
    // Without `human_status` the number is read: 0 Scheduled and 4 Fixed are closed.
    let numbers = r#"{"data":[{"id":4,"component_id":1,"name":"Later","status":0,"message":"m"},{"id":5,"component_id":1,"name":"Done","status":4,"message":"m"}]}"#;
    assert_eq!(health_of(numbers), Some(Health::Healthy));
    // Cachet 3 serves incidents as JSON:API with status objects.
    let v3_incident = r#"{"data":[{"id":"7","type":"incidents","attributes":{"name":"Slow API","status":{"value":2,"human":"Identified"}}}]}"#;
    assert_eq!(health_of(v3_incident), Some(Health::Degraded));
    let v3_fixed = v3_incident.replace(
        r#"{"value":2,"human":"Identified"}"#,
        r#"{"value":4,"human":"Fixed"}"#,
    );
    assert_eq!(health_of(&v3_fixed), Some(Health::Healthy));
}

#[test]
fn cachet_3_json_api_components() {
    let body = r#"{"data":[
        {"id":"1","type":"components","attributes":{"name":"API","status":{"human":"Major Outage","value":4},"enabled":true}},
        {"id":"2","type":"components","attributes":{"name":"Web","status":{"human":"Operational","value":1},"enabled":true}}]}"#;
    let s = parse(body.as_bytes()).unwrap();
    assert_eq!(
        (s.health, s.indicator.as_str()),
        (Health::Degraded, "Major Outage")
    );
    assert_eq!(
        s.components,
        vec![
            ("API".to_owned(), "Major Outage".to_owned()),
            ("Web".to_owned(), "Operational".to_owned())
        ]
    );
    let all_down = body.replace(
        r#""human":"Operational","value":1"#,
        r#""human":"Major Outage","value":4"#,
    );
    assert_eq!(health_of(&all_down), Some(Health::Down));
}

#[test]
fn check_result_series_read_their_newest_result() {
    // Gatus `/api/v1/endpoints/statuses`: `status` is the HTTP code, `success` the verdict.
    let gatus = |first: bool, second: bool| {
        format!(
            r#"[{{"name":"api","group":"core","key":"core_api","results":[
            {{"status":200,"hostname":"api.acme.com","duration":1200,"conditionResults":[{{"condition":"[STATUS] == 200","success":{first}}}],"success":{first},"timestamp":"2025-05-01T09:59:00Z"}},
            {{"status":500,"hostname":"api.acme.com","duration":900,"conditionResults":[{{"condition":"[STATUS] == 200","success":{second}}}],"success":{second},"timestamp":"2025-05-01T10:00:00Z"}}]}}]"#
        )
    };
    let s = parse(gatus(true, false).as_bytes()).unwrap();
    assert_eq!(s.health, Health::Down);
    assert_eq!(s.components, vec![("api".to_owned(), "failure".to_owned())]);
    // Recovered: the failure is history.
    assert_eq!(health_of(&gatus(false, true)), Some(Health::Healthy));
    // Uptime Kuma heartbeats: 1 up, 0 down, per monitor id.
    let kuma = |last: u8| {
        format!(
            r#"{{"heartbeatList":{{"1":[{{"status":1,"time":"2025-05-01 09:59:00","msg":"","ping":20}},
            {{"status":{last},"time":"2025-05-01 10:00:00","msg":"connect ECONNREFUSED","ping":null}}],
            "2":[{{"status":1,"time":"2025-05-01 10:00:00","msg":"","ping":12}}]}},"uptimeList":{{"1_24":0.97}}}}"#
        )
    };
    let s = parse(kuma(0).as_bytes()).unwrap();
    // Monitor 1 down, monitor 2 up.
    assert_eq!(s.health, Health::Degraded);
    assert_eq!(
        s.components,
        vec![
            ("1".to_owned(), "down".to_owned()),
            ("2".to_owned(), "up".to_owned())
        ]
    );
    assert_eq!(health_of(&kuma(1)), Some(Health::Healthy));
}

#[test]
fn error_statuses_are_not_the_apis_health() {
    let unauthorized = br#"{"status":"error","message":"Unauthorized"}"#;
    assert_eq!(
        read_response(401, unauthorized),
        Err(Unreadable::Status(401))
    );
    assert_eq!(
        Unreadable::Status(401).to_string(),
        "status page answered HTTP 401"
    );
    assert_eq!(parse_response(401, unauthorized), None);
    assert_eq!(
        read_response(500, b"Internal Server Error"),
        Err(Unreadable::Status(500))
    );
    // A probe answering one word on a 5xx (Hasura's `ERROR` with 500) is its own
    // account; a healthy word on a 5xx is not read as healthy.
    assert_eq!(
        read_response(500, b"ERROR").map(|p| p.health),
        Ok(Health::Down)
    );
    assert_eq!(
        read_response(502, b"FAILED\n").map(|p| p.health),
        Ok(Health::Down)
    );
    assert_eq!(read_response(500, b"OK"), Err(Unreadable::Status(500)));
    let nginx = b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>";
    assert_eq!(read_response(502, nginx), Err(Unreadable::Status(502)));
    let spring_404 = br#"{"timestamp":"2025-05-01T10:00:00Z","status":404,"error":"Not Found","path":"/api/v2/status.json"}"#;
    assert_eq!(read_response(404, spring_404), Err(Unreadable::Status(404)));
    // A health document behind a 5xx that says down is read; an error envelope is not.
    let vault_uninitialised =
        br#"{"initialized":false,"sealed":true,"standby":true,"version":"1.17.2"}"#;
    assert_eq!(
        read_response(501, vault_uninitialised).map(|p| p.health),
        Ok(Health::Down)
    );
    assert_eq!(
        read_response(500, br#"{"error":"internal","ok":false}"#),
        Err(Unreadable::Status(500))
    );
    assert_eq!(
        read_response(500, br#"{"status":"fail","message":"database timeout"}"#),
        Err(Unreadable::Status(500))
    );
    assert_eq!(
        read_response(404, br#"{"status":"DOWN"}"#),
        Err(Unreadable::Status(404))
    );
    // Vault's active node.
    let vault_active = br#"{"initialized":true,"sealed":false,"standby":false,"version":"1.17.2"}"#;
    assert_eq!(
        read_response(200, vault_active).map(|p| p.health),
        Ok(Health::Healthy)
    );
    // A lone healthy word behind an error status overrules nothing.
    assert_eq!(
        read_response(429, br#"{"status":"ok"}"#),
        Err(Unreadable::Status(429))
    );
    assert_eq!(
        read_response(429, br#"{"status":"ok","message":"slow down"}"#),
        Err(Unreadable::Status(429))
    );
}

#[test]
fn a_health_document_behind_a_role_code_decides() {
    // Vault's `sys/health`: 429 is a healthy unsealed standby, 473 a performance
    // standby; the body's own fields say how the node is.
    let standby = br#"{"initialized":true,"sealed":false,"standby":true}"#;
    for status in [429, 473] {
        assert_eq!(
            read_response(status, standby).map(|p| p.health),
            Ok(Health::Healthy),
            "{status}"
        );
    }
    // The same document sealed is down, whatever the code.
    let sealed = br#"{"initialized":true,"sealed":true,"standby":true}"#;
    assert_eq!(
        read_response(429, sealed).map(|p| p.health),
        Ok(Health::Down)
    );
    // A refused request is no health endpoint's answer, and a 5xx is never healthy.
    assert_eq!(read_response(403, standby), Err(Unreadable::Status(403)));
    assert_eq!(read_response(500, standby), Err(Unreadable::Status(500)));
    // An error envelope behind a 429 is the rate limiter's, not a health document.
    assert_eq!(
        read_response(429, br#"{"error":"rate limited","healthy":true}"#),
        Err(Unreadable::Status(429))
    );
    // 2xx bodies are read; an unknown one is not a status document.
    assert_eq!(
        read_response(200, b"Service Unavailable").map(|p| p.health),
        Ok(Health::Down)
    );
    assert_eq!(
        read_response(200, b"<html></html>"),
        Err(Unreadable::NotAStatusDocument)
    );
    assert_eq!(
        Unreadable::NotAStatusDocument.to_string(),
        "not a recognised status page or health document"
    );
    // 503 is down, whatever the body.
    let cdn = b"<html><body>Service Temporarily Unavailable</body></html>";
    let s = read_response(503, cdn).unwrap();
    assert_eq!((s.health, s.indicator.as_str()), (Health::Down, "HTTP 503"));
    assert_eq!(
        read_response(503, br#"{"status":"UP"}"#).map(|p| p.health),
        Ok(Health::Down)
    );
    // A health document naming its failing parts is read at 500 (django-health-check).
    let django = br#"{"DatabaseBackend":"unavailable: Database error","CacheBackend":"working"}"#;
    let s = read_response(500, django).unwrap();
    assert_eq!(s.health, Health::Down);
    assert_eq!(s.components.len(), 2);
}

#[test]
fn hostile_documents_are_bounded() {
    // A hundred thousand open incidents: read in bounded time, the list capped.
    let one = r#"{"name":"x","status":"investigating","impact":"critical"},"#;
    let body = format!(
        r#"{{"incidents":[{}{{"name":"last"}}]}}"#,
        one.repeat(100_000)
    );
    let s = parse(body.as_bytes()).unwrap();
    assert_eq!(s.health, Health::Down);
    assert!(s.components.len() <= MAX_COMPONENTS);
    // A huge series and a huge map of series.
    let beat = r#"{"status":1,"time":"2025-05-01 10:00:00"},"#;
    let body = format!(
        r#"{{"heartbeatList":{{"1":[{}{{"status":0,"time":"2025-05-01 10:00:01"}}]}}}}"#,
        beat.repeat(100_000)
    );
    assert_eq!(health_of(&body), Some(Health::Down));
    let monitors: Vec<String> = (0..10_000)
        .map(|i| format!(r#""{i}":[{{"status":1,"time":"t"}}]"#))
        .collect();
    let body = format!(r#"{{"heartbeatList":{{{}}}}}"#, monitors.join(","));
    let s = parse(body.as_bytes()).unwrap();
    assert!(s.components.len() <= MAX_COMPONENTS);
    // Deep nesting: too deep to parse is unrecognised; within the parser's limit, the
    // walks stop at their own depth.
    let deep = format!("{}{}", "[".repeat(5_000), "]".repeat(5_000));
    assert_eq!(parse(deep.as_bytes()), None);
    let nested = format!(
        r#"{}{{"incidents":[{{"name":"deep","impact":"critical"}}]}}{}"#,
        r#"{"data":"#.repeat(100),
        "}".repeat(100)
    );
    assert_eq!(parse(nested.as_bytes()), None);
    let statuses = format!(
        r#"{}"down"{}"#,
        r#"{"status":"#.repeat(100),
        "}".repeat(100)
    );
    assert_eq!(parse(statuses.as_bytes()), None);
}

#[test]
fn some_parts_failing_beside_working_ones_is_degraded_on_a_success() {
    // Kafka Connect: the connector RUNNING, one task FAILED beside a RUNNING one. The
    // connector's own state is a part, not the document's verdict.
    let kafka = r#"{"name":"s3-sink","connector":{"state":"RUNNING","worker_id":"10.0.0.1:8083"},"tasks":[{"id":0,"state":"RUNNING"},{"id":1,"state":"FAILED","trace":"ConnectException"}],"type":"sink"}"#;
    assert_eq!(health_of(kafka), Some(Health::Degraded));
    // A map of named checks with health flags (Sonatype Nexus `status/check`).
    let nexus = r#"{"Available CPUs":{"healthy":true},"Blob Stores Quota":{"healthy":false,"message":"over its soft quota"}}"#;
    assert_eq!(health_of(nexus), Some(Health::Degraded));
    // A list of monitors (Healthchecks.io), one down.
    let checks =
        r#"{"checks":[{"name":"Backups","status":"up"},{"name":"Nightly","status":"down"}]}"#;
    assert_eq!(health_of(checks), Some(Health::Degraded));
    // Every part down is down; an overall word still decides.
    let all_down = r#"{"checks":[{"name":"a","status":"down"},{"name":"b","status":"down"}]}"#;
    assert_eq!(health_of(all_down), Some(Health::Down));
    let said_down = r#"{"status":"unhealthy","components":[{"name":"core","status":"healthy"},{"name":"db","status":"unhealthy"}]}"#;
    assert_eq!(health_of(said_down), Some(Health::Down));
    // An endpoint that answers an error status with the same mix judged itself down
    // (Nuxeo's `/runningstatus` answers 500 when any probe fails).
    let nuxeo =
        br#"{"s3BinaryManagerStatus":"failed","runtimeStatus":"ok","repositoryStatus":"ok"}"#;
    assert_eq!(read_response(500, nuxeo).unwrap().health, Health::Down);
    assert_eq!(
        read_response(503, kafka.as_bytes()).unwrap().health,
        Health::Down
    );
    assert_eq!(
        read_response(200, kafka.as_bytes()).unwrap().health,
        Health::Degraded
    );
}

#[test]
fn an_instance_is_as_healthy_as_the_worst_of_its_own_checks() {
    // Consul `/v1/health/service/redis`: two instances, one with a critical check.
    let instances = r#"[{"Node":{"Node":"a"},"Checks":[{"CheckID":"serfHealth","Status":"passing"},{"CheckID":"service:redis","Status":"critical"}]},
        {"Node":{"Node":"b"},"Checks":[{"CheckID":"serfHealth","Status":"passing"},{"CheckID":"service:redis","Status":"passing"}]}]"#;
    assert_eq!(health_of(instances), Some(Health::Degraded));
    let all_failing = instances.replace("passing\"}]}]", "critical\"}]}]");
    assert_eq!(health_of(&all_failing), Some(Health::Down));
    let none_failing = instances.replace("critical", "passing");
    assert_eq!(health_of(&none_failing), Some(Health::Healthy));
    // Checks are looked for one level down only.
    let deeper = r#"[{"Checks":[{"Checks":[{"Status":"critical"}]}]}]"#;
    assert_eq!(health_of(deeper), None);
}

#[test]
fn prefixed_levels_maintenance_flags_and_part_status_fields_are_read() {
    // The gRPC health checking protocol, as its JSON gateways answer.
    assert_eq!(health_of(r#"{"status":"SERVING"}"#), Some(Health::Healthy));
    assert_eq!(health_of(r#"{"status":"NOT_SERVING"}"#), Some(Health::Down));
    assert_eq!(
        health_of(r#"{"status":"SERVICE_UNKNOWN"}"#),
        Some(Health::Unknown)
    );
    // Ceph: `HEALTH_OK`, `HEALTH_WARN`, `HEALTH_ERR`.
    assert_eq!(
        health_of(r#"{"status":"HEALTH_OK","checks":{}}"#),
        Some(Health::Healthy)
    );
    assert_eq!(
        health_of(r#"{"status":"HEALTH_WARN","checks":{"OSD_DOWN":{"severity":"HEALTH_WARN"}}}"#),
        Some(Health::Degraded)
    );
    assert_eq!(health_of(r#"{"status":"HEALTH_ERR"}"#), Some(Health::Down));
    // Nextcloud's status.php while an admin works on it, even behind a 503.
    let nextcloud =
        br#"{"installed":true,"maintenance":true,"needsDbUpgrade":false,"version":"28.0.1.1"}"#;
    assert_eq!(
        read_response(503, nextcloud).unwrap().health,
        Health::Degraded
    );
    // Mattermost's ping answers 500 with an overall word and the parts it sums up: the
    // parts make it a health document, not an error page.
    let mattermost =
        br#"{"status":"UNHEALTHY","database_status":"UNHEALTHY","filestore_status":"OK"}"#;
    let s = read_response(500, mattermost).unwrap();
    assert_eq!(s.health, Health::Down);
    assert_eq!(s.components.len(), 2, "{:?}", s.components);
}

mod collected;

#[test]
fn an_overall_warning_sums_up_its_failed_parts() {
    // Tyk's `/hello` with Redis down: the gateway says `warn`, not `fail`.
    let tyk = r#"{"status":"warn","description":"Tyk GW","details":{"redis":{"status":"fail","componentType":"datastore"}}}"#;
    let s = parse(tyk.as_bytes()).unwrap();
    assert_eq!((s.health, s.indicator.as_str()), (Health::Degraded, "warn"));
    // A healthy overall word still does not hide a failed part.
    let up_but = r#"{"status":"pass","details":{"redis":{"status":"fail"}}}"#;
    assert_eq!(health_of(up_but), Some(Health::Down));
}

#[test]
fn sentences_and_good_bad_words_of_health_endpoints() {
    // Jaeger's admin port and Unleash's `/health`.
    assert_eq!(
        health_of(r#"{"status":"Server available","upSince":"2025-06-01T10:00:00Z"}"#),
        Some(Health::Healthy)
    );
    assert_eq!(
        read_response(503, br#"{"status":"Server not available"}"#).map(|p| p.health),
        Ok(Health::Down)
    );
    assert_eq!(health_of(r#"{"health":"GOOD"}"#), Some(Health::Healthy));
    assert_eq!(
        read_response(500, br#"{"health":"BAD"}"#).map(|p| p.health),
        Ok(Health::Down)
    );
}

#[test]
fn a_partial_reading_names_its_failing_parts() {
    // Kafka Connect: one task failed beside running ones; no overall word.
    let connect = r#"{"name":"sink","connector":{"state":"RUNNING","worker_id":"w1"},
        "tasks":[{"id":0,"state":"RUNNING","worker_id":"w1"},{"id":1,"state":"FAILED","worker_id":"w2"}]}"#;
    let s = parse(connect.as_bytes()).unwrap();
    assert_eq!(
        (s.health, s.indicator.as_str()),
        (Health::Degraded, "tasks 1: FAILED")
    );
}

#[test]
fn a_probe_that_answers_a_json_string_is_read_by_its_words() {
    // Qdrant's `/readyz`.
    assert_eq!(
        parse(br#""all shards are ready""#).map(|p| p.health),
        Some(Health::Healthy)
    );
    assert_eq!(
        read_response(503, br#""some shards are not ready""#).map(|p| p.health),
        Ok(Health::Down)
    );
    // A string that is no health word says nothing.
    assert_eq!(parse(br#""hello""#), None);
}

#[test]
fn a_map_of_parts_to_booleans_is_their_health() {
    // Quay's `/health/instance`, one wrapper down; and a flat `components` map.
    let one_down = br#"{"data":{"services":{"auth":true,"database":false,"disk_space":true}},"status_code":200}"#;
    let s = parse(one_down).unwrap();
    assert_eq!(s.health, Health::Degraded);
    assert!(
        s.components
            .contains(&("database".to_owned(), "false".to_owned())),
        "{:?}",
        s.components
    );
    let all_up = br#"{"components":{"db":true,"cache":true,"queue":true}}"#;
    assert_eq!(parse(all_up).unwrap().health, Health::Healthy);
    let all_down = br#"{"checks":{"db":false,"cache":false}}"#;
    assert_eq!(parse(all_down).unwrap().health, Health::Down);
    // Booleans under another name are settings, not parts.
    assert!(
        parse(br#"{"features":{"search":true,"export":false}}"#)
            .is_none_or(|s| s.health == Health::Unknown)
    );
}

#[test]
fn an_entry_with_several_flags_is_as_bad_as_the_worst() {
    // Checkly's check statuses: `hasErrors`, `hasFailures`, `isDegraded` side by side.
    let failing = br#"[{"name":"Homepage","hasErrors":false,"hasFailures":true,"isDegraded":false},
        {"name":"API","hasErrors":false,"hasFailures":false,"isDegraded":false}]"#;
    let s = parse(failing).unwrap();
    assert_eq!(s.health, Health::Degraded);
    assert!(
        s.components
            .contains(&("Homepage".to_owned(), "hasFailures: true".to_owned())),
        "{:?}",
        s.components
    );
    let slow = br#"[{"name":"API","hasErrors":false,"hasFailures":false,"isDegraded":true}]"#;
    assert_eq!(parse(slow).unwrap().health, Health::Degraded);
    let passing = br#"[{"name":"API","hasErrors":false,"hasFailures":false,"isDegraded":false}]"#;
    assert_eq!(parse(passing).unwrap().health, Health::Healthy);
    // A monitor that is `online` but `failing`.
    let mixed = br#"{"monitors":[{"name":"db","online":true,"failing":true}]}"#;
    assert_eq!(parse(mixed).unwrap().health, Health::Down);
}

#[test]
fn sick_is_a_service_under_load() {
    // Vigil's `/status/text`: `healthy`, `sick` (services under high load), `dead`.
    assert_eq!(health_of("sick"), Some(Health::Degraded));
    assert_eq!(health_of("sick\n"), Some(Health::Degraded));
    // The same word as a JSON status, and in Vigil's webhook payload's `status`.
    assert_eq!(health_of(r#"{"status":"SICK"}"#), Some(Health::Degraded));
    assert_eq!(
        health_of(r#"{"type":"changed","status":"sick","time":"08:58:28 UTC+0200"}"#),
        Some(Health::Degraded)
    );
    // A sentence that denies it is not read as the word.
    assert_eq!(health_of("not sick"), None);
}

/// A ping endpoint's `pong`, as Immich's `/api/server/ping` answers it.
#[test]
fn a_ping_answered_pong_is_healthy() {
    let s = parse(br#"{"res":"pong"}"#).unwrap();
    assert_eq!(s.health, Health::Healthy);
    assert_eq!(
        parse(br#"{"message":"pong"}"#).map(|s| s.health),
        Some(Health::Healthy)
    );
    // A pong beside a failed component is not all well.
    assert_eq!(
        parse(br#"{"res":"pong","database":"down"}"#).map(|s| s.health),
        Some(Health::Degraded)
    );
}

#[test]
fn a_list_that_is_the_status_says_it_by_its_codes() {
    // Open Finance Brasil's `/discovery/v1/status`, and the same shape at the top.
    let doc = |code: &str| {
        format!(
            r#"{{"data":{{"status":[{{"code":"{code}","explanation":"x","unavailableEndpoints":[]}}]}},"meta":{{"totalRecords":1}}}}"#
        )
    };
    let cases = [
        ("OK", Some(Health::Healthy)),
        ("PARTIAL_FAILURE", Some(Health::Degraded)),
        ("UNAVAILABLE", Some(Health::Down)),
        ("SCHEDULED_OUTAGE", Some(Health::Down)),
    ];
    for (code, want) in cases {
        assert_eq!(health_of(&doc(code)), want, "{code}");
    }
    assert_eq!(
        health_of(r#"{"status":[{"code":"PARTIAL_FAILURE"},{"code":"OK"}]}"#),
        Some(Health::Degraded)
    );
    // A list under another key reads no code: error codes are not statuses.
    assert_eq!(health_of(r#"{"errors":[{"code":"UNAVAILABLE"}]}"#), None);
    // A code no vocabulary knows says nothing.
    assert_eq!(health_of(r#"{"status":[{"code":"E605101"}]}"#), None);
}

#[test]
fn a_ping_answered_with_one_is_healthy() {
    assert_eq!(health_of(r#"{"ping":1}"#), Some(Health::Healthy));
    assert_eq!(health_of(r#"{"ping":true}"#), Some(Health::Healthy));
    // Any other count is no answer to a ping.
    assert_eq!(health_of(r#"{"ping":0}"#), None);
    assert_eq!(health_of(r#"{"ping":250}"#), None);
}

#[test]
fn a_current_status_word_is_the_overall_health() {
    // Appgram's overview names its overall state `current_status`.
    let body = br#"{"status_page":{"id":"sp_1","name":"Acme"},"current_status":"major_outage","active_updates":[]}"#;
    assert_eq!(parse(body).unwrap().health, Health::Down);
    let body = br#"{"currentState":"operational","services":[]}"#;
    assert_eq!(parse(body).unwrap().health, Health::Healthy);
}

#[test]
fn a_probe_answer_whose_only_verdict_is_its_error_member() {
    // ZooKeeper's AdminServer `/commands/ruok`, and the same shape failing.
    let s = parse(br#"{"command":"ruok","error":null}"#).unwrap();
    assert_eq!(s.health, Health::Healthy);
    // An error text is an error envelope's as much as a probe's: not read as health.
    assert!(
        parse(br#"{"command":"isro","error":"This ZooKeeper instance is not currently serving requests"}"#)
            .is_none_or(|s| s.health != Health::Healthy)
    );
    // Beside an overall word, the word decides.
    let s = parse(br#"{"status":"UP","error":null}"#).unwrap();
    assert_eq!(s.health, Health::Healthy);
}

#[test]
fn a_health_reports_dependencies_are_its_parts() {
    // Predictify's `/api/health/dependencies`: the parts under `dependencies`.
    let ok = br#"{"status":"ok","checkedAt":"2026-07-24T22:00:00.000Z","dependencies":{"postgres":{"status":"ok","latencyMs":3},"horizon":{"status":"ok","latencyMs":8}}}"#;
    assert_eq!(parse(ok).unwrap().health, Health::Healthy);
    // No overall word: the parts decide; one down beside a working one on a 200 is
    // degraded, and on a 503 down.
    let one_down = br#"{"dependencies":{"redis":{"status":"down","error":"connection refused"},"db":{"status":"up"}}}"#;
    assert_eq!(
        read_response_at(
            200,
            one_down,
            DateTime::from_timestamp(1_748_779_200, 0).unwrap()
        )
        .unwrap()
        .health,
        Health::Degraded
    );
    assert_eq!(
        read_response_at(
            503,
            one_down,
            DateTime::from_timestamp(1_748_779_200, 0).unwrap()
        )
        .unwrap()
        .health,
        Health::Down
    );
    // A package manifest's dependencies are version ranges, not parts.
    let manifest = br#"{"name":"left-pad","version":"1.3.0","dependencies":{"lodash":"^4.17.21"}}"#;
    assert!(parse(manifest).is_none());
}

#[test]
fn a_5xx_error_envelope_saying_the_service_is_not_ready_is_down() {
    let at = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    // Dapr's `/v1.0/healthz` on a sidecar not yet ready.
    let dapr = br#"{"errorCode":"ERR_HEALTH_NOT_READY","message":"dapr is not ready"}"#;
    assert_eq!(
        read_response_at(500, dapr, at).unwrap().health,
        Health::Down
    );
    let worded = br#"{"error":"service unhealthy: database unreachable"}"#;
    assert_eq!(
        read_response_at(502, worded, at).unwrap().health,
        Health::Down
    );
    // An error envelope about the request says nothing of the service's health.
    let plain = br#"{"message":"Request body could not be parsed","requestId":"r-1"}"#;
    assert_eq!(
        read_response_at(500, plain, at),
        Err(Unreadable::Status(500))
    );
    // Whole words only: "cannot read your" holds the letters of "not ready".
    let unreadable = br#"{"message":"Cannot read your file: permission denied"}"#;
    assert_eq!(
        read_response_at(500, unreadable, at),
        Err(Unreadable::Status(500))
    );
    // Nor does a 4xx, whatever its words.
    assert_eq!(
        read_response_at(404, dapr, at),
        Err(Unreadable::Status(404))
    );
}

/// Rails' `/up` answers by its page's colour alone: green with a 200, red with the 500
/// of an app that raised while booting. A page with words, or a colour that is no
/// health word, is not read by its colour.
#[test]
fn a_page_that_answers_by_its_colour_alone() {
    let at = chrono::DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let green = br#"<!DOCTYPE html><html><body style="background-color: green"></body></html>"#;
    let red = br#"<!DOCTYPE html><html><body style="background-color: red"></body></html>"#;
    assert_eq!(
        read_response_at(200, green, at).unwrap().health,
        Health::Healthy
    );
    assert_eq!(read_response_at(500, red, at).unwrap().health, Health::Down);
    for page in [
        &br#"<html><body style="background-color: red"><h1>We're sorry, but something went wrong.</h1></body></html>"#[..],
        br#"<html><body style="background-color: white"></body></html>"#,
        br#"<html><body></body></html>"#,
    ] {
        assert!(
            read_response_at(200, page, at).is_err(),
            "{}",
            String::from_utf8_lossy(page)
        );
    }
}

#[test]
fn a_check_that_did_not_pass_is_down_and_named_by_its_checker() {
    // py-healthcheck's answer, a 500 when a check fails.
    let body = br#"{"hostname": "web-1", "status": "failure", "timestamp": 1748779200, "results": [{"checker": "redis_available", "output": "Connection refused", "passed": false, "timestamp": 1748779200, "expires": 1748779227}]}"#;
    let s = read_response(500, body).unwrap();
    assert_eq!(s.health, Health::Down);
    assert_eq!(
        s.components,
        vec![("redis_available".to_owned(), "passed: false".to_owned())]
    );
    let ok = br#"{"hostname": "web-1", "status": "success", "results": [{"checker": "redis_available", "output": "ok", "passed": true}]}"#;
    assert_eq!(read_response(200, ok).unwrap().health, Health::Healthy);
}

#[test]
fn lists_of_failed_parts_say_how_the_whole_is() {
    // YugabyteDB's yb-master `/api/v1/health-check`.
    let dead = br#"{"dead_nodes": ["2f0a7d1c"], "most_recent_uptime": 86400, "under_replicated_tablets": []}"#;
    assert_eq!(read_response(200, dead).unwrap().health, Health::Degraded);
    let clean =
        br#"{"dead_nodes": [], "most_recent_uptime": 86400, "under_replicated_tablets": []}"#;
    assert_eq!(read_response(200, clean).unwrap().health, Health::Healthy);
    // A list whose name only starts like one (`downloads`, `deadlines`) is data.
    assert!(read_response(200, br#"{"deadlines": ["2025-06-02"], "count": 1}"#).is_err());
}

#[test]
fn members_each_with_a_health_flag_are_the_parts_of_the_whole() {
    // TiDB PD's `/pd/api/v1/health`: one member of three unhealthy.
    let pd = br#"[{"name": "pd-1", "health": true}, {"name": "pd-2", "health": false}, {"name": "pd-3", "health": true}]"#;
    assert_eq!(read_response(200, pd).unwrap().health, Health::Degraded);
    let all = br#"[{"name": "pd-1", "health": true}, {"name": "pd-2", "health": true}]"#;
    assert_eq!(read_response(200, all).unwrap().health, Health::Healthy);
}

#[test]
fn raised_alarms_are_at_worst_degraded_and_none_raised_is_healthy() {
    let warning = br#"{"hostname":"web01","status":true,"alarms":{"system.cpu.10min_cpu_usage":{"name":"10min_cpu_usage","status":"WARNING","value":87.2}}}"#;
    assert_eq!(parse(warning).unwrap().health, Health::Degraded);
    let critical = br#"{"hostname":"db01","status":true,"alarms":{"disk_space._":{"status":"CRITICAL","value":98.1}}}"#;
    assert_eq!(parse(critical).unwrap().health, Health::Degraded);
    let none = br#"{"hostname":"web01","status":true,"now":1748779200,"alarms":{}}"#;
    assert_eq!(parse(none).unwrap().health, Health::Healthy);
}

#[test]
fn health_checks_typed_by_severity_beside_a_message_are_problems_the_service_reports() {
    let warning = br#"[{"source":"IndexerStatusCheck","type":"warning","message":"Indexers unavailable due to failures"}]"#;
    assert_eq!(parse(warning).unwrap().health, Health::Degraded);
    let error = br#"[{"source":"DownloadClientCheck","type":"error","message":"Unable to communicate with qBittorrent"}]"#;
    assert_eq!(parse(error).unwrap().health, Health::Degraded);
    let notice =
        br#"[{"source":"UpdateCheck","type":"notice","message":"New update is available"}]"#;
    assert_eq!(parse(notice).unwrap().health, Health::Healthy);
}

#[test]
fn a_node_state_is_read_by_a_clusters_words_and_an_unsafe_cluster_is_degraded() {
    let active = br#"{"nodeState":"ACTIVE","clusterState":"ACTIVE","clusterSafe":true,"migrationQueueSize":0,"clusterSize":3}"#;
    assert_eq!(parse(active).unwrap().health, Health::Healthy);
    let unsafe_cluster = br#"{"nodeState":"ACTIVE","clusterState":"ACTIVE","clusterSafe":false,"migrationQueueSize":17,"clusterSize":2}"#;
    assert_eq!(parse(unsafe_cluster).unwrap().health, Health::Degraded);
    let passive = br#"{"nodeState":"PASSIVE","clusterState":"PASSIVE","clusterSafe":true}"#;
    assert_eq!(parse(passive).unwrap().health, Health::Degraded);
}

#[test]
fn a_status_naming_a_problem_over_is_healthy() {
    for status in [
        "serviceRestored",
        "falsePositive",
        "postIncidentReviewPublished",
        "resolvedExternal",
        "mitigated",
    ] {
        let body =
            format!(r#"{{"service":"Exchange Online","status":"{status}","id":"Exchange"}}"#);
        assert_eq!(
            parse(body.as_bytes()).unwrap().health,
            Health::Healthy,
            "{status}"
        );
    }
    let verifying = br#"{"service":"Exchange Online","status":"verifyingService","id":"Exchange"}"#;
    assert_eq!(parse(verifying).unwrap().health, Health::Degraded);
}

#[test]
fn an_advisory_is_healthy_and_a_lost_node_is_a_part_down() {
    let advisory = br#"{"lastUpdated":"2025-06-01T11:52:00Z","status":{"health":"advisory","message":"Advisory: planned maintenance"}}"#;
    assert_eq!(parse(advisory).unwrap().health, Health::Healthy);
    let lost = br#"{"nodes":{"node":[{"state":"RUNNING","id":"host1:8041"},{"state":"LOST","id":"host3:8041"}]}}"#;
    assert_eq!(parse(lost).unwrap().health, Health::Degraded);
}

#[test]
fn a_lone_object_named_for_the_information_it_holds_is_read_inside() {
    let info = br#"{"clusterInfo":{"id":1324053971963,"state":"STARTED","haState":"ACTIVE"}}"#;
    assert_eq!(parse(info).unwrap().health, Health::Healthy);
}
