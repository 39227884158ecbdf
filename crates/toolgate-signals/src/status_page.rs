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
//!   `result.status_overall` `{status, status_code}` and `result.status[]` components;
//!   the code is read on status.io's documented scale (`status_page/scale.rs`), the
//!   words when the code is missing.
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
//! - Lists of open incidents and maintenances (Statuspage `incidents/unresolved.json`,
//!   Slack's `active_incidents`, Google Cloud's `incidents.json`, Zendesk's
//!   `/api/incidents/active`, Cachet's `/api/v1/incidents`, …): see `status_page/events.rs`.
//! - RSS and Atom status feeds (Azure status, the AWS Health Dashboard's per-service
//!   feeds, every Statuspage's `history.atom`): each incident's newest entry, by the state
//!   it names and, read with the time it was fetched ([`read_response_at`]), by its age,
//!   see `status_page/feed.rs`.
//! - Check-result series (Gatus endpoint statuses, Uptime Kuma heartbeats): the newest
//!   result of each monitor, see `status_page/series.rs`.
//! - Problems listed as raised (Netdata's `alarms`, Sonarr's severity-typed health
//!   checks, Hazelcast's `clusterSafe` flag): at worst degraded, see
//!   `status_page/raised.rs`. A node's or cluster's `*State` is read with a cluster's
//!   words (`ACTIVE`, `PASSIVE`).
//!
//! - Monitor lists (UptimeRobot `getMonitors`, Pingdom `checks`, Better Stack and
//!   StatusCake monitors, Microsoft Graph service health): read as components by their
//!   words, including a JSON:API resource's `attributes`; a monitor flagged `paused` says
//!   nothing about now. A numeric status is read only on the scale of a format the
//!   document's shape names (UptimeRobot's 0/1/2/8/9, status.io's 100–600, Uptime Kuma's
//!   0–3, Cachet's 1–4, Nagios' 0–2; `status_page/scale.rs`), never guessed.
//!
//! The format is detected from the shape; `None` when the body is none of them. The raw
//! overall value is kept in [`PageStatus::indicator`] to show as is.
//!
//! A format with its own overall verdict (Statuspage's indicator, Instatus, Better
//! Stack, status.io, Cachet components, incident.io) is read by that verdict. Any other
//! document is read by its words, and a healthy overall word never hides contrary
//! evidence in the same document: the overall word, the components and checks, and the
//! open incidents are combined, the worst wins. Under `status`, `ok` and `success`
//! beside a payload (an array or object holding data) say the request worked, as an API
//! envelope does, not that the service is healthy.
//!
//! Health comes from what a page answers with 2xx, and from 503, which health endpoints
//! use to say they are down. A page answering any other status is unusable rather than
//! a report about the API ([`read_response`]), except a health document that names
//! which of its parts failed (django-health-check, Dropwizard and Nomad answer 500 with
//! one), and a 4xx answered with a health document of the endpoint's own, which is read
//! as it stands (Vault's healthy standby answers 429).

use std::fmt;

use chrono::{DateTime, Utc};

use serde_json::{Map, Value};

mod components;
mod events;
mod feed;
mod raised;
mod scale;
mod series;
mod text;

use components::collect_components;

/// At most this many components are kept from one page; the rest are noise for a model.
const MAX_COMPONENTS: usize = 64;

/// At most this many failing parts are named in a partial reading's indicator.
const MAX_NAMED_PARTS: usize = 3;

/// At most this many entries of one array or object are looked at, so a hostile page
/// with a huge list costs bounded time.
const MAX_ENTRIES: usize = 256;

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
    /// The raw overall indicator (`none`, `major`, `pass`, `UP`, …). A document with no
    /// overall word whose parts partly fail names its failing parts instead
    /// (`API: danger; DB: FAILED`), so the indicator never reads as the state of the whole.
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
    parse_as(body, PartialFailure::Degraded, None)
}

/// What a document that lists some failing parts beside working ones, and gives no
/// overall word of its own, says about the whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PartialFailure {
    /// The endpoint answered 2xx: the service works, some of its parts do not (a
    /// Kafka Connect connector with one FAILED task among RUNNING ones, one monitor down
    /// on an uptime page). Calling it down would stop calls that still work.
    Degraded,
    /// The endpoint answered an error status: it judged itself unfit (Dropwizard and
    /// Nuxeo answer 500 when any one check fails).
    Down,
}

/// `now` is when the body was fetched; only a feed's entries are dated against it.
fn parse_as(
    body: &[u8],
    partial: PartialFailure,
    now: Option<DateTime<Utc>>,
) -> Option<PageStatus> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        // Probes answer in a word or a sentence: `OK`, `LIVE`, `Ok.`, "Prometheus
        // Server is Healthy.".
        // A provider's RSS or Atom feed of its incidents (Azure status, AWS Health
        // Dashboard, every Statuspage's `history.atom`).
        Err(_) => return feed::parse(body, now).or_else(|| text::parse(body)),
    };
    // A probe whose framework serialises every answer as JSON sends its sentence as a
    // JSON string: Qdrant's `/readyz` answers `"all shards are ready"`. The words are
    // the answer, read as a plain-text one.
    if let Value::String(text) = &value {
        return text::parse(text.as_bytes());
    }
    // Apache Druid's `/status/health` answers a bare JSON `true`.
    if let Value::Bool(up) = value {
        return Some(PageStatus {
            health: if up { Health::Healthy } else { Health::Down },
            indicator: up.to_string(),
            description: None,
            components: Vec::new(),
        });
    }
    let vendor = value.as_object().and_then(|root| match root.get("status") {
        Some(Value::Object(status)) => statuspage(root, status),
        // A top-level status word is read with the rest of the document below.
        Some(Value::String(_)) => None,
        _ => instatus(root)
            .or_else(|| better_stack(root))
            .or_else(|| status_io(root))
            .or_else(|| cachet(root))
            .or_else(|| incident_io(root)),
    });
    match vendor {
        Some(p) if p.health != Health::Unknown => Some(p),
        // A known format with a word it does not know: read the vocabulary, keeping
        // the format's reading when that says nothing either.
        Some(p) => match by_words(&value, Some(&p.indicator), partial) {
            Some(words) if words.health != Health::Unknown => Some(words),
            _ => Some(p),
        },
        None => by_words(&value, None, partial),
    }
}

/// What one document says, gathered from its overall word, its components and checks,
/// and its open incidents, before the worst of them is taken.
#[derive(Default)]
struct Reading {
    /// The overall word and what it says (`Unknown` for a word not in the vocabulary).
    overall: Option<(Health, String)>,
    description: Option<String>,
    components: Vec<(String, String)>,
    /// The worst component and its raw status.
    worst_component: Option<(Health, String)>,
    /// How many parts read healthy, and how many down.
    parts_healthy: usize,
    parts_down: usize,
    /// The first parts that read down, as `name: raw status`: what a partial reading
    /// names instead of one part's bare word.
    down_parts: Vec<String>,
    events: Option<events::Events>,
}

impl Reading {
    fn component(&mut self, name: String, raw: String, health: Health) {
        let prev = self
            .worst_component
            .as_ref()
            .map_or(Health::Unknown, |w| w.0);
        match health {
            Health::Healthy => self.parts_healthy += 1,
            Health::Down => {
                self.parts_down += 1;
                if self.down_parts.len() < MAX_NAMED_PARTS {
                    let short = |t: &str| t.chars().take(60).collect::<String>();
                    self.down_parts
                        .push(format!("{}: {}", short(&name), short(&raw)));
                }
            }
            Health::Degraded | Health::Unknown => {}
        }
        if health != Health::Unknown
            && (self.worst_component.is_none() || worse(prev, health) != prev)
        {
            self.worst_component = Some((health, raw.clone()));
        }
        if self.components.len() < MAX_COMPONENTS {
            self.components.push((name, raw));
        }
    }

    /// The worst of the three sources; the indicator is the raw value of the source
    /// that decided, the overall word first.
    fn finish(self, partial: PartialFailure) -> Option<PageStatus> {
        let events = self
            .events
            .as_ref()
            .map(|e| (e.health, e.indicator.clone()));
        // Some parts down beside working ones, with no overall word to say what that
        // means for the whole: the whole is as bad as the endpoint's answer says.
        let some_parts_fail = self.overall.is_none()
            && self.parts_healthy > 0
            && self.parts_down > 0
            && partial == PartialFailure::Degraded;
        // An overall word that already says degraded has weighed its parts: a failed
        // dependency beside `"status": "warn"` (Tyk's `/hello` with Redis down) is what
        // that word sums up, not an outage the word hides.
        let overall_degraded = self
            .overall
            .as_ref()
            .is_some_and(|o| o.0 == Health::Degraded);
        let worst_component = self.worst_component.clone().map(|(h, raw)| {
            if (some_parts_fail || overall_degraded) && h == Health::Down {
                (Health::Degraded, raw)
            } else {
                (h, raw)
            }
        });
        let sources = [self.overall.clone(), events, worst_component];
        let mut health = sources
            .iter()
            .flatten()
            .fold(Health::Unknown, |acc, (h, _)| worse(acc, *h));
        // An overall word this parser does not know is not made healthy by an empty
        // incident list alone: the word may report what no list shows.
        let said_healthy =
            |s: &Option<(Health, String)>| s.as_ref().is_some_and(|s| s.0 == Health::Healthy);
        if health == Health::Healthy
            && self
                .overall
                .as_ref()
                .is_some_and(|o| o.0 == Health::Unknown)
            && !said_healthy(&self.worst_component)
        {
            health = Health::Unknown;
        }
        let mut components = self.components;
        let mut description = self.description;
        if let Some(e) = self.events {
            if e.health == health && self.overall.as_ref().is_none_or(|o| o.0 != health) {
                description = e.description.or(description);
            } else {
                description = description.or(e.description);
            }
            for open in e.open {
                if components.len() < MAX_COMPONENTS {
                    components.push(open);
                }
            }
        }
        let indicator = if health == Health::Unknown {
            // An overall word this parser does not know is still reported as is.
            self.overall?.1
        } else {
            let [overall, events, worst] = sources;
            match [overall, events]
                .into_iter()
                .flatten()
                .find(|(h, _)| *h == health)
            {
                Some((_, raw)) => raw,
                // Some parts down beside working ones: the reading is theirs, so it
                // names them (`API: danger`), not one part's bare word, which beside
                // "degraded" would read as the state of the whole.
                None if some_parts_fail => self.down_parts.join("; "),
                None => worst.filter(|(h, _)| *h == health)?.1,
            }
        };
        Some(PageStatus {
            health,
            indicator,
            description,
            components,
        })
    }
}

/// Reads a document by its health vocabulary: the overall word, components and
/// checks, and open incidents; the worst wins.
/// `unread_word` is an overall word a known format reported but this parser does not
/// know.
fn by_words(
    root: &Value,
    unread_word: Option<&str>,
    partial: PartialFailure,
) -> Option<PageStatus> {
    let mut reading = Reading::default();
    if let Some(map) = root.as_object()
        && let Some(Value::String(status)) = map.get("status")
    {
        health_document(map, status, &mut reading);
    }
    generic(root, &mut reading);
    if reading.overall.is_none() {
        reading.overall = unread_word.map(|w| (Health::Unknown, w.to_owned()));
    }
    reading.events = events::read(root);
    reading.finish(partial)
}

/// Lists named for the parts that failed (YugabyteDB's `/api/v1/health-check`:
/// `dead_nodes`, `under_replicated_tablets`): a part listed there degrades the whole,
/// and every such list empty is a clean bill. Read only where nothing else in the
/// document says how it is.
fn failure_lists(map: &Map<String, Value>, reading: &mut Reading) {
    for (k, v) in map.iter().take(MAX_ENTRIES) {
        let Value::Array(items) = v else {
            continue;
        };
        if !names_failed_parts(k) {
            continue;
        }
        let health = if items.is_empty() {
            Health::Healthy
        } else {
            Health::Degraded
        };
        reading.component(k.clone(), format!("{} listed", items.len()), health);
    }
}

/// A name whose first word says what follows failed (`dead_nodes`, `failedChecks`,
/// `unhealthy-hosts`), or that names parts short of their copies (`under_replicated`).
fn names_failed_parts(key: &str) -> bool {
    const FAILED: [&str; 5] = ["dead", "failed", "unhealthy", "unreachable", "offline"];
    let mut words = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in key.chars().take(64) {
        let boundary = !c.is_ascii_alphanumeric() || (c.is_ascii_uppercase() && prev_lower);
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        if c.is_ascii_alphanumeric() {
            word.push(c.to_ascii_lowercase());
        }
        prev_lower = c.is_ascii_lowercase();
    }
    if !word.is_empty() {
        words.push(word);
    }
    let first_two = |a: &str, b: &str| {
        words.first().is_some_and(|w| w == a) && words.get(1).is_some_and(|w| w == b)
    };
    (words.len() >= 2 && FAILED.contains(&words[0].as_str())) || first_two("under", "replicated")
}

/// `application/health+json` and Spring Boot Actuator: the top-level `status` word,
/// the description, and health+json's `checks` map of arrays.
fn health_document(root: &Map<String, Value>, status: &str, reading: &mut Reading) {
    if !is_request_result(root, "status", status) {
        reading.overall = Some((word_health(status), status.to_owned()));
    }
    // health+json: "checks": {"db:responseTime": [{"status": "pass"}, ...]}
    if let Some(checks) = root.get("checks").and_then(Value::as_object) {
        for (name, entries) in checks.iter().take(MAX_ENTRIES) {
            let entries = entries.as_array().map(Vec::as_slice).unwrap_or_default();
            for e in entries.iter().take(MAX_ENTRIES) {
                if let Some(s) = e.get("status").and_then(Value::as_str) {
                    reading.component(name.clone(), s.to_owned(), word_health(s));
                }
            }
        }
    }
    reading.description = text(root.get("description")).or_else(|| text(root.get("output")));
}

/// `ok` or `success` under `status`/`stat` beside a payload: the request worked (an
/// API envelope such as UptimeRobot's or `{"status": "success", "data": {...}}`); it
/// says nothing about the service's health.
fn is_request_result(map: &Map<String, Value>, key: &str, word: &str) -> bool {
    let key = key.to_ascii_lowercase();
    let word: String = word
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .take(20)
        .collect();
    matches!(key.as_str(), "status" | "stat")
        && matches!(word.as_str(), "ok" | "success" | "succeeded")
        && has_payload(map)
}

/// Whether an object carries data beside its scalars: a non-empty array, or an object
/// holding one (a flat header such as Solr's `responseHeader`, or an empty `{}`, is
/// not a payload).
fn has_payload(map: &Map<String, Value>) -> bool {
    let non_empty = |v: &Value| match v {
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        _ => false,
    };
    map.values().take(MAX_ENTRIES).any(|v| match v {
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => o.values().take(MAX_ENTRIES).any(non_empty),
        _ => false,
    })
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

/// The health a status word says, in the common vocabularies: Statuspage component
/// states, green/yellow/red (Elasticsearch, Heroku), pass/warn/fail
/// (`application/health+json`), passing/warning/critical (Consul), UP/DOWN (Spring,
/// MicroProfile), Healthy/Degraded/Unhealthy (ASP.NET Core), ok/failed (RabbitMQ),
/// Available/Degraded/Unavailable (Azure Resource Health), true/false (etcd),
/// working (django-health-check), OK/Partially Available/Unavailable (health-go),
/// success/danger (Bootstrap classes, as UptimeRobot's `statusClass`), SERVING/NOT_SERVING
/// (the gRPC health checking protocol).
/// A word followed by a reason (`unavailable: Database error`, as django-health-check
/// reports a failed check) is read by the word before the colon. A compound the
/// vocabulary does not hold (`MAJOR_INCIDENT_CORE`, `incident`) is read by its parts.
pub(crate) fn word_health(s: &str) -> Health {
    let before_reason = || {
        s.split_once(':')
            .map_or(Health::Unknown, |(word, _)| bare_word_health(word))
    };
    match bare_word_health(s) {
        Health::Unknown => match before_reason() {
            Health::Unknown => parts_health(s),
            h => h,
        },
        h => h,
    }
}

/// A status word as the vocabularies are written: letters and digits only, lower case,
/// at most 40 (`Partial_Outage`, `partial-outage` and `PARTIAL OUTAGE` meet).
fn folded(word: &str) -> String {
    word.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .take(40)
        .collect()
}

fn bare_word_health(s: &str) -> Health {
    let n = folded(s);
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
        | "success"
        // The gRPC health checking protocol's `SERVING` / `NOT_SERVING`.
        | "serving"
        // Graylog's load-balancer probe answers `ALIVE` or `DEAD`.
        | "alive"
        // A ping answered: Immich's `/api/server/ping` says `{"res": "pong"}`, Redis `PONG`.
        | "pong"
        | "allsystemsoperational"
        // A YARN ResourceManager's `clusterInfo.state`: `STARTED`.
        | "started"
        // Azure DevOps status: `advisory` is a notice beside working services.
        | "advisory"
        // A problem over: Microsoft 365 service health's `resolved`, `mitigated`,
        // `falsePositive` (an alarm withdrawn).
        | "resolved"
        | "mitigated"
        | "falsepositive" => Health::Healthy,
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
        | "limited"
        // Vigil's `/status/text` answers `healthy`, `sick` (under high load) or `dead`.
        | "sick" => Health::Degraded,
        "fail" | "failed" | "failure" | "failing" | "error" | "down" | "critical" | "red"
        | "unhealthy" | "majoroutage" | "outage" | "unavailable" | "false" | "outofservice"
        | "downtime" | "offline" | "fatal" | "danger" | "notserving"
        // Unleash's `/health` answers `GOOD` or `BAD`.
        | "bad"
        | "dead"
        // A YARN node no longer heard from: `LOST`.
        | "lost"
        | "stopped" => Health::Down,
        _ => Health::Unknown,
    }
}

/// A compound status read by its parts, split on `_`, `-`, spaces and camelCase (the
/// worst part winning): `MAJOR_INCIDENT_CORE` is down, `MAINTENANCE_CORE` degraded,
/// Microsoft Graph's `serviceDegradation` degraded. Only whole parts count (`incidental`
/// is not `incident`); a negation among the parts (`no issues`, `NOT_OK`) makes the whole
/// unreadable rather than risk the opposite meaning; `partial` or `minor` beside an outage
/// word makes it a partial outage, which is degraded; and a hedge (`unconfirmed_down`,
/// `seems down`) makes an outage a suspicion: something fails, not yet confirmed, which
/// is degraded too.
fn parts_health(s: &str) -> Health {
    let parts: Vec<String> = events::key_words(s).into_iter().take(12).collect();
    if parts.iter().any(|p| {
        matches!(
            p.as_str(),
            "not" | "no" | "non" | "never" | "without" | "zero"
        )
    }) {
        return Health::Unknown;
    }
    // A problem over, whatever it was: resolved, mitigated, a review published after
    // the incident (Microsoft 365's `postIncidentReviewPublished`, `resolvedExternal`).
    let over = parts
        .iter()
        .any(|p| matches!(p.as_str(), "resolved" | "mitigated" | "post"));
    if over {
        return Health::Healthy;
    }
    let partial = parts
        .iter()
        .any(|p| matches!(p.as_str(), "partial" | "partially" | "minor" | "some"));
    let hedged = parts.iter().any(|p| {
        matches!(
            p.as_str(),
            "unconfirmed"
                | "seems"
                | "seem"
                | "suspected"
                | "possible"
                | "possibly"
                | "probable"
                | "probably"
                | "likely"
                | "maybe"
                | "potential"
                | "potentially"
        )
    });
    let health = parts
        .iter()
        .map(|p| match p.as_str() {
            "outage" | "outages" | "critical" | "major" | "down" | "unavailable" | "offline"
            | "failure" | "failed" | "interruption" | "interrupted" => Health::Down,
            // A disruption is less than an outage: Google Cloud's incidents rank
            // `SERVICE_DISRUPTION` below `SERVICE_OUTAGE`.
            "minor" | "incident" | "incidents" | "degraded" | "degradation" | "issue"
            | "issues" | "maintenance" | "partial" | "partially" | "impaired" | "warning"
            | "delayed" | "delays" | "investigating" | "restoring" | "verifying" | "recovery"
            | "warn" | "disruption" | "disrupted" => Health::Degraded,
            // Ceph's `HEALTH_ERR`.
            "err" | "error" => Health::Down,
            // Jaeger's admin port answers "Server available" (and "Server not
            // available", which the negation above leaves unread).
            "ok" | "operational" | "healthy" | "normal" | "restored" | "available" => {
                Health::Healthy
            }
            _ => Health::Unknown,
        })
        .fold(Health::Unknown, worse);
    if (partial || hedged) && health == Health::Down {
        Health::Degraded
    } else {
        health
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
            // Appgram's status-page overview: `current_status`.
            | "currentstatus"
            | "currentstate"
            | "availabilitystate"
            | "condition"
            | "level"
            | "statusclass"
    ) || role_state(&n).is_some()
}

/// A state key named for the node or cluster it describes (Hazelcast's `nodeState`,
/// `clusterState`): its role, when it is one.
fn role_state(folded_key: &str) -> Option<&str> {
    let role = folded_key.strip_suffix("state")?;
    ROLES.contains(&role).then_some(role)
}

/// What a node's or cluster's state is named for.
const ROLES: [&str; 5] = ["node", "cluster", "server", "instance", "member"];

/// A node's or cluster's state word: `ACTIVE` is serving, `PASSIVE` and `FROZEN` accept no
/// changes (Hazelcast's cluster states), `SHUT_DOWN` is down; any other word as a status
/// word.
fn role_state_health(word: &str) -> Health {
    match folded(word).as_str() {
        "active" => Health::Healthy,
        "passive" | "frozen" | "intransition" => Health::Degraded,
        "shutdown" | "shuttingdown" => Health::Down,
        _ => word_health(word),
    }
}

/// Keys whose object value is a map of name → component or check. A health report
/// that probes what it relies on names them its `dependencies` (Predictify's
/// `/api/health/dependencies`: `"dependencies": {"postgres": {"status": "ok"}}`); an
/// entry with no status of its own (a package manifest's `"lodash": "^4.17.21"`) reads
/// as nothing.
const COMPONENT_MAP_KEYS: [&str; 6] = [
    "components",
    "checks",
    "entries",
    "services",
    "details",
    "dependencies",
];

/// Any JSON whose fields carry a health vocabulary: an overall status word (at the top
/// or in a `properties`/`data`/`result` object), health booleans (`healthy`, `sealed`),
/// lists and maps of components or checks (at the top or one wrapper down, a
/// Nagios-style numeric `state` 0/1/2 counting as OK/WARNING/CRITICAL), and check-result
/// series, of which the newest result counts.
fn generic(root: &Value, reading: &mut Reading) {
    let map = match root {
        Value::Object(map) => map,
        Value::Array(_) => {
            collect_components("checks", root, None, reading);
            return;
        }
        _ => return,
    };
    if reading
        .overall
        .as_ref()
        .is_none_or(|o| o.0 == Health::Unknown)
    {
        let mut overall = None;
        let mut roles = Vec::new();
        overall_of(map, 0, &mut overall, &mut roles);
        if let Some(found) = overall {
            reading.overall = Some(found);
        }
        for (name, raw, health) in roles {
            reading.component(name, raw, health);
        }
    }
    // Beside an overall word, flat `<part>_status` fields name the parts it sums up
    // (Mattermost's `database_status` and `filestore_status`).
    if reading.overall.is_some() {
        for (k, v) in map.iter().take(MAX_ENTRIES) {
            let name = folded(k);
            if name.len() > "status".len()
                && name.ends_with("status")
                && !status_key(k)
                && let Some(s) = v.as_str()
            {
                let h = word_health(s);
                if h != Health::Unknown {
                    reading.component(k.clone(), s.to_owned(), h);
                }
            }
        }
    }
    let document_scale = scale::of_document(map);
    for (k, v) in map.iter().take(MAX_ENTRIES) {
        if events::is_event_key(k) {
            continue;
        }
        let read_as_list = collect_components(k, v, document_scale, reading);
        // One wrapper down: `{"status": "success", "data": {"components": [...]}}`,
        // UptimeRobot's `{"psp": {"monitors": [...]}}`.
        if !read_as_list
            && !COMPONENT_MAP_KEYS.contains(&k.as_str())
            && let Value::Object(inner) = v
        {
            for (k2, v2) in inner.iter().take(MAX_ENTRIES) {
                if !events::is_event_key(k2) {
                    collect_components(k2, v2, document_scale, reading);
                }
            }
        }
    }
    raised::safety_flags(map, reading);
    if reading.overall.is_none() && reading.worst_component.is_none() {
        raised::alarms(map, reading);
    }
    if reading.overall.is_none() && reading.worst_component.is_none() {
        failure_lists(map, reading);
    }
    if reading.overall.is_some() || reading.worst_component.is_some() {
        return;
    }
    // Last: top-level fields whose values are health words (`"database": "ok"`), only
    // in a flat document: one that also holds lists or objects this reader could not
    // read (UptimeRobot's `"stat": "ok"` beside numeric monitor states) says nothing
    // healthy by its one word.
    if map.values().any(|v| v.is_object() || v.is_array()) {
        return;
    }
    for (k, v) in map.iter().take(MAX_ENTRIES) {
        if let Some(s) = v.as_str() {
            let h = word_health(s);
            if h != Health::Unknown {
                reading.component(k.clone(), s.to_owned(), h);
            }
        }
        // A ping answered with a one or a `true` (Ensembl's `/info/ping` says
        // `{"ping": 1}`): the service answered.
        if folded(k) == "ping" && (v.as_u64() == Some(1) || v.as_bool() == Some(true)) {
            reading.component(k.clone(), v.to_string(), Health::Healthy);
        }
    }
    if reading.overall.is_some() || reading.worst_component.is_some() {
        return;
    }
    // A probe command's answer whose only verdict is an empty `error` (ZooKeeper's
    // AdminServer `/commands/ruok`: `{"command": "ruok", "error": null}`) is healthy. An
    // error text is not read: it is what an error envelope says too (Spring's 404 `"error":
    // "Not Found"`), and a probe that failed says so by its status (ZooKeeper's 503).
    let no_error = match map.get("error") {
        Some(Value::Null) => true,
        Some(Value::String(t)) => t.trim().is_empty(),
        _ => false,
    };
    if no_error {
        reading.component("error".to_owned(), "null".to_owned(), Health::Healthy);
    }
}

/// Boolean field names whose `true` says something is up (Statping's services say
/// `online`; uptime monitors `alive` or `reachable`).
const UP_FLAGS: [&str; 12] = [
    "healthy",
    // TiDB PD's `/pd/api/v1/health`: each member's `"health": true`.
    "health",
    "ok",
    "up",
    "available",
    "ready",
    "live",
    "alive",
    "online",
    "reachable",
    "success",
    // A check's result: py-healthcheck lists `{"checker": …, "passed": false}`.
    "passed",
];

/// Boolean field names whose `true` says something is wrong.
const DOWN_FLAGS: [&str; 5] = ["sealed", "down", "offline", "degraded", "maintenance"];

/// Boolean field names whose `true` says something failed and whose `false` says it
/// works: a sealed vault, a monitor down, a check with failures or errors (Checkly's
/// `hasFailures`, `hasErrors`).
const FAILED_FLAGS: [&str; 6] = [
    "sealed",
    "down",
    "offline",
    "hasfailures",
    "haserrors",
    "failing",
];

/// A flag's name without an `is` prefix (`is_healthy` is Redpanda's `healthy` flag).
fn flag_name(k: &str) -> String {
    let lower = k.to_ascii_lowercase();
    lower
        .strip_prefix("is_")
        .or_else(|| lower.strip_prefix("is"))
        .filter(|rest| UP_FLAGS.contains(rest) || DOWN_FLAGS.contains(rest))
        .map_or_else(|| lower.clone(), str::to_owned)
}

/// What a boolean flag says (`"healthy": false`, `"sealed": true`, MongoDB's
/// `"ok": 1`), `Unknown` for any other member.
fn flag_health(k: &str, v: &Value) -> Health {
    let n = flag_name(k);
    let flag = v.as_bool().or_else(|| match v.as_u64() {
        Some(1) if n == "ok" => Some(true),
        Some(0) if n == "ok" => Some(false),
        _ => None,
    });
    match (n.as_str(), flag) {
        (n, Some(true)) if UP_FLAGS.contains(&n) => Health::Healthy,
        (n, Some(false)) if UP_FLAGS.contains(&n) => Health::Down,
        (n, Some(true)) if FAILED_FLAGS.contains(&n) => Health::Down,
        ("initialized", Some(false)) => Health::Down,
        // Vault's active node: `"sealed": false`, serving; Checkly's `"hasFailures":
        // false`, passing. (`"degraded": false` or `"maintenance": false` say only what
        // it is not.)
        (n, Some(false)) if FAILED_FLAGS.contains(&n) => Health::Healthy,
        // Nextcloud's `status.php`: `"maintenance": true` while an admin works on it.
        ("degraded" | "maintenance", Some(true)) => Health::Degraded,
        _ => Health::Unknown,
    }
}

/// The overall word of an object, looked for in it and in a few wrapper objects. At
/// the top, per-role objects with their own words (Nomad's `client` and `server`) are
/// also returned as parts in `roles`.
fn overall_of(
    map: &Map<String, Value>,
    depth: usize,
    out: &mut Option<(Health, String)>,
    roles: &mut Vec<(String, String, Health)>,
) {
    if depth > 2 || out.is_some() {
        return;
    }
    for (k, v) in map.iter().take(MAX_ENTRIES) {
        if status_key(k)
            && let Some(s) = v.as_str()
            && !is_request_result(map, k, s)
        {
            let h = if role_state(&folded(k)).is_some() {
                role_state_health(s)
            } else {
                word_health(s)
            };
            if h != Health::Unknown {
                *out = Some((h, s.to_owned()));
                return;
            }
        }
        // Kibana: `"status": {"overall": {"level": "available"}}`.
        if status_key(k)
            && let Some(inner) = v.as_object()
        {
            overall_of(inner, depth + 1, out, &mut Vec::new());
            if out.is_some() {
                return;
            }
        }
        // `{"success": true, "data": {...}}` says the request worked.
        if flag_name(k) == "success" && has_payload(map) {
            continue;
        }
        let h = flag_health(k, v);
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
            overall_of(inner, depth + 1, out, &mut Vec::new());
        }
    }
    // One object named for what it describes, alone at the top (YARN's `{"clusterInfo":
    // {"state": "STARTED", …}}`).
    if out.is_none()
        && depth == 0
        && map.len() == 1
        && let Some((k, Value::Object(inner))) = map.iter().next()
        && folded(k).ends_with("info")
    {
        overall_of(inner, depth + 1, out, &mut Vec::new());
    }
    if out.is_some() || depth > 0 {
        return;
    }
    // Per-role objects with their own flags (Nomad's `client` and `server`, Kafka
    // Connect's `connector`): each is a part, not the document's overall word.
    for (name, inner) in map
        .iter()
        .filter_map(|(k, v)| Some((k, v.as_object()?)))
        .take(MAX_COMPONENTS)
    {
        let mut found = None;
        overall_of(inner, depth + 1, &mut found, &mut Vec::new());
        if let Some((h, w)) = found {
            roles.push((name.clone(), w, h));
        }
    }
}

/// Why a status page's answer gave no reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// The page answered a status other than 2xx or 503 without a health document
    /// naming its failing parts: an error page or an error envelope is not the
    /// dependency's health.
    Status(u16),
    /// The body is not a status page or health document this parser knows.
    NotAStatusDocument,
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Status(code) => write!(f, "status page answered HTTP {code}"),
            Self::NotAStatusDocument => {
                f.write_str("not a recognised status page or health document")
            }
        }
    }
}

/// Reads what a status page or health endpoint answered, status included.
///
/// - 2xx: the body says how healthy the dependency is.
/// - 503: a health endpoint that answers 503 says it is down, whatever its body
///   (Spring Boot, MicroProfile, ASP.NET Core, Kubernetes `/readyz`, Vault and RabbitMQ
///   all do), so a 503 is never read as healthy, and a 503 with an unreadable body is
///   still `Down`.
/// - Any other status: the page is unusable ([`Unreadable::Status`]); a 401 error
///   envelope or a 500 "Internal Server Error" says nothing about the API. The
///   exception is a health document that reads degraded or down and either names parts
///   (django-health-check, Dropwizard and Nomad answer 500 with the failing checks) or,
///   on a 5xx, is a JSON object and no error envelope (Vault answers 501 with
///   `"initialized": false`). A healthy body behind a 5xx is never healthy.
/// - A 4xx whose body is a health document (a JSON object, no error envelope): the
///   body decides, healthy included. Vault answers 429 for a healthy standby node.
///
/// ```
/// use toolgate_signals::status_page::{Health, Unreadable, read_response};
/// assert_eq!(read_response(200, br#"{"status":"DOWN"}"#).unwrap().health, Health::Down);
/// let err = read_response(401, br#"{"status":"error","message":"Unauthorized"}"#);
/// assert_eq!(err, Err(Unreadable::Status(401)));
/// assert_eq!(err.unwrap_err().to_string(), "status page answered HTTP 401");
/// ```
///
/// Without the time it was fetched, an RSS or Atom feed's open entries never age out;
/// [`read_response_at`] reads them at that time.
pub fn read_response(status: u16, body: &[u8]) -> Result<PageStatus, Unreadable> {
    read_at(status, body, None)
}

/// [`read_response`] for an answer fetched at `now`: an RSS or Atom status feed's
/// incident whose newest entry is too old to still be open is over (72 hours for an
/// entry naming no state, 7 days for one saying work goes on). `now` comes from the
/// caller, so the reading depends on the answer and that time alone.
///
/// ```
/// use chrono::{DateTime, Utc};
/// use toolgate_signals::status_page::{Health, read_response_at};
/// let feed = br#"<rss version="2.0"><channel><item><title>Elevated errors</title>
///   <pubDate>Mon, 02 Jun 2025 10:00:00 GMT</pubDate></item></channel></rss>"#;
/// let at = |t: &str| DateTime::parse_from_rfc3339(t).unwrap().with_timezone(&Utc);
/// let fresh = read_response_at(200, feed, at("2025-06-02T12:00:00Z")).unwrap();
/// assert_eq!(fresh.health, Health::Degraded);
/// let weeks_later = read_response_at(200, feed, at("2025-06-20T12:00:00Z")).unwrap();
/// assert_eq!(weeks_later.health, Health::Healthy);
/// ```
pub fn read_response_at(
    status: u16,
    body: &[u8],
    now: DateTime<Utc>,
) -> Result<PageStatus, Unreadable> {
    read_at(status, body, Some(now))
}

fn read_at(status: u16, body: &[u8], now: Option<DateTime<Utc>>) -> Result<PageStatus, Unreadable> {
    let partial = if (200..300).contains(&status) {
        PartialFailure::Degraded
    } else {
        PartialFailure::Down
    };
    let parsed = parse_as(body, partial, now);
    match status {
        200..=299 => parsed.ok_or(Unreadable::NotAStatusDocument),
        503 => Ok(match parsed {
            Some(p) if matches!(p.health, Health::Healthy | Health::Unknown) => PageStatus {
                health: Health::Down,
                ..p
            },
            Some(p) => p,
            None => {
                let text = String::from_utf8_lossy(&body[..body.len().min(512)]);
                let first = text.lines().map(str::trim).find(|l| !l.is_empty());
                PageStatus {
                    health: Health::Down,
                    indicator: "HTTP 503".to_owned(),
                    description: first.map(|l| l.chars().take(120).collect()),
                    components: Vec::new(),
                }
            }
        }),
        // A health endpoint that speaks in role codes answers a 4xx with its own health
        // document: Vault's `sys/health` gives a healthy standby 429 (and 472, 473 to
        // replication secondaries). Such a body, a JSON object and no error envelope,
        // whose reading rests on its health fields (`sealed`, `initialized`) or parts
        // rather than on one bare status word, is the endpoint's own account, and it
        // decides, healthy included. A 401, 403, 404, 405 or 407 is the request refused
        // before any health endpoint answered.
        400..=499
            if !matches!(status, 401 | 403 | 404 | 405 | 407)
                && health_object(body)
                && let Some(p) = parsed.as_ref().filter(|p| !rests_on_status_word(body, p)) =>
        {
            Ok(p.clone())
        }
        _ => parsed
            .filter(|p| {
                matches!(p.health, Health::Degraded | Health::Down)
                    && (!p.components.is_empty()
                        || (status >= 500
                            && (health_object(body)
                                || text::one_word(body)
                                || text::coloured_page(body).is_some())))
            })
            .or_else(|| (status >= 500).then(|| not_ready_envelope(body)).flatten())
            .ok_or(Unreadable::Status(status)),
    }
}

/// Members of an error envelope that say what failed, in its code or its words.
const ENVELOPE_WORDS: [&str; 5] = ["errorCode", "code", "error", "message", "detail"];
/// Characters of one envelope member looked at.
const MAX_ENVELOPE_TEXT: usize = 200;

/// A 5xx error envelope whose code or words say the service itself is not ready or not
/// healthy (Dapr's `/v1.0/healthz` answers 500 `{"errorCode": "ERR_HEALTH_NOT_READY",
/// "message": "dapr is not ready"}`): the endpoint's own account that it is down,
/// unlike an error envelope about the request ("Internal Server Error"), which says
/// nothing of the dependency's health.
fn not_ready_envelope(body: &[u8]) -> Option<PageStatus> {
    // Only a JSON object can be an envelope; anything else costs one byte's look.
    if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(body) else {
        return None;
    };
    let said = ENVELOPE_WORDS.iter().find_map(|key| {
        let text = map.get(*key)?.as_str()?;
        let text: String = text.chars().take(MAX_ENVELOPE_TEXT).collect();
        says_not_ready(&text).then_some(text)
    })?;
    Some(PageStatus {
        health: Health::Down,
        indicator: said.chars().take(60).collect(),
        description: None,
        components: Vec::new(),
    })
}

/// Whether a text says, in whole words, that the service is not ready or not healthy:
/// `unhealthy`, or `not` before `ready`, `healthy` or `serving`, in words or in a code
/// (`ERR_HEALTH_NOT_READY`, "dapr is not ready", `notReady`). Whole words only: "cannot
/// read your file" says nothing of the kind.
fn says_not_ready(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let state = |w: &str| matches!(w, "ready" | "healthy" | "serving");
    words
        .iter()
        .any(|w| w == "unhealthy" || w.strip_prefix("not").is_some_and(state))
        || words.windows(2).any(|p| p[0] == "not" && state(&p[1]))
}

/// Whether `body` is a JSON object that is not an error envelope: a health document in
/// its own right (Vault's `sys/health` answers 501 with `"initialized": false`), unlike
/// `{"status": "error", "message": …}` or `{"error": …}`, which report the request.
fn health_object(body: &[u8]) -> bool {
    body.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{')
        && !crate::body::worth_reading(200, body)
}

/// Whether a reading is only the document's top-level status word (`{"status": "ok"}`):
/// too little to overrule the error status it came with.
fn rests_on_status_word(body: &[u8], reading: &PageStatus) -> bool {
    if !reading.components.is_empty() {
        return false;
    }
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(body) else {
        return true;
    };
    map.iter()
        .take(MAX_ENTRIES)
        .any(|(k, v)| status_key(k) && v.as_str() == Some(reading.indicator.as_str()))
}

/// [`read_response`] without the reason: `None` when the answer gives no reading.
#[must_use]
pub fn parse_response(status: u16, body: &[u8]) -> Option<PageStatus> {
    read_response(status, body).ok()
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
    // The documented code decides; the words (which a page may translate) only when the
    // code is missing or off the scale.
    let health = overall
        .get("status_code")
        .and_then(Value::as_u64)
        .and_then(scale::status_io)
        .unwrap_or_else(|| status_words(&indicator));
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

/// Cachet components: `GET /api/v1/components`, `{"data": [{"name": "API", "status":
/// 1, ...}]}`, and Cachet 3's JSON:API form, `{"data": [{"type": "components",
/// "attributes": {"name": "API", "status": {"value": 1, "human": "Operational"}}}]}`.
///
/// Cachet serves incidents under `data` too, with the same 1–4 numbers meaning
/// Investigating … Fixed; only a list whose every item looks like a component is read
/// here, and incidents are left to the event reader.
fn cachet(root: &Map<String, Value>) -> Option<PageStatus> {
    let data = root.get("data")?.as_array()?;
    let mut levels = Vec::new();
    let mut components = Vec::new();
    for item in data.iter().take(MAX_ENTRIES) {
        let item = item.as_object()?;
        // A JSON:API item says what it is; anything but a component is not read here.
        let typed_other = item
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| !t.to_ascii_lowercase().starts_with("component"));
        if typed_other || events::is_incident_like(item) {
            return None;
        }
        let c = item
            .get("attributes")
            .and_then(Value::as_object)
            .unwrap_or(item);
        if events::is_incident_like(c) {
            return None;
        }
        // The number is `status` (v2), `status_id` (the first API's docs), or
        // `status.value` (Cachet 3).
        let status_object = c.get("status").and_then(Value::as_object);
        let level = c
            .get("status_id")
            .and_then(Value::as_u64)
            .or_else(|| c.get("status").and_then(Value::as_u64))
            .or_else(|| status_object?.get("value")?.as_u64())?;
        let shown = text(c.get("status_name"))
            .or_else(|| text(c.get("status")))
            .or_else(|| text(status_object?.get("human")))
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
