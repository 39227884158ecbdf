//! Status and monitoring documents collected from vendors' API references, each with the
//! health its numbers or words must read as. A number is read only through the scale of
//! the format the document's shape names; otherwise it is left unread, never taken as
//! healthy.

use super::super::{Health, parse_response};

/// `None`: the document gives no reading (unreadable, or nothing but unknown states).
type Want = Option<Health>;

struct Case {
    source: &'static str,
    body: String,
    want: Want,
}

fn case(source: &'static str, body: &str, want: Want) -> Case {
    Case {
        source,
        body: body.to_owned(),
        want,
    }
}

/// UptimeRobot API v2 `getMonitors` (uptimerobot.com/api): `stat` is the call's result;
/// each monitor's `status` is 0 paused, 1 not checked yet, 2 up, 8 seems down, 9 down.
fn uptimerobot(statuses: &[u8]) -> String {
    let monitors: Vec<String> = statuses
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                r#"{{"id":77774980{i},"friendly_name":"Monitor {i}","url":"https://api.example.com/{i}","type":1,"sub_type":"","keyword_type":null,"keyword_value":"","http_username":"","http_password":"","port":"","interval":300,"status":{s},"create_datetime":1462565497}}"#
            )
        })
        .collect();
    format!(
        r#"{{"stat":"ok","pagination":{{"offset":0,"limit":50,"total":{}}},"monitors":[{}]}}"#,
        statuses.len(),
        monitors.join(",")
    )
}

/// status.io Public Status API (kb.status.io/developers/public-status-api and its status
/// code table): 100 Operational, 200 Planned Maintenance, 300 Degraded Performance, 400
/// Partial Service Disruption, 500 Service Disruption, 600 Security Event.
fn status_io(word: &str, code: u16) -> String {
    format!(
        r#"{{"result":{{"status_overall":{{"updated":"2016-01-29T22:57:03.079Z","status":"{word}","status_code":{code}}},"status":[{{"id":"56a807c7","name":"Website","status":"{word}","status_code":{code},"containers":[]}}],"incidents":[],"maintenance":{{"active":[],"upcoming":[]}}}}}}"#
    )
}

/// Pingdom API 3.1 `GET /checks`: each check's `status` is up, down, unconfirmed_down,
/// unknown or paused.
fn pingdom(statuses: &[&str]) -> String {
    let checks: Vec<String> = statuses
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                r#"{{"id":8597{i},"created":1297446423,"name":"My check {i}","hostname":"example.com","resolution":1,"type":"http","lasterrortime":1297446423,"lasttesttime":1300977363,"lastresponsetime":355,"status":"{s}"}}"#
            )
        })
        .collect();
    format!(
        r#"{{"checks":[{}],"counts":{{"total":{n},"limited":{n},"filtered":{n}}}}}"#,
        checks.join(","),
        n = statuses.len()
    )
}

/// Better Stack Uptime `GET /api/v2/monitors` (betterstack.com/docs/uptime/api/monitors):
/// JSON:API resources whose `attributes.status` is paused, pending, maintenance, up,
/// validating or down.
fn better_stack_monitors(statuses: &[&str]) -> String {
    let data: Vec<String> = statuses
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                r#"{{"id":"{i}","type":"monitor","attributes":{{"url":"https://uptime.betterstack.com","pronounceable_name":"Uptime homepage {i}","monitor_type":"keyword","last_checked_at":"2020-09-01T14:17:46.000Z","status":"{s}","check_frequency":30}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"data":[{}],"pagination":{{"first":"https://uptime.betterstack.com/api/v2/monitors?page=1","last":"https://uptime.betterstack.com/api/v2/monitors?page=1","prev":null,"next":null}}}}"#,
        data.join(",")
    )
}

/// StatusCake API v1 uptime and heartbeat lists (developers.statuscake.com/api): `status`
/// up or down, beside a `paused` flag.
fn statuscake(entries: &[(&str, bool)]) -> String {
    let data: Vec<String> = entries
        .iter()
        .enumerate()
        .map(|(i, (s, paused))| {
            format!(
                r#"{{"id":"{i}","name":"example check {i}","period":1800,"contact_groups":["1"],"paused":{paused},"status":"{s}","tags":["tag1"],"uptime":99.9}}"#
            )
        })
        .collect();
    format!(
        r#"{{"data":[{}],"metadata":{{"page":1,"per_page":25,"page_count":1,"total_count":{}}}}}"#,
        data.join(","),
        entries.len()
    )
}

/// Uptime Kuma heartbeats, whose `status` is 0 down, 1 up, 2 pending (retrying after a
/// failure) and 3 maintenance (uptime-kuma `src/util.ts`).
fn kuma(last: u8) -> String {
    format!(
        r#"{{"heartbeatList":{{"1":[{{"status":1,"time":"2025-05-01 09:59:00","msg":"","ping":20}},{{"status":{last},"time":"2025-05-01 10:00:00","msg":"","ping":null}}]}},"uptimeList":{{"1_24":0.99}}}}"#
    )
}

fn cases() -> Vec<Case> {
    use Health::{Degraded, Down, Healthy};
    vec![
        // UptimeRobot's numeric scale, recognised by its envelope.
        case(
            "UptimeRobot getMonitors: one monitor down (9)",
            &uptimerobot(&[9]),
            Some(Down),
        ),
        case(
            "UptimeRobot getMonitors: up (2)",
            &uptimerobot(&[2, 2]),
            Some(Healthy),
        ),
        case(
            "UptimeRobot getMonitors: seems down (8) beside up",
            &uptimerobot(&[2, 8]),
            Some(Degraded),
        ),
        case(
            "UptimeRobot getMonitors: paused (0) only says nothing",
            &uptimerobot(&[0]),
            None,
        ),
        case(
            "UptimeRobot getMonitors: not checked yet (1) says nothing",
            &uptimerobot(&[1]),
            None,
        ),
        case(
            "UptimeRobot getMonitors: a paused monitor beside an up one",
            &uptimerobot(&[0, 2]),
            Some(Healthy),
        ),
        case(
            "UptimeRobot error envelope (stat fail) is not a health report",
            r#"{"stat":"fail","error":{"type":"invalid_parameter","parameter_name":"api_key","passed_value":"x","message":"api_key is invalid."}}"#,
            None,
        ),
        // Numbers without a known scale are never guessed.
        case(
            "A monitor list with numeric statuses and no format that names their scale",
            r#"{"monitors":[{"id":1,"name":"API","status":2}]}"#,
            None,
        ),
        case(
            "A service list whose numeric status no scale explains",
            r#"{"services":[{"name":"api","status":3},{"name":"db","status":1}]}"#,
            None,
        ),
        case(
            "A bare status_code is an HTTP code, not a status.io level",
            r#"{"status_code":500}"#,
            None,
        ),
        // status.io's documented code scale.
        case(
            "status.io Operational (100)",
            &status_io("Operational", 100),
            Some(Healthy),
        ),
        case(
            "status.io Planned Maintenance (200)",
            &status_io("Planned Maintenance", 200),
            Some(Degraded),
        ),
        case(
            "status.io Degraded Performance (300)",
            &status_io("Degraded Performance", 300),
            Some(Degraded),
        ),
        case(
            "status.io Partial Service Disruption (400)",
            &status_io("Partial Service Disruption", 400),
            Some(Degraded),
        ),
        case(
            "status.io Service Disruption (500)",
            &status_io("Service Disruption", 500),
            Some(Down),
        ),
        case(
            "status.io Security Event (600)",
            &status_io("Security Event", 600),
            Some(Degraded),
        ),
        case(
            "status.io: the code decides when the word is translated",
            &status_io("Dienstunterbrechung", 500),
            Some(Down),
        ),
        // Pingdom's words.
        case(
            "Pingdom checks: one down beside one up",
            &pingdom(&["up", "down"]),
            Some(Degraded),
        ),
        case(
            "Pingdom checks: all up",
            &pingdom(&["up", "up"]),
            Some(Healthy),
        ),
        case(
            "Pingdom checks: unconfirmed_down is suspected, not confirmed",
            &pingdom(&["up", "unconfirmed_down"]),
            Some(Degraded),
        ),
        case(
            "Pingdom checks: paused and unknown say nothing",
            &pingdom(&["paused", "unknown"]),
            None,
        ),
        // Better Stack monitors (JSON:API attributes).
        case(
            "Better Stack monitors: up",
            &better_stack_monitors(&["up", "up"]),
            Some(Healthy),
        ),
        case(
            "Better Stack monitors: one down beside one up",
            &better_stack_monitors(&["up", "down"]),
            Some(Degraded),
        ),
        case(
            "Better Stack monitors: maintenance",
            &better_stack_monitors(&["maintenance", "up"]),
            Some(Degraded),
        ),
        case(
            "Better Stack monitors: paused and pending say nothing",
            &better_stack_monitors(&["paused", "pending"]),
            None,
        ),
        // StatusCake.
        case(
            "StatusCake uptime checks: all up",
            &statuscake(&[("up", false), ("up", false)]),
            Some(Healthy),
        ),
        case(
            "StatusCake uptime checks: one down beside one up",
            &statuscake(&[("up", false), ("down", false)]),
            Some(Degraded),
        ),
        case(
            "StatusCake: a paused check's last status is not evidence",
            &statuscake(&[("down", true), ("up", false)]),
            Some(Healthy),
        ),
        case(
            "StatusCake legacy /API/Tests: a bare array with capitalised fields",
            r#"[{"TestID":329630,"Paused":false,"TestType":"HTTP","WebsiteName":"Example","ContactGroup":null,"Public":0,"Status":"Up","TestTags":[],"WebsiteHost":"","NormalisedResponse":0,"Uptime":100}]"#,
            Some(Healthy),
        ),
        case(
            "StatusCake legacy /API/Tests: a down test",
            r#"[{"TestID":329630,"Paused":false,"TestType":"HTTP","WebsiteName":"Example","Status":"Down","Uptime":97.5}]"#,
            Some(Down),
        ),
        // Atlassian Statuspage components.json (MongoDB Cloud status API reference).
        case(
            "Statuspage components.json: degraded_performance",
            r#"{"page":{"id":"y2j98763l56x","name":"MongoDB Cloud Status","url":"https://status.mongodb.com","updated_at":"2025-03-11T00:52:20-07:00"},"components":[{"created_at":"2026-05-04T09:42:00Z","description":null,"id":"a","name":"Atlas","only_show_if_degraded":false,"page_id":"y2j98763l56x","position":1,"status":"degraded_performance","updated_at":"2026-05-04T09:42:00Z"},{"id":"b","name":"Realm","status":"operational"}]}"#,
            Some(Degraded),
        ),
        case(
            "Statuspage components.json: under_maintenance and operational",
            r#"{"page":{"id":"x","name":"Acme"},"components":[{"id":"a","name":"API","status":"under_maintenance"},{"id":"b","name":"Web","status":"operational"}]}"#,
            Some(Degraded),
        ),
        // Component or page status words from other status tools.
        case(
            "OpenStatus public status widget: operational",
            r#"{"status":"operational"}"#,
            Some(Healthy),
        ),
        case(
            "OpenStatus public status widget: degraded_performance",
            r#"{"status":"degraded_performance"}"#,
            Some(Degraded),
        ),
        case(
            "OpenStatus public status widget: incident",
            r#"{"status":"incident"}"#,
            Some(Degraded),
        ),
        case(
            "OpenStatus public status widget: unknown",
            r#"{"status":"unknown"}"#,
            Some(Health::Unknown),
        ),
        case(
            "Datadog status pages: JSON:API components with attribute statuses",
            r#"{"data":[{"id":"1","type":"components","attributes":{"name":"API","status":"partial_outage","position":0}},{"id":"2","type":"components","attributes":{"name":"Web","status":"operational","position":1}}]}"#,
            Some(Degraded),
        ),
        case(
            "Microsoft Graph service health overviews: camelCase statuses",
            r#"{"@odata.context":"https://graph.microsoft.com/v1.0/$metadata#admin/serviceAnnouncement/healthOverviews","value":[{"service":"Exchange Online","status":"serviceDegradation","id":"Exchange"},{"service":"Microsoft Teams","status":"serviceOperational","id":"microsoftteams"}]}"#,
            Some(Degraded),
        ),
        case(
            "Microsoft Graph service health overviews: one service interrupted beside one operational",
            r#"{"value":[{"service":"Exchange Online","status":"serviceInterruption","id":"Exchange"},{"service":"SharePoint Online","status":"serviceOperational","id":"SharePoint"}]}"#,
            Some(Degraded),
        ),
        case(
            "Microsoft Graph service health overviews: all operational",
            r#"{"value":[{"service":"Exchange Online","status":"serviceOperational","id":"Exchange"},{"service":"SharePoint Online","status":"serviceRestored","id":"SharePoint"}]}"#,
            Some(Healthy),
        ),
        // Uptime Kuma's full heartbeat scale.
        case(
            "Uptime Kuma heartbeat: pending (2) after a failure",
            &kuma(2),
            Some(Degraded),
        ),
        case(
            "Uptime Kuma heartbeat: maintenance (3)",
            &kuma(3),
            Some(Degraded),
        ),
        case("Uptime Kuma heartbeat: up (1)", &kuma(1), Some(Healthy)),
    ]
}

#[test]
fn collected_status_documents_are_read_by_their_scale() {
    let mut wrong = Vec::new();
    let all = cases();
    for c in &all {
        let got = parse_response(200, c.body.as_bytes()).map(|p| p.health);
        if got != c.want {
            wrong.push(format!("{}: {got:?} (want {:?})", c.source, c.want));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} read wrong:\n{}",
        wrong.len(),
        all.len(),
        wrong.join("\n")
    );
}
