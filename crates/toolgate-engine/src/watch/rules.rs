//! The built-in alert rules, evaluated inside `toolgate serve` on a timer so that
//! nothing fails silently even without Prometheus. Each rule opens (or updates) an
//! incident for the tool's owner while its condition holds and resolves it when the
//! condition clears. Contract drift is not here: it is raised at once by the call
//! that saw it. Probe failures are raised by the probe runner.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;
use toolgate_resilience::BreakerState;

use crate::explain::human;
use crate::gateway::Gateway;
use crate::sync::lock;
use crate::watch::incidents::Incidents;
use crate::watch::stats::ToolSummary;
use toolgate_config::ToolSpec;
use toolgate_store::{IncidentKind, NewIncident};

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
pub fn evaluate(gateway: &Gateway, now: Instant) {
    // The open incidents come from the incident index (restored from the store at
    // start-up), so a round costs no store read.
    let incidents = gateway.incidents();
    let alerts = &gateway.config().alerts;
    for route in gateway.routes().values() {
        let (tool, state) = (&route.spec, &route.state);
        let (window, auth, recent, history) = {
            let stats = lock(&state.stats);
            (
                stats.summary(now, alerts.recovery_window),
                stats.summary(now, AUTH_WINDOW),
                stats.summary(now, RECENT),
                stats.summary_between(now, HISTORY + RECENT, RECENT),
            )
        };
        retries_not_helping(incidents, tool, &window, alerts.recovery_window);
        credentials_refused(incidents, tool, &auth);
        success_rate_collapsed(incidents, tool, &recent, &history);
        let sunset = lock(&state.deprecation).as_ref().and_then(|d| d.sunset);
        sunset_close(incidents, tool, sunset, alerts.sunset_within);
        if let Some(dep) = gateway.dependency(&tool.dependency.name) {
            let breaker = dep.call_snapshot(now).breaker;
            breaker_open_long(incidents, tool, &breaker, alerts.circuit_open_for);
        }
    }
}

/// Retries that never help: the silent failure this product exists to end.
fn retries_not_helping(
    incidents: &Incidents,
    tool: &ToolSpec,
    window: &ToolSummary,
    recovery_window: Duration,
) {
    for (class, (all, recovered)) in &window.recovery {
        if *all >= MIN_SEQUENCES && *recovered == 0 {
            let title = format!(
                "{}: {all} calls needed a retry after {class} in the last {}, and none recovered — retrying is not helping",
                tool.name,
                human(recovery_window)
            );
            let detail = json!({ "error_class": class, "retry_sequences": all, "recovered": 0, "window_s": recovery_window.as_secs() });
            incidents.raise(incident(
                tool,
                IncidentKind::RecoveryRateZero,
                class,
                title,
                detail,
            ));
        }
    }
    for (class, _) in incidents.open_of(IncidentKind::RecoveryRateZero, &tool.name) {
        let still = window
            .recovery
            .get(class.as_str())
            .is_some_and(|(a, r)| *a >= MIN_SEQUENCES && *r == 0);
        if !still {
            let why = "retries recover again, or none were needed in the window";
            incidents.clear(
                IncidentKind::RecoveryRateZero,
                &tool.name,
                Some(class.as_str()),
                why,
            );
        }
    }
}

/// The incident's title: whose credentials were refused. With `token_exchange` each
/// call goes with a token exchanged for its caller's, so the refusals are of those
/// users' tokens (or of the exchange's audience and scope), not of one token of
/// toolgate's to replace.
fn refused_credentials_title(
    name: &str,
    dependency: &toolgate_config::Dependency,
    failures: u64,
) -> String {
    let window = human(AUTH_WINDOW);
    let exchanged = dependency.token_exchange.is_some();
    let dependency = &dependency.name;
    if exchanged {
        format!(
            "{name}: the upstream refused the tokens exchanged for signed-in users {failures}× in the last {window} — check the token exchange's audience and scope for {dependency}, and those users' access"
        )
    } else {
        format!(
            "{name}: the upstream refused toolgate's credentials {failures}× in the last {window} — check the token for {dependency}"
        )
    }
}

/// Credentials refused.
fn credentials_refused(incidents: &Incidents, tool: &ToolSpec, auth: &ToolSummary) {
    let auth_failures = auth.errors.get("auth").copied().unwrap_or(0);
    if auth_failures > 0 {
        let title = refused_credentials_title(&tool.name, &tool.dependency, auth_failures);
        incidents.raise(incident(
            tool,
            IncidentKind::AuthFailing,
            "",
            title,
            json!({ "failures": auth_failures }),
        ));
    } else if incidents.is_open(IncidentKind::AuthFailing, &tool.name) {
        incidents.clear(
            IncidentKind::AuthFailing,
            &tool.name,
            None,
            "no auth failures in the window",
        );
    }
}

/// Success rate collapsed against the tool's own history.
fn success_rate_collapsed(
    incidents: &Incidents,
    tool: &ToolSpec,
    recent: &ToolSummary,
    history: &ToolSummary,
) {
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
            "{}: success rate {:.0} % over the last {} against {:.0} % the day before",
            tool.name,
            recent.success_rate().unwrap_or(0.0) * 100.0,
            human(RECENT),
            history.success_rate().unwrap_or(0.0) * 100.0
        );
        incidents.raise(incident(
            tool,
            IncidentKind::SuccessRateCollapse,
            "",
            title,
            json!({ "recent": recent, "history": history }),
        ));
    } else if incidents.is_open(IncidentKind::SuccessRateCollapse, &tool.name) {
        incidents.clear(
            IncidentKind::SuccessRateCollapse,
            &tool.name,
            None,
            "success rate is back near its history",
        );
    }
}

/// Sunset close and nothing to move to.
fn sunset_close(
    incidents: &Incidents,
    tool: &ToolSpec,
    sunset: Option<chrono::DateTime<chrono::Utc>>,
    sunset_within: Duration,
) {
    if let Some(sunset) = sunset
        && tool.successor.is_none()
    {
        let left = (sunset - chrono::Utc::now()).to_std().unwrap_or_default();
        if left <= sunset_within {
            let title = format!(
                "{}: the upstream endpoint shuts down on {} (in {}) and no newer contract is configured",
                tool.name,
                sunset.format("%Y-%m-%d"),
                human(left)
            );
            incidents.raise(incident(
                tool,
                IncidentKind::Deprecation,
                "sunset-soon",
                title,
                json!({ "sunset": sunset.to_rfc3339() }),
            ));
        }
    }
}

/// Breaker open for long.
fn breaker_open_long(
    incidents: &Incidents,
    tool: &ToolSpec,
    breaker: &BreakerState,
    circuit_open_for: Duration,
) {
    match *breaker {
        BreakerState::Open { down_for, .. } if down_for >= circuit_open_for => {
            let title = format!(
                "{}: {} has been failing for {}; toolgate is holding its calls back",
                tool.name,
                tool.dependency.name,
                human(down_for)
            );
            incidents.raise(incident(
                tool,
                IncidentKind::CircuitOpenLong,
                "",
                title,
                json!({ "down_for_s": down_for.as_secs() }),
            ));
        }
        BreakerState::Closed if incidents.is_open(IncidentKind::CircuitOpenLong, &tool.name) => {
            incidents.clear(
                IncidentKind::CircuitOpenLong,
                &tool.name,
                None,
                "the circuit closed again",
            );
        }
        _ => {}
    }
}

/// Runs [`evaluate`] every `alerts.evaluate_every` until shutdown.
pub fn spawn(
    gateway: &Arc<Gateway>,
    tasks: &tokio_util::task::TaskTracker,
    shutdown: &tokio_util::sync::CancellationToken,
) {
    let gateway = gateway.clone();
    let shutdown = shutdown.clone();
    let holder = toolgate_store::replica_name(&gateway.config().gateway);
    tasks.spawn(async move {
        loop {
            let every = gateway.config().alerts.evaluate_every;
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = tokio::time::sleep(every) => {}
            }
            if holds_rules_lease(&gateway, &holder, every).await {
                evaluate(&gateway, Instant::now());
            }
        }
    });
}

/// Whether this replica evaluates the rules this round: with a store shared by
/// replicas, only the holder of the `rules` lease does (one page per rule for the
/// fleet). The lease lasts three rounds, so its holder keeps it while it runs and
/// another replica takes over within three rounds when it stops.
async fn holds_rules_lease(gateway: &Gateway, holder: &str, every: std::time::Duration) -> bool {
    let store = gateway.store();
    if !store.is_shared() {
        return true;
    }
    match store.try_lease("rules", holder, every * 3).await {
        Ok(held) => held,
        Err(e) => {
            tracing::warn!(error = %e, "cannot take the alert-rules lease: skipping this round");
            false
        }
    }
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

#[cfg(test)]
mod tests;
