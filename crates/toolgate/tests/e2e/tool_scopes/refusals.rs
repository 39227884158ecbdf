//! What a scope refusal leaves behind: its audit record (who, which tool, `forbidden`,
//! never the credential or an argument's value) and its count, for the agent and for
//! the tool, on `/metrics`.

use std::time::Duration;

use serde_json::{Value, json};

use super::{API_KEY, Setup, gateway};
use crate::harness::metric;

/// Looks like a credential a model might paste into an argument.
const SECRET: &str = "sk-live-4b3a29f8e7d6c5b41706f5e4";

impl Setup {
    /// POSTs a stateless 2026-07-28 `tools/call` of `tool` with `arguments`.
    async fn call_with(&self, credential: &str, tool: &str, arguments: Value) -> reqwest::Response {
        super::post_stateless_call(&self.tg.url, credential, tool, arguments).await
    }

    /// The audit trail as `credential` reads it at `/admin/audit`, once written.
    async fn own_audit(&self, credential: &str) -> String {
        let log = self
            .tg
            .gateway
            .audit()
            .expect("the audit trail is on by default");
        assert!(
            log.flush(Duration::from_secs(10)).await,
            "the audit writer did not catch up"
        );
        let r = reqwest::Client::new()
            .get(format!("{}/admin/audit?limit=100", self.tg.base))
            .bearer_auth(credential)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        r.text().await.unwrap()
    }
}

#[tokio::test]
async fn a_scope_refusal_is_audited_as_forbidden_for_its_agent_and_tool_without_the_credential_or_arguments()
 {
    let s = gateway().await;
    let r = s
        .call_with(API_KEY, "pay", json!({"memo": SECRET, "amount": 12}))
        .await;
    assert_eq!(r.status(), 403);
    let body = s.own_audit(API_KEY).await;
    let records: Vec<Value> = body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 1, "{body}");
    let record = &records[0];
    assert_eq!(record["agent"], "ledger-export");
    assert_eq!(record["tool"], "pay");
    assert_eq!(record["outcome"], "forbidden");
    assert_eq!(record["attempts"], 0, "nothing was sent upstream");
    assert_eq!(record["request_id"], "\"call-41\"");
    assert_eq!(
        record["args_sha256"],
        toolgate_engine::audit::args_sha256(
            json!({"memo": SECRET, "amount": 12}).as_object().unwrap()
        )
        .as_str()
    );
    assert!(!body.contains(SECRET), "no argument value: {body}");
    assert!(!body.contains(API_KEY), "no credential: {body}");
    assert_eq!(s.upstream_calls(), 0);

    // An access token's refusal: the token itself is nowhere in the trail either.
    let token = s.token("alice", "tools:call");
    assert_eq!(s.call_with(&token, "pay", json!({})).await.status(), 403);
    let log = s.tg.gateway.audit().unwrap();
    assert!(log.flush(Duration::from_secs(10)).await);
    let all =
        s.tg.gateway
            .store()
            .audit(toolgate_store::AuditQuery {
                tool: Some("pay".into()),
                limit: 100,
                ..Default::default()
            })
            .await
            .unwrap();
    let text = serde_json::to_string(&all).unwrap();
    assert_eq!(all.len(), 2, "{text}");
    assert!(
        all.iter()
            .any(|r| r.agent == "anonymous" && r.outcome == "forbidden"),
        "{text}"
    );
    assert!(!text.contains(&token), "no access token: {text}");
}

#[tokio::test]
async fn a_scope_refusal_is_counted_in_the_tools_calls_as_forbidden_like_the_agents() {
    let s = gateway().await;
    let small = s.token("alice", "tools:call");
    s.fronted_ready(&small).await;
    assert_eq!(s.call_with(&small, "pay", json!({})).await.status(), 403);
    assert_eq!(s.call_with(API_KEY, "pay", json!({})).await.status(), 403);
    assert_eq!(
        s.call_with(&small, "kg__create_entities", json!({}))
            .await
            .status(),
        403
    );
    let metrics = s.tg.metrics().await;
    assert_eq!(
        metric(
            &metrics,
            r#"toolgate_tool_calls_total{tool="pay",outcome="forbidden"}"#
        ),
        2.0
    );
    assert_eq!(
        metric(
            &metrics,
            r#"toolgate_tool_calls_total{tool="kg__create_entities",outcome="forbidden"}"#
        ),
        1.0
    );
    // The agents' series and the tools' add up to the same refusals.
    let agents = metric(
        &metrics,
        r#"toolgate_agent_calls_total{agent="anonymous",outcome="forbidden"}"#,
    ) + metric(
        &metrics,
        r#"toolgate_agent_calls_total{agent="ledger-export",outcome="forbidden"}"#,
    );
    assert_eq!(agents, 3.0);
}
