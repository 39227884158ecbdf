//! An upstream whose every reply tells its incident apart: a map keyed by data (currency
//! codes, ids) whose values change type under a key that is new on every reply, or a
//! newer version announced with a patch number new on every reply. Each reply would be
//! an incident of its own.

use super::*;
use crate::watch::incidents::{CROWDED, MAX_OPEN_PER_TOOL};

const RATES: &str = r#"
dependencies:
  fx_api: { base_url: "http://127.0.0.1:9" }
tools:
  rates:
    dependency: fx_api
    owner: fx-team@example.com
    request: { method: GET, path: /rates }
    contract:
      version: "1.0"
      response_schema:
        type: object
        required: [rates]
        properties:
          rates: { type: object, additionalProperties: { type: number } }
"#;

fn rates() -> Arc<ToolSpec> {
    let config = crate::fixtures::config(RATES);
    config.tools["rates"].clone()
}

/// A reply whose one rate is a string under a key no reply used before.
fn drifting_under(key: usize) -> Reply {
    let body: &'static str =
        Box::leak(format!(r#"{{"rates":{{"K{key}":"1.1"}}}}"#).into_boxed_str());
    ok(body)
}

#[tokio::test(start_paused = true)]
async fn replies_drifting_under_a_new_map_key_each_open_a_bounded_number_of_incidents() {
    let replies: Vec<Reply> = (0..500).map(drifting_under).collect();
    let rig = rig_of(rates(), replies);
    for _ in 0..500 {
        rig.call(json!({})).await;
    }
    let open = rig
        .services
        .incidents
        .open_of(IncidentKind::ContractDrift, "rates");
    assert_eq!(
        open.len(),
        MAX_OPEN_PER_TOOL + 1,
        "{} incidents open",
        open.len()
    );
    assert!(open.iter().any(|(fp, _)| fp == CROWDED), "{open:?}");
    // Every drifted reply is still counted.
    assert_eq!(
        rig.metric("toolgate_contract_drift_total{tool=\"rates\"}"),
        500.0
    );
}

#[tokio::test(start_paused = true)]
async fn a_map_of_numbers_is_valid_and_one_drift_is_one_incident() {
    let rig = rig_of(
        rates(),
        vec![
            ok(r#"{"rates":{"EUR":1.08,"GBP":1.27}}"#),
            ok(r#"{"rates":{"EUR":"1.08"}}"#),
        ],
    );
    assert!(rig.call(json!({})).await.result.is_ok());
    for _ in 0..5 {
        rig.call(json!({})).await;
    }
    let open = rig
        .services
        .incidents
        .open_of(IncidentKind::ContractDrift, "rates");
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!(open[0].1, 4, "four repeat sightings");
}

const VERSIONED: &str = r#"
dependencies:
  fx_api:
    base_url: "http://127.0.0.1:9"
    version: { header: API-Version, gate: warn }
tools:
  rates:
    dependency: fx_api
    owner: fx-team@example.com
    request: { method: GET, path: /rates }
    contract: { version: "1.0", response_schema: { type: object } }
"#;

/// A reply announcing upstream version `1.<minor>.<patch>`.
fn announcing(minor: u32, patch: u32) -> Reply {
    Reply {
        headers: vec![("api-version", format!("1.{minor}.{patch}"))],
        ..ok("{}")
    }
}

#[tokio::test(start_paused = true)]
async fn a_newer_version_announced_differently_on_every_reply_opens_a_bounded_number_of_incidents()
{
    let config = crate::fixtures::config(VERSIONED);
    let replies: Vec<Reply> = (0..300).map(|i| announcing(1, i)).collect();
    let rig = rig_of(config.tools["rates"].clone(), replies);
    for _ in 0..300 {
        assert!(
            rig.call(json!({})).await.result.is_ok(),
            "gate: warn calls on"
        );
    }
    let open = rig
        .services
        .incidents
        .open_of(IncidentKind::WrapperOutdated, "rates");
    assert_eq!(
        open.len(),
        MAX_OPEN_PER_TOOL + 1,
        "{} incidents open",
        open.len()
    );

    // The same newer version on every reply is one incident.
    let steady = rig_of(config.tools["rates"].clone(), vec![announcing(2, 0)]);
    for _ in 0..10 {
        steady.call(json!({})).await;
    }
    let open = steady
        .services
        .incidents
        .open_of(IncidentKind::WrapperOutdated, "rates");
    assert_eq!(open.len(), 1, "{open:?}");
}
