//! Stage 5: what a finished call leaves behind — metrics and windows, the drift
//! incident opened or closed, the model's notes and `_meta["dev.toolgate/signals"]`,
//! and the trace span's end.

use std::sync::atomic::Ordering;

use serde_json::{Value, json};
use tokio::time::Instant;
use toolgate_resilience::ErrorClass;
use toolgate_signals::Deprecation;
use toolgate_store::{IncidentKind, NewIncident};

use super::incident::{self, NO_DIFF};
use super::signals::{self, CallSignals};
use super::{Call, CallOutcome, Failure, Origin, Route, Services, Structured};
use crate::explain;
use crate::metrics::{Class, SequenceLabels};
use crate::sync::lock;
use crate::upstream::Upstream;

/// Stage 5: metrics, windows, incidents, notes and `_meta`.
pub(super) fn record<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    mut call: Call,
    result: Result<Structured, Failure>,
) -> CallOutcome {
    let spec = &route.spec;
    let class = result.as_ref().err().map(|f| f.class);
    count_call(route, services, &call, class, result.is_ok());
    let warned = call.warned_drift.take().filter(|_| result.is_ok());
    report_drift(route, services, &call, &result, warned.as_ref());
    let now = Instant::now();
    let deprecation = route
        .state
        .deprecation()
        .map(|d| crate::upstream::own_origin::for_model(&spec.dependency, d));
    let snapshot = route.dependency.call_snapshot(now);
    // The gauges are the dependency's; a caller's own quota is its call's alone.
    services.metrics.record_dependency(
        &spec.dependency.name,
        &route.dependency.series,
        &snapshot.gauges(),
    );
    let snapshot = snapshot.with_callers_own_quotas(&call.own_quotas);
    let notes = call_notes(
        spec,
        &call,
        class,
        &snapshot,
        deprecation.as_ref(),
        warned.as_ref(),
    );
    let mut signals = call_signals(
        spec,
        &call,
        &result,
        &snapshot,
        deprecation.as_ref(),
        warned.as_ref(),
    );
    signals.incident = incident::touched(route, services, &result, warned.as_ref(), &call);
    end_trace(&mut call, &result, class, &snapshot);
    CallOutcome {
        result,
        notes,
        signals,
    }
}

/// The call in the tool's metrics and windows (the alert rules read the windows).
fn count_call<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    call: &Call,
    class: Option<ErrorClass>,
    ok: bool,
) {
    // Probe traffic stays out of the user-facing numbers (it has its own metric).
    if call.origin == Origin::Agent {
        services
            .metrics
            .count_tool_call(&route.series, &route.label, class);
        if let Some((first, ended)) = call.retry.sequence() {
            services
                .metrics
                .retry_sequences
                .get_or_create(&SequenceLabels {
                    tool: route.label.clone(),
                    error_class: Class(first),
                    outcome: ended.into(),
                })
                .inc();
        }
        let sequence = call.retry.sequence().map(|(c, _)| (c, ok));
        lock(&route.state.stats).call(Instant::now(), class, call.retry.retried(), sequence);
    }
}

/// A drift seen opens (or updates) the owner's incident; a contract that holds again
/// closes it.
fn report_drift<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    call: &Call,
    result: &Result<Structured, Failure>,
    warned: Option<&(toolgate_contract::Drift, Option<u64>)>,
) {
    match result {
        Ok(_) if warned.is_some() => {
            if let Some((drift, _)) = warned {
                warned_drift_detected(route, services, drift, call.agent.as_ref());
            }
        }
        Ok(_) => contract_holds(route, services),
        Err(f) if f.class == ErrorClass::ContractDrift && call.retry.attempts() > 0 => {
            drift_detected(route, services, f, call.agent.as_ref());
        }
        Err(_) => {}
    }
}

/// The tool's successor as the calling agent may learn it.
fn successor_for<'a>(
    spec: &'a toolgate_config::ToolSpec,
    call: &Call,
) -> crate::successor::Successor<'a> {
    crate::successor::Successor::for_reader(
        spec.successor.as_deref(),
        call.agent.as_ref().map(|a| a.spec().as_ref()),
    )
}

/// The model's notes: the dependency's state, the reply's warnings and unread headers,
/// and a drift that a learned contract only warns about.
fn call_notes(
    spec: &toolgate_config::ToolSpec,
    call: &Call,
    class: Option<ErrorClass>,
    snapshot: &crate::dependency::Snapshot,
    deprecation: Option<&Deprecation>,
    warned: Option<&(toolgate_contract::Drift, Option<u64>)>,
) -> Vec<String> {
    let mut notes = crate::notes::notes(
        &spec.name,
        &spec.dependency.name,
        successor_for(spec, call),
        snapshot,
        deprecation,
        call.spaced,
        class == Some(ErrorClass::RateLimited),
        chrono::Utc::now(),
    );
    notes.extend(
        call.warnings
            .iter()
            .map(|w| crate::notes::warning_note(&spec.name, w)),
    );
    notes.extend(
        call.unread
            .iter()
            .map(|u| crate::notes::unread_note(&spec.name, u)),
    );
    if let Some((drift, samples)) = warned {
        notes.push(crate::notes::drift_note(
            &spec.name,
            &explain::contract_name(spec),
            *samples,
            drift,
        ));
    }
    notes
}

/// `_meta["dev.toolgate/signals"]` of the call.
fn call_signals(
    spec: &toolgate_config::ToolSpec,
    call: &Call,
    result: &Result<Structured, Failure>,
    snapshot: &crate::dependency::Snapshot,
    deprecation: Option<&Deprecation>,
    warned: Option<&(toolgate_contract::Drift, Option<u64>)>,
) -> CallSignals {
    let mut signals = CallSignals::new(&spec.name, &spec.contract.version, call.retry.attempts());
    if let Err(f) = result {
        let retryable = f.retryable(spec.retry_safe());
        signals.failed(f.class, retryable, f.retry_after);
        signals.elapsed_ms = Some(call.started.elapsed().as_millis() as u64);
        signals.drift = match (&f.drift, f.drift_cause) {
            (Some(d), _) => Some(signals::DriftSignal {
                summary: d.summary(),
                changes: d.changes.clone(),
                truncated: d.truncated,
            }),
            (None, Some(cause)) => Some(signals::DriftSignal {
                summary: cause.to_string(),
                changes: Vec::new(),
                truncated: 0,
            }),
            (None, None) => None,
        };
    }
    if let Some((d, _)) = warned {
        signals.drift = Some(signals::DriftSignal {
            summary: d.summary(),
            changes: d.changes.clone(),
            truncated: d.truncated,
        });
    }
    signals.dependency_state(&spec.dependency.name, snapshot, call.paced, call.latency);
    if let Some(d) = deprecation {
        signals.deprecation(d, successor_for(spec, call).name());
    }
    signals.warnings.clone_from(&call.warnings);
    signals
}

/// The call's trace span, ended with its class, attempts and drift.
fn end_trace(
    call: &mut Call,
    result: &Result<Structured, Failure>,
    class: Option<ErrorClass>,
    snapshot: &crate::dependency::Snapshot,
) {
    if let Some(trace) = call.trace.take() {
        let drift = match result {
            Err(Failure { drift: Some(d), .. }) => Some(d.summary()),
            Err(f) => f.drift_cause.map(str::to_string),
            Ok(_) => None,
        };
        trace.end(&crate::telemetry::CallEnd {
            class,
            attempts: call.retry.attempts(),
            paced: call.paced,
            drift,
            breaker: &snapshot.breaker,
        });
    }
}

/// A drift seen on the tool, failed or returned anyway: counted, and the tool marked
/// as drifting until its contract holds again.
fn drift_seen<U: Upstream>(route: &Route<U>, services: &Services) {
    services
        .metrics
        .contract_drift
        .get_or_create(&crate::metrics::ToolLabel {
            tool: route.label.clone(),
        })
        .inc();
    route.state.drift_open.store(true, Ordering::Relaxed);
}

/// Every `contract_drift` from an upstream reply counts, and opens (or updates) the
/// owner's incident: a diff, a body that is not JSON, one over the size limit, or a
/// redirect alike.
fn drift_detected<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    failure: &Failure,
    agent: Option<&crate::agents::CallAgent>,
) {
    let spec = &route.spec;
    drift_seen(route, services);
    // Every call drifts once an upstream breaks: a repeat is a counter bump, and only the
    // first sighting builds the incident's title and detail.
    let fingerprint = match &failure.drift {
        Some(d) => d.fingerprint.as_str(),
        None => failure.drift_cause.unwrap_or(NO_DIFF),
    };
    if services
        .incidents
        .sighting_by(IncidentKind::ContractDrift, &spec.name, fingerprint, agent)
    {
        return;
    }
    let (fingerprint, summary, detail) = match &failure.drift {
        Some(d) => (d.fingerprint.clone(), d.summary(), drift_detail(route, d)),
        None => {
            // No diff to fingerprint: the kind of breakage is the identity.
            let reason = failure.drift_cause.unwrap_or(NO_DIFF);
            (
                reason.to_string(),
                reason.to_string(),
                json!({ "summary": reason, "message": failure.message }),
            )
        }
    };
    raise_drift(route, services, fingerprint, &summary, detail, agent);
}

/// The owner's drift incident, its title saying which contract was broken.
fn raise_drift<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    fingerprint: String,
    summary: &str,
    detail: Value,
    agent: Option<&crate::agents::CallAgent>,
) {
    let spec = &route.spec;
    let title = match learned_samples(route) {
        Some(n) => format!(
            "{} no longer matches its learned contract (learned from {n} responses): {summary}",
            spec.name
        ),
        None => format!(
            "{} no longer matches {}: {summary}",
            spec.name,
            explain::contract_name(spec)
        ),
    };
    services.incidents.raise_by(
        NewIncident {
            kind: IncidentKind::ContractDrift,
            tool: spec.name.clone(),
            dependency: spec.dependency.name.clone(),
            owner: spec.owner.clone(),
            fingerprint,
            title,
            detail,
            contract_version: Some(spec.contract.version.clone()),
        },
        agent,
    );
}

/// The responses a learned contract being enforced was learned from.
fn learned_samples<U: Upstream>(route: &Route<U>) -> Option<u64> {
    route
        .state
        .learned
        .get()
        .and_then(|s| s.enforced())
        .map(|e| e.samples)
}

/// An incident's detail for a diff; `learned` marks drift against a learned contract.
fn drift_detail<U: Upstream>(route: &Route<U>, d: &toolgate_contract::Drift) -> Value {
    let mut detail = json!({ "summary": d.summary(), "changes": d.changes, "truncated": d.truncated, "violations": d.violations });
    if let Some(n) = learned_samples(route) {
        detail["learned"] = json!(true);
        detail["learned_from"] = json!(n);
    }
    detail
}

/// Drift of a body that was returned anyway (`on_drift: warn`): counted and raised to
/// the owner exactly as drift that fails the call.
fn warned_drift_detected<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    drift: &toolgate_contract::Drift,
    agent: Option<&crate::agents::CallAgent>,
) {
    drift_seen(route, services);
    if services.incidents.sighting_by(
        IncidentKind::ContractDrift,
        &route.spec.name,
        &drift.fingerprint,
        agent,
    ) {
        return;
    }
    let detail = drift_detail(route, drift);
    raise_drift(
        route,
        services,
        drift.fingerprint.clone(),
        &drift.summary(),
        detail,
        agent,
    );
}

/// A reply matched the contract: an open drift incident is over.
fn contract_holds<U: Upstream>(route: &Route<U>, services: &Services) {
    if route.state.drift_open.swap(false, Ordering::Relaxed) {
        let why = crate::learned::why_it_holds(&route.state.learned);
        services
            .incidents
            .clear(IncidentKind::ContractDrift, &route.spec.name, None, &why);
    }
}
