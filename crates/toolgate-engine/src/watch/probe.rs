//! Contract probes: each tool may declare arguments and an interval; toolgate calls
//! it on schedule, independent of user traffic, through the same pipeline (so probes
//! respect quota pacing and the breaker, and drift raises the same incident), but
//! labelled as probes and kept out of the user-facing numbers.

use std::sync::Arc;
use std::time::Duration;

use rand::RngExt as _;
use serde::Serialize;
use serde_json::json;

use crate::gateway::Gateway;
use crate::metrics::ToolLabel;
use crate::pipeline::Origin;
use toolgate_config::ToolSpec;
use toolgate_store::{IncidentKind, NewIncident};

/// The result of one probe.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeReport {
    /// Tool probed.
    pub tool: String,
    /// Owner.
    pub owner: String,
    /// Contract version checked.
    pub contract_version: String,
    /// Whether the live response matched the contract.
    pub ok: bool,
    /// Error class, when it failed.
    pub error_class: Option<String>,
    /// The model-facing message when it failed.
    pub message: Option<String>,
    /// One-line drift summary.
    pub drift: Option<String>,
    /// Milliseconds taken.
    pub elapsed_ms: u64,
}

/// Probes `tool` once and records the result (metric, store, incidents).
pub async fn probe(gateway: &Arc<Gateway>, tool: &Arc<ToolSpec>) -> ProbeReport {
    let args = tool
        .probe
        .as_ref()
        .map(|p| p.arguments.clone())
        .unwrap_or_default();
    let started = tokio::time::Instant::now();
    let outcome = gateway.call_as(tool, args, Origin::Probe).await;
    let (ok, class, message, drift) = match &outcome.result {
        Ok(_) => (true, None, None, None),
        Err(f) => (
            false,
            Some(f.class.as_str().to_string()),
            Some(f.message.clone()),
            f.drift.as_ref().map(|d| d.summary()),
        ),
    };
    let label = ToolLabel {
        tool: Arc::from(tool.name.as_str()),
    };
    gateway
        .metrics()
        .probe_success
        .get_or_create(&label)
        .set(i64::from(ok));
    let detail = message.clone().unwrap_or_else(|| "ok".into());
    if let Err(e) = gateway
        .store()
        .record_probe(tool.name.clone(), ok, class.clone(), detail)
        .await
    {
        tracing::error!(tool = %tool.name, error = %e, "could not record the probe result");
    }
    match (&class, ok) {
        (_, true) => gateway.incidents().clear(
            IncidentKind::ProbeFailing,
            &tool.name,
            None,
            "the probe passes again",
        ),
        // Drift already raised its own incident, with the diff: one page, not two.
        (Some(c), false) if c == "contract_drift" => {}
        (Some(c), false) => {
            let title = format!(
                "{}: the contract probe fails ({c}) — {}",
                tool.name,
                message.as_deref().unwrap_or(""),
            );
            gateway.incidents().raise(NewIncident {
                kind: IncidentKind::ProbeFailing,
                tool: tool.name.clone(),
                dependency: tool.dependency.name.clone(),
                owner: tool.owner.clone(),
                fingerprint: c.clone(),
                title,
                detail: json!({ "error_class": c, "message": message }),
                contract_version: Some(tool.contract.version.clone()),
            });
        }
        (None, false) => {}
    }
    ProbeReport {
        tool: tool.name.clone(),
        owner: tool.owner.clone(),
        contract_version: tool.contract.version.clone(),
        ok,
        error_class: class,
        message,
        drift,
        elapsed_ms: started.elapsed().as_millis() as u64,
    }
}

/// Runs every tool's probe on its interval, with ±10 % jitter so probes of many
/// tools do not line up; one probe per tool is in flight at most (the loop is sequential).
pub fn spawn(
    gateway: &Arc<Gateway>,
    tasks: &tokio_util::task::TaskTracker,
    shutdown: &tokio_util::sync::CancellationToken,
) {
    // HTTP tools by name; an upstream MCP server's probed tools by the name they are
    // exposed under, looked up at each run (they appear once the server's tools are
    // known, and disappear while a changed definition is blocked).
    let mut probed: Vec<(String, Duration)> = gateway
        .config()
        .tools
        .values()
        .filter_map(|t| t.probe.as_ref().map(|p| (t.name.clone(), p.every)))
        .collect();
    for server in gateway.config().mcp_servers.values() {
        for (tool, o) in &server.tools {
            if let Some(p) = &o.probe {
                probed.push((server.exposed_name(tool), p.every));
            }
        }
    }
    let holder: Arc<str> = toolgate_store::replica_name(&gateway.config().gateway).into();
    for (name, every) in probed {
        let gateway = gateway.clone();
        let shutdown = shutdown.clone();
        let holder = holder.clone();
        tasks.spawn(async move {
            // First run soon after start, spread over a tenth of the interval.
            let mut wait = jitter(every / 10, 1.0);
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => break,
                    _ = tokio::time::sleep(wait) => {}
                }
                wait = jitter(every, 0.1);
                let Some(tool) = gateway.tool(&name) else {
                    continue;
                };
                if !probe_lease(&gateway, &name, &holder, every).await {
                    continue;
                }
                let report = probe(&gateway, &tool).await;
                if !report.ok {
                    tracing::warn!(tool = %report.tool, class = ?report.error_class, "contract probe failed");
                }
            }
        });
    }
}

/// Whether this replica runs this interval's probe of `tool`: with a store shared by
/// replicas, the one holding the tool's probe lease does, so the fleet probes once per
/// interval. The lease outlives an interval (with its jitter) so its holder keeps it
/// from one probe to the next; if the holder goes away, another replica takes over
/// within one and a half intervals. When the store cannot be asked, nobody probes
/// (the store being down is what `/readyz` reports).
async fn probe_lease(gateway: &Gateway, tool: &str, holder: &str, every: Duration) -> bool {
    let store = gateway.store();
    if !store.is_shared() {
        return true;
    }
    match store
        .try_lease(&format!("probe:{tool}"), holder, every.mul_f64(1.5))
        .await
    {
        Ok(held) => held,
        Err(e) => {
            tracing::warn!(%tool, error = %e, "cannot take the probe lease: skipping this probe");
            false
        }
    }
}

/// `d` scaled by a random factor in `[1 - spread, 1 + spread]` (or `[0, d]` for spread 1).
fn jitter(d: Duration, spread: f64) -> Duration {
    let factor = if spread >= 1.0 {
        rand::rng().random_range(0.0..=1.0)
    } else {
        rand::rng().random_range(1.0 - spread..=1.0 + spread)
    };
    d.mul_f64(factor)
}

/// JUnit XML for `toolgate probe --format junit` (one test case per probe).
pub fn junit(reports: &[ProbeReport]) -> String {
    let failures = reports.iter().filter(|r| !r.ok).count();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"toolgate contract probes\" tests=\"{}\" failures=\"{failures}\">\n",
        reports.len()
    );
    for r in reports {
        let name = xml_escape(&format!("{} contract v{}", r.tool, r.contract_version));
        let secs = r.elapsed_ms as f64 / 1000.0;
        if r.ok {
            out.push_str(&format!(
                "  <testcase classname=\"toolgate.probe\" name=\"{name}\" time=\"{secs:.3}\"/>\n"
            ));
        } else {
            let kind = xml_escape(r.error_class.as_deref().unwrap_or("error"));
            let summary = xml_escape(
                r.drift
                    .as_deref()
                    .unwrap_or(r.message.as_deref().unwrap_or("")),
            );
            let body = xml_escape(&format!(
                "owner: {}\n{}",
                r.owner,
                r.message.as_deref().unwrap_or("")
            ));
            out.push_str(&format!(
                "  <testcase classname=\"toolgate.probe\" name=\"{name}\" time=\"{secs:.3}\">\n    <failure type=\"{kind}\" message=\"{summary}\">{body}</failure>\n  </testcase>\n"
            ));
        }
    }
    out.push_str("</testsuite>\n");
    out
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junit_marks_failures_with_the_diff_and_escapes_it() {
        let ok = ProbeReport {
            tool: "a".into(),
            owner: "o".into(),
            contract_version: "1.0".into(),
            ok: true,
            error_class: None,
            message: None,
            drift: None,
            elapsed_ms: 12,
        };
        let bad = ProbeReport {
            tool: "web_search".into(),
            ok: false,
            error_class: Some("contract_drift".into()),
            message: Some("failed <badly> & \"loudly\"".into()),
            drift: Some("missing results[].snippet; new results[].excerpt".into()),
            ..ok.clone()
        };
        let xml = junit(&[ok, bad]);
        assert!(xml.contains("tests=\"2\" failures=\"1\""));
        assert!(xml.contains(
            "type=\"contract_drift\" message=\"missing results[].snippet; new results[].excerpt\""
        ));
        assert!(xml.contains("failed &lt;badly&gt; &amp; &quot;loudly&quot;"));
    }

    #[test]
    fn jitter_stays_within_its_spread() {
        for _ in 0..100 {
            let d = jitter(Duration::from_secs(100), 0.1);
            assert!(d >= Duration::from_secs(90) && d <= Duration::from_secs(110));
        }
    }
}
