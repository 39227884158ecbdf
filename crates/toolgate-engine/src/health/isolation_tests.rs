//! What one agent's call leaves in the shared state of a tool and its dependency, as
//! another agent allowed the same tool reads it: `dependency_health`'s open incidents
//! and dependency entry, and the notes and signals of its own next call. Alice's call
//! gets a response or error naming her (`alice@example.com`); nothing Bob reads may.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use toolgate_store::Store;

use crate::pipeline::tests::{Reply, Rig, ok, rig_of, two_agents};
use crate::pipeline::{CallOutcome, Origin, run};
use crate::upstream::CallContext;

const ALICE: &str = "alice@example.com";

/// Tool `t` of dependency `api` with `tool_extra`, answering `replies`, and a call of it
/// as `alice` or `bob` with `args`.
struct TwoCallers {
    rig: Rig,
    config: toolgate_config::Config,
    agents: crate::agents::Agents,
}

impl TwoCallers {
    fn new(tool_extra: &str, replies: Vec<Reply>) -> TwoCallers {
        let (config, agents) = two_agents(["alice", "bob"], tool_extra);
        let rig = rig_of(config.tools["t"].clone(), replies);
        TwoCallers {
            rig,
            config,
            agents,
        }
    }

    async fn call_as(&self, agent: &str, args: Value) -> CallOutcome {
        let ctx = CallContext {
            agent: self.agents.caller(self.config.agents.get(agent)),
            ..CallContext::default()
        };
        let Value::Object(args) = args else {
            unreachable!("arguments are an object")
        };
        run(
            &self.rig.route,
            &self.rig.services,
            args,
            Origin::Agent,
            &ctx,
        )
        .await
    }
}

/// What a caller reads of its own call: the failure's sentence or the result, and every
/// note and signal beside it.
fn everything_told(outcome: &CallOutcome) -> String {
    let result = match &outcome.result {
        Ok(s) => format!("{s:?}"),
        Err(f) => f.message.clone(),
    };
    format!(
        "{result}\n{}\n{}",
        outcome.notes.join("\n"),
        json!(outcome.signals)
    )
}

fn temp_store(name: &str) -> (Store, std::path::PathBuf) {
    let dir =
        std::env::temp_dir().join(format!("toolgate-isolation-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    (Store::open(&dir.join("state.db")).unwrap(), dir)
}

/// A declared contract promising `total`; an upstream that answers keyed by the caller
/// (as per-user maps do: Firebase's `/users/{uid}`, a report keyed by e-mail).
const TOTAL_CONTRACT: &str = "\n    contract: { version: \"1.0\", response_schema: { type: object, required: [total], properties: { total: { type: number } } } }";

#[tokio::test]
async fn a_drift_incident_raised_by_one_agents_call_names_no_key_of_its_response_to_another() {
    let two = TwoCallers::new(TOTAL_CONTRACT, vec![ok(r#"{"alice@example.com": 3}"#)]);
    let (store, dir) = temp_store("drift-keys");
    let stop = CancellationToken::new();
    let incidents = two.rig.services.incidents.clone();
    let writer = tokio::spawn(incidents.clone().run_writer(store.clone(), stop.clone()));

    let alice = two.call_as("alice", json!({})).await;
    // Alice is told what changed in her own response, in its own words.
    assert!(
        everything_told(&alice).contains(ALICE),
        "{}",
        everything_told(&alice)
    );

    assert!(incidents.flush(Duration::from_secs(10)).await);
    let open = store.incidents(false).await.unwrap();
    assert_eq!(open.len(), 1, "{open:?}");
    // The owner's incident keeps the detail: owners are operators, not agents.
    assert!(open[0].title.contains(ALICE), "{}", open[0].title);

    // Bob, allowed the same tool, reads the incident in `dependency_health`.
    let bob_reads = json!(super::open_incidents(&open, "api", |_| true)).to_string();
    assert!(!bob_reads.contains("alice"), "{bob_reads}");
    // What he reads still says which promised field broke, and that it was renamed.
    assert!(
        bob_reads.contains("`total` is missing (probably renamed)"),
        "{bob_reads}"
    );

    stop.cancel();
    writer.await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_drift_incident_of_a_changed_type_still_names_the_promised_field() {
    let two = TwoCallers::new(
        TOTAL_CONTRACT,
        vec![ok(
            r#"{"total": "alice@example.com", "alice@example.com": {"plan": "pro"}}"#,
        )],
    );
    let (store, dir) = temp_store("drift-type");
    let stop = CancellationToken::new();
    let incidents = two.rig.services.incidents.clone();
    let writer = tokio::spawn(incidents.clone().run_writer(store.clone(), stop.clone()));

    two.call_as("alice", json!({})).await;
    assert!(incidents.flush(Duration::from_secs(10)).await);
    let open = store.incidents(false).await.unwrap();
    let bob_reads = json!(super::open_incidents(&open, "api", |_| true)).to_string();
    assert!(!bob_reads.contains("alice"), "{bob_reads}");
    assert!(bob_reads.contains("`total` changed type"), "{bob_reads}");
    // The field the contract does not list is counted, not named.
    assert!(
        bob_reads.contains("1 more change not named here"),
        "{bob_reads}"
    );

    stop.cancel();
    writer.await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn an_upstream_error_quoting_one_agents_arguments_stays_with_that_agent() {
    let not_found = Reply {
        status: 404,
        ..ok(r#"{"error": "user alice@example.com not found"}"#)
    };
    let two = TwoCallers::new("", vec![not_found, ok(r#"{"total": 1}"#)]);
    let alice = two.call_as("alice", json!({ "user": ALICE })).await;
    // Alice reads her own error's words.
    assert!(alice.result.is_err());
    assert!(
        everything_told(&alice).contains(ALICE),
        "{}",
        everything_told(&alice)
    );

    // The dependency's entry in `dependency_health`, as any agent reads it.
    let entry = two.rig.route.dependency.snapshot(Instant::now()).to_json();
    assert!(!entry.to_string().contains("alice"), "{entry}");
    let bob = two
        .call_as("bob", json!({ "user": "bob@example.com" }))
        .await;
    assert!(
        !everything_told(&bob).contains("alice"),
        "{}",
        everything_told(&bob)
    );
}

#[test]
fn a_learned_contracts_path_that_reads_as_data_is_counted_not_named() {
    let detail = json!({
        "learned": true,
        "changes": [
            { "kind": "missing", "path": "presence.alice@example.com", "expected": "string" },
            { "kind": "missing", "path": "@odata.nextLink", "expected": "string" },
            { "kind": "type_changed", "path": "files.Q3 report.pdf.size", "expected": "number", "found": "string" }
        ],
        "truncated": 0
    });
    let title = crate::explain::contract_drift_incident("get_presence", &detail).unwrap();
    assert_eq!(
        title,
        "get_presence no longer matches its learned contract: `@odata.nextLink` is missing; 2 more changes not named here"
    );
}
