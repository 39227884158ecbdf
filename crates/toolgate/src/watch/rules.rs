//! The built-in alert rules, evaluated inside `toolgate serve` on a timer so that
//! nothing fails silently even without Prometheus. Each rule opens (or updates) an
//! incident for the tool's owner while its condition holds and resolves it when the
//! condition clears. Contract drift is not here: it is raised at once by the call
//! that saw it. Probe failures are raised by the probe runner.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;
use toolgate_resilience::BreakerState;

use crate::config::ToolSpec;
use crate::explain::human;
use crate::gateway::{Gateway, lock};
use crate::store::{IncidentKind, NewIncident};

/// Retry sequences needed before "none recovered" means something (one unlucky call is not a pattern).
const MIN_SEQUENCES: u64 = 3;
/// Window of the auth-failure rule: credentials do not fix themselves, so a short window is enough.
const AUTH_WINDOW: Duration = Duration::from_secs(15 * 60);
/// The recent window of the success-rate rule, and the volume it needs in it.
const RECENT: Duration = Duration::from_secs(30 * 60);
const MIN_RECENT_CALLS: u64 = 20;
/// The history the recent window is compared with (the day before it), and its volume.
const HISTORY: Duration = Duration::from_secs(24 * 3600);
const MIN_HISTORY_CALLS: u64 = 100;
/// "Collapsed": the recent success rate is below this fraction of the historical one.
const COLLAPSE_FACTOR: f64 = 0.5;

/// Evaluates every rule once at `now`.
pub async fn evaluate(gateway: &Gateway, now: Instant) {
    // Without the open incidents the rules could neither update nor resolve them:
    // skip this round loudly rather than act on a wrong picture.
    let open = match gateway.store.incidents(false).await {
        Ok(open) => open,
        Err(e) => {
            tracing::error!(error = %e, "alert rules skipped: the state store is unreadable");
            return;
        }
    };
    let open: HashSet<(String, String, String)> = open
        .into_iter()
        .map(|i| (i.kind.clone(), i.tool.clone(), incident_fingerprint(&i)))
        .collect();
    let is_open = |kind: IncidentKind, tool: &str| {
        open.iter().any(|(k, t, _)| k == kind.as_str() && t == tool)
    };
    let alerts = &gateway.config.alerts;
    for tool in gateway.config.tools.values() {
        let Some(state) = gateway.tools.get(&tool.name) else {
            continue;
        };
        let (window, auth, recent, history) = {
            let stats = lock(&state.stats);
            (
                stats.summary(now, alerts.recovery_window),
                stats.summary(now, AUTH_WINDOW),
                stats.summary(now, RECENT),
                stats.summary_between(now, HISTORY + RECENT, RECENT),
            )
        };

        // Retries that never help: the silent failure this product exists to end.
        for (class, (all, recovered)) in &window.recovery {
            if *all >= MIN_SEQUENCES && *recovered == 0 {
                let title = format!(
                    "{}: {all} calls needed a retry after {class} in the last {}, and none recovered — retrying is not helping (owner {})",
                    tool.name,
                    human(alerts.recovery_window),
                    tool.owner
                );
                let detail = json!({ "error_class": class, "retry_sequences": all, "recovered": 0, "window_s": alerts.recovery_window.as_secs() });
                gateway
                    .raise(incident(
                        tool,
                        IncidentKind::RecoveryRateZero,
                        class,
                        title,
                        detail,
                    ))
                    .await;
            }
        }
        for (kind, tool_name, class) in &open {
            let still = window
                .recovery
                .get(class.as_str())
                .is_some_and(|(a, r)| *a >= MIN_SEQUENCES && *r == 0);
            if kind == IncidentKind::RecoveryRateZero.as_str() && tool_name == &tool.name && !still
            {
                let why = "retries recover again, or none were needed in the window";
                gateway
                    .clear(
                        IncidentKind::RecoveryRateZero,
                        &tool.name,
                        Some(class.clone()),
                        why,
                    )
                    .await;
            }
        }

        // Credentials refused.
        let auth_failures = auth.errors.get("auth").copied().unwrap_or(0);
        if auth_failures > 0 {
            let title = format!(
                "{}: the upstream refused toolgate's credentials {auth_failures}× in the last {} — check the token for {} (owner {})",
                tool.name,
                human(AUTH_WINDOW),
                tool.dependency.name,
                tool.owner
            );
            gateway
                .raise(incident(
                    tool,
                    IncidentKind::AuthFailing,
                    "",
                    title,
                    json!({ "failures": auth_failures }),
                ))
                .await;
        } else if is_open(IncidentKind::AuthFailing, &tool.name) {
            gateway
                .clear(
                    IncidentKind::AuthFailing,
                    &tool.name,
                    None,
                    "no auth failures in the window",
                )
                .await;
        }

        // Success rate collapsed against the tool's own history.
        let collapsed = match (recent.success_rate(), history.success_rate()) {
            (Some(r), Some(h)) => {
                recent.calls >= MIN_RECENT_CALLS
                    && history.calls >= MIN_HISTORY_CALLS
                    && r < COLLAPSE_FACTOR * h
            }
            _ => false,
        };
        if collapsed {
            let title = format!(
                "{}: success rate {:.0} % over the last {} against {:.0} % the day before (owner {})",
                tool.name,
                recent.success_rate().unwrap_or(0.0) * 100.0,
                human(RECENT),
                history.success_rate().unwrap_or(0.0) * 100.0,
                tool.owner
            );
            gateway
                .raise(incident(
                    tool,
                    IncidentKind::SuccessRateCollapse,
                    "",
                    title,
                    json!({ "recent": recent, "history": history }),
                ))
                .await;
        } else if is_open(IncidentKind::SuccessRateCollapse, &tool.name) {
            gateway
                .clear(
                    IncidentKind::SuccessRateCollapse,
                    &tool.name,
                    None,
                    "success rate is back near its history",
                )
                .await;
        }

        // Sunset close and nothing to move to.
        let sunset = lock(&state.deprecation).as_ref().and_then(|d| d.sunset);
        if let Some(sunset) = sunset
            && tool.successor.is_none()
        {
            let left = (sunset - chrono::Utc::now()).to_std().unwrap_or_default();
            if left <= alerts.sunset_within {
                let title = format!(
                    "{}: the upstream endpoint shuts down on {} (in {}) and no newer contract is configured (owner {})",
                    tool.name,
                    sunset.format("%Y-%m-%d"),
                    human(left),
                    tool.owner
                );
                gateway
                    .raise(incident(
                        tool,
                        IncidentKind::Deprecation,
                        "sunset-soon",
                        title,
                        json!({ "sunset": sunset.to_rfc3339() }),
                    ))
                    .await;
            }
        }

        // Breaker open for long.
        if let Some(dep) = gateway.dependency(&tool.dependency.name) {
            match dep.call_snapshot(now).breaker {
                BreakerState::Open { down_for, .. } if down_for >= alerts.circuit_open_for => {
                    let title = format!(
                        "{}: {} has been failing for {}; toolgate is holding its calls back (owner {})",
                        tool.name,
                        tool.dependency.name,
                        human(down_for),
                        tool.owner
                    );
                    gateway
                        .raise(incident(
                            tool,
                            IncidentKind::CircuitOpenLong,
                            "",
                            title,
                            json!({ "down_for_s": down_for.as_secs() }),
                        ))
                        .await;
                }
                BreakerState::Closed if is_open(IncidentKind::CircuitOpenLong, &tool.name) => {
                    gateway
                        .clear(
                            IncidentKind::CircuitOpenLong,
                            &tool.name,
                            None,
                            "the circuit closed again",
                        )
                        .await;
                }
                _ => {}
            }
        }
    }
}

/// Runs [`evaluate`] every `alerts.evaluate_every` until shutdown.
pub fn spawn(gateway: Arc<Gateway>, shutdown: tokio_util::sync::CancellationToken) {
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = tokio::time::sleep(gateway.config.alerts.evaluate_every) => {}
            }
            evaluate(&gateway, Instant::now()).await;
        }
    });
}

fn incident(
    tool: &ToolSpec,
    kind: IncidentKind,
    fingerprint: &str,
    title: String,
    detail: serde_json::Value,
) -> NewIncident {
    NewIncident {
        kind,
        tool: tool.name.clone(),
        dependency: tool.dependency.name.clone(),
        owner: tool.owner.clone(),
        fingerprint: fingerprint.to_string(),
        title,
        detail,
        contract_version: Some(tool.contract.version.clone()),
    }
}

/// The class a recovery-rate incident is about (its fingerprint), from its detail.
fn incident_fingerprint(i: &crate::store::Incident) -> String {
    i.detail
        .get("error_class")
        .and_then(|c| c.as_str())
        .unwrap_or_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolgate_resilience::ErrorClass;

    fn gateway() -> (Arc<Gateway>, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!(
            "toolgate-rules-{}-{}",
            std::process::id(),
            rand::random::<u32>()
        ));
        let yaml = format!(
            r#"
gateway: {{ state: {state} }}
dependencies:
  api: {{ base_url: "http://127.0.0.1:9" }}
tools:
  failing:
    dependency: api
    owner: alice@example.com
    request: {{ path: /a }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
  recovering:
    dependency: api
    owner: bob@example.com
    request: {{ path: /b }}
    contract: {{ version: "1.0", response_schema: {{ type: object }} }}
"#,
            state = dir.join("s.db").display()
        );
        let env = |_: &str| None;
        let config = crate::config::parse(
            std::path::Path::new("t.yaml"),
            &yaml,
            std::path::Path::new("."),
            &env,
        )
        .unwrap();
        let store = crate::store::Store::open(&config.gateway.state).unwrap();
        (Gateway::new(config, store), dir)
    }

    fn record(g: &Gateway, tool: &str, now: Instant, recovered: bool) {
        let class = ErrorClass::Timeout;
        let outcome = if recovered { None } else { Some(class) };
        let retries = [class, class];
        lock(&g.tools[tool].stats).call(now, outcome, &retries, Some((class, recovered)));
    }

    #[tokio::test(start_paused = true)]
    async fn retries_that_never_recover_open_an_incident_and_some_recoveries_do_not() {
        let (g, dir) = gateway();
        let t0 = Instant::now();
        for i in 0..10 {
            record(&g, "failing", t0 + Duration::from_secs(60 * i), false);
            // One in three recovers: retries help, nobody needs waking up.
            record(
                &g,
                "recovering",
                t0 + Duration::from_secs(60 * i),
                i % 3 == 0,
            );
        }
        let now = t0 + Duration::from_secs(600);
        evaluate(&g, now).await;
        let open = g.store.incidents(false).await.unwrap();
        assert_eq!(open.len(), 1, "{open:?}");
        assert_eq!(open[0].kind, "recovery_rate_zero");
        assert_eq!(open[0].tool, "failing");
        assert!(
            open[0].title.contains("timeout") && open[0].title.contains("alice@example.com"),
            "{}",
            open[0].title
        );

        // Evaluating again updates the same incident instead of opening another.
        evaluate(&g, now + Duration::from_secs(30)).await;
        let open = g.store.incidents(false).await.unwrap();
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].count, 2);

        // Once the window holds no failing retries, the incident resolves by itself.
        evaluate(&g, now + Duration::from_secs(2 * 3600)).await;
        assert!(g.store.incidents(false).await.unwrap().is_empty());
        let all = g.store.incidents(true).await.unwrap();
        assert_eq!(all[0].status, "resolved");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[tokio::test(start_paused = true)]
    async fn auth_failures_and_a_success_rate_collapse_are_raised_and_cleared() {
        let (g, dir) = gateway();
        let t0 = Instant::now();
        // A day of 95 % success, then half an hour of mostly auth failures.
        for i in 0..200u64 {
            let outcome = if i % 20 == 0 {
                Some(ErrorClass::ServerError)
            } else {
                None
            };
            lock(&g.tools["failing"].stats).call(
                t0 + Duration::from_secs(400 * i),
                outcome,
                &[],
                None,
            );
        }
        let start = t0 + Duration::from_secs(400 * 200);
        for i in 0..30u64 {
            let outcome = if i % 10 == 0 {
                None
            } else {
                Some(ErrorClass::Auth)
            };
            lock(&g.tools["failing"].stats).call(
                start + Duration::from_secs(30 * i),
                outcome,
                &[],
                None,
            );
        }
        let now = start + Duration::from_secs(900);
        evaluate(&g, now).await;
        let kinds: Vec<String> = g
            .store
            .incidents(false)
            .await
            .unwrap()
            .into_iter()
            .map(|i| i.kind)
            .collect();
        assert!(kinds.contains(&"auth_failing".to_string()), "{kinds:?}");
        assert!(
            kinds.contains(&"success_rate_collapse".to_string()),
            "{kinds:?}"
        );
        // An hour later with no calls at all: both conditions are gone.
        evaluate(&g, now + Duration::from_secs(3600)).await;
        assert!(g.store.incidents(false).await.unwrap().is_empty());
        let _ = std::fs::remove_dir_all(dir);
    }
}
