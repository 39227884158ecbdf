//! Raising and clearing incidents: the one place that records an incident, logs it,
//! and tells its owner. The pipeline, the probes and the alert rules all come here.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::json;
use toolgate_contract::Drift;
use toolgate_signals::{Deprecation, Signals};

use crate::config::ToolSpec;
use crate::gateway::{Gateway, lock};
use crate::metrics::ToolLabel;
use crate::store::{IncidentKind, NewIncident};
use crate::watch::notify::Event;

impl Gateway {
    /// Opens an incident, or updates the open one with the same fingerprint; a new one
    /// is logged and sent to the owner. Returns whether it was new.
    pub async fn raise(&self, incident: NewIncident) -> bool {
        let (kind, tool, owner, title) = (
            incident.kind,
            incident.tool.clone(),
            incident.owner.clone(),
            incident.title.clone(),
        );
        match self.store.record_incident(incident).await {
            Ok(r) => {
                if r.opened {
                    match kind {
                        IncidentKind::ContractDrift
                        | IncidentKind::AuthFailing
                        | IncidentKind::RecoveryRateZero => {
                            tracing::error!(incident = r.id, kind = kind.as_str(), %tool, %owner, "{title}")
                        }
                        _ => {
                            tracing::warn!(incident = r.id, kind = kind.as_str(), %tool, %owner, "{title}")
                        }
                    }
                }
                if let Some(incident) = &r.incident {
                    let event = if r.opened {
                        Event::Opened
                    } else {
                        Event::Updated
                    };
                    self.notifier.notify(incident, event);
                }
                r.opened
            }
            Err(e) => {
                tracing::error!(kind = kind.as_str(), %tool, error = %e, "could not record an incident");
                false
            }
        }
    }

    /// Resolves the open incidents of (kind, tool[, fingerprint]) and tells their owners.
    pub async fn clear(
        &self,
        kind: IncidentKind,
        tool: &str,
        fingerprint: Option<String>,
        why: &str,
    ) {
        match self
            .store
            .resolve(kind, tool.to_string(), fingerprint, why.to_string())
            .await
        {
            Ok(resolved) => {
                for i in resolved {
                    tracing::info!(incident = i.id, kind = %i.kind, tool = %i.tool, "resolved: {why}");
                    self.notify_resolved(&i).await;
                }
            }
            Err(e) => {
                tracing::error!(kind = kind.as_str(), %tool, error = %e, "could not resolve incidents")
            }
        }
    }

    /// A response broke the contract: count it and open (or update) the incident.
    pub async fn drift_detected(&self, tool: &ToolSpec, drift: &Drift) {
        self.metrics
            .contract_drift
            .get_or_create(&ToolLabel {
                tool: Arc::from(tool.name.as_str()),
            })
            .inc();
        if let Some(state) = self.tools.get(&tool.name) {
            state.drift_open.store(true, Ordering::Relaxed);
        }
        let summary = drift.summary();
        self.raise(NewIncident {
            kind: IncidentKind::ContractDrift,
            tool: tool.name.clone(),
            dependency: tool.dependency.name.clone(),
            owner: tool.owner.clone(),
            fingerprint: summary.clone(),
            title: format!("{} no longer matches contract v{}: {summary}", tool.name, tool.contract.version),
            detail: json!({ "summary": summary, "changes": drift.changes, "violations": drift.violations }),
            contract_version: Some(tool.contract.version.clone()),
        })
        .await;
    }

    /// A response matched the contract: an open drift incident is over.
    pub async fn contract_holds(&self, tool: &ToolSpec) {
        let Some(state) = self.tools.get(&tool.name) else {
            return;
        };
        if state.drift_open.swap(false, Ordering::Relaxed) {
            self.clear(
                IncidentKind::ContractDrift,
                &tool.name,
                None,
                "responses match the contract again",
            )
            .await;
        }
    }

    /// Keeps the latest deprecation notice per tool (in memory and in the store); a
    /// new or changed notice opens an incident for the owner.
    pub async fn remember_deprecation(&self, tool: &ToolSpec, signals: &Signals) {
        let Some(state) = self.tools.get(&tool.name) else {
            return;
        };
        let Some(notice) = signals.deprecation.as_ref() else {
            return;
        };
        let changed = {
            let mut slot = lock(&state.deprecation);
            let changed = slot.as_ref() != Some(notice);
            *slot = Some(notice.clone());
            changed
        };
        if let Some(sunset) = notice.sunset {
            self.metrics.record_sunset(&tool.name, sunset.timestamp());
        }
        if changed {
            if let Err(e) = self
                .store
                .save_deprecation(tool.name.clone(), json!(notice))
                .await
            {
                tracing::error!(tool = %tool.name, error = %e, "could not remember the deprecation notice");
            }
            self.raise(deprecation_incident(tool, notice)).await;
        }
    }

    /// Loads remembered deprecation notices at start-up.
    pub async fn restore(&self) {
        let saved = match self.store.deprecations().await {
            Ok(saved) => saved,
            Err(e) => {
                tracing::error!(error = %e, "could not restore remembered deprecation notices");
                Vec::new()
            }
        };
        for (tool, notice) in saved {
            let Some(state) = self.tools.get(&tool) else {
                continue;
            };
            if let Ok(d) = serde_json::from_value::<StoredDeprecation>(notice) {
                let d = d.into_deprecation();
                if let Some(sunset) = d.sunset {
                    self.metrics.record_sunset(&tool, sunset.timestamp());
                }
                *lock(&state.deprecation) = Some(d);
            }
        }
        let open = self.store.incidents(false).await.unwrap_or_else(|e| {
            tracing::error!(error = %e, "could not read open incidents at start-up");
            Vec::new()
        });
        for i in open {
            if i.kind == IncidentKind::ContractDrift.as_str()
                && let Some(state) = self.tools.get(&i.tool)
            {
                state.drift_open.store(true, Ordering::Relaxed);
            }
        }
    }

    async fn notify_resolved(&self, incident: &crate::store::Incident) {
        self.notifier.notify(incident, Event::Resolved);
    }
}

fn deprecation_incident(tool: &ToolSpec, notice: &Deprecation) -> NewIncident {
    use toolgate_signals::Stage;
    let day = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%d").to_string();
    let sunset = notice.sunset.map(day);
    let next = match &tool.successor {
        Some(next) => format!("successor tool {next} is configured"),
        None => "no newer contract configured".to_owned(),
    };
    // The title follows the notice's meaning: only a declared deprecation whose date has
    // come is "is deprecated"; a future date or a Sunset alone is not (RFC 9745, 8594).
    let title = match (notice.stage(chrono::Utc::now()), &sunset) {
        (Stage::Deprecated { .. }, Some(date)) => {
            format!(
                "{} is deprecated upstream; sunset {date}; {next}",
                tool.name
            )
        }
        (Stage::Deprecated { .. }, None) => format!(
            "{} is deprecated upstream (no sunset date announced); {next}",
            tool.name
        ),
        (Stage::Scheduled { on }, Some(date)) => format!(
            "{} will be deprecated upstream on {}; sunset {date}; {next}",
            tool.name,
            day(on)
        ),
        (Stage::Scheduled { on }, None) => format!(
            "{} will be deprecated upstream on {}; {next}",
            tool.name,
            day(on)
        ),
        (Stage::SunsetOnly { .. }, Some(date)) => format!(
            "{} will stop working upstream on {date} (sunset announced, not marked deprecated); {next}",
            tool.name
        ),
        _ => match notice.info.as_deref() {
            Some(info) => format!(
                "{}: the upstream links deprecation information ({info}) but declares nothing deprecated",
                tool.name
            ),
            None => format!(
                "{}: the upstream says it is not deprecated (Deprecation: false)",
                tool.name
            ),
        },
    };
    NewIncident {
        kind: IncidentKind::Deprecation,
        tool: tool.name.clone(),
        dependency: tool.dependency.name.clone(),
        owner: tool.owner.clone(),
        fingerprint: sunset.unwrap_or_default(),
        title,
        detail: json!({ "deprecation": notice, "successor_tool": tool.successor }),
        contract_version: Some(tool.contract.version.clone()),
    }
}

/// The stored form of a deprecation notice (dates as RFC 3339 strings).
#[derive(Debug, serde::Deserialize)]
struct StoredDeprecation {
    deprecated: bool,
    since: Option<String>,
    sunset: Option<String>,
    successor: Option<String>,
    info: Option<String>,
}

impl StoredDeprecation {
    fn into_deprecation(self) -> Deprecation {
        let date = |s: Option<String>| {
            s.and_then(|s| chrono::DateTime::parse_from_rfc3339(&s).ok())
                .map(|d| d.to_utc())
        };
        Deprecation {
            deprecated: self.deprecated,
            since: date(self.since),
            sunset: date(self.sunset),
            successor: self.successor,
            info: self.info,
        }
    }
}
