//! `_meta["dev.toolgate/signals"]`: the machine-readable account of one call.
//!
//! A contract programs read (dashboards, agent frameworks), published as a JSON Schema
//! (`toolgate signals-schema`, docs/signals.schema.json). Several frameworks hand the
//! model the whole result, `_meta` included, so a healthy call carries only `tool`,
//! `contract_version` and `attempts`; every other member is present only when it has
//! something to say, and each note the model reads has its typed counterpart here. The
//! whole dependency snapshot is the `dependency_health` tool's answer, not every call's.

use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use schemars::JsonSchema;
use serde::Serialize;
use toolgate_contract::Change;
use toolgate_resilience::{BreakerState, ErrorClass};
use toolgate_signals::{Deprecation, Quota, status_page::Health};

use crate::dependency::Snapshot;

/// The schema's `$id`: a new major version of the signals gets a new `$id`.
pub const SCHEMA_ID: &str = "https://toolgate.dev/schemas/signals/v1.json";

/// What toolgate says about one tool call, for programs. Members other than `tool`,
/// `contract_version` and `attempts` are present only when they matter; programs must
/// ignore members they do not know.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(title = "dev.toolgate/signals")]
pub struct CallSignals {
    /// The tool called.
    pub tool: String,
    /// The version of the tool's response contract.
    pub contract_version: String,
    /// Upstream requests made (0 when the call was refused before any was sent).
    pub attempts: u32,
    /// The error class of a failed call (see docs/operations.md, error classes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_class: Option<String>,
    /// Whether calling again may succeed (failed calls only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// Seconds to wait before calling again, when known (failed calls only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_s: Option<u64>,
    /// When to call again (RFC 3339, UTC), with `retry_after_s`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_at: Option<String>,
    /// How long the call took, in milliseconds (failed calls only: how long the caller
    /// waited for the failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
    /// How long toolgate held the call back to stay within the quota (only when it did).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paced_ms: Option<u64>,
    /// The dependency, whenever one of `quota`, `latency`, `breaker`, `status_page` is
    /// present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dependency: Option<String>,
    /// The most constraining quota policy, when it runs low or paced this call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quota: Option<QuotaSignal>,
    /// The dependency is in a brownout (slower than its baseline).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencySignal>,
    /// The circuit breaker, when it is not closed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaker: Option<BreakerSignal>,
    /// The dependency's status page, when it reports a problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_page: Option<StatusPageSignal>,
    /// The tool's upstream declared it deprecated or sunset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deprecation: Option<DeprecationSignal>,
    /// The response no longer matches the contract (`contract_drift` failures).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drift: Option<DriftSignal>,
    /// Warnings the upstream sent (`Warning` headers), as it sent them.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub warnings: Vec<String>,
    /// The incident this call opened or counted into, for its audit record; never
    /// published (its id is the store's, known once written).
    #[serde(skip)]
    pub incident: Option<crate::watch::incidents::IncidentRef>,
}

/// One quota policy, as last advertised and adjusted to now.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct QuotaSignal {
    /// The policy's name (`"default"` when unnamed).
    pub policy: String,
    /// Units allowed per window, when advertised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// Units left in the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remaining: Option<u64>,
    /// Seconds until the window resets, when advertised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resets_in_s: Option<f64>,
}

/// A brownout: latency against the dependency's baseline.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct LatencySignal {
    /// Always `true`: the member is only present in a brownout.
    pub brownout: bool,
    /// Recent median / baseline.
    pub ratio: f64,
    /// The baseline, in milliseconds.
    pub baseline_ms: f64,
    /// This call's last attempt, in milliseconds, when one was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_ms: Option<f64>,
}

/// A circuit breaker that is not closed.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct BreakerSignal {
    /// `open` (requests are refused) or `half_open` (one probe may go).
    pub state: BreakerName,
    /// Milliseconds until the next probe is allowed (open only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_in_ms: Option<u64>,
    /// Since when the dependency is failing (RFC 3339, UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub down_since: Option<String>,
}

/// A breaker state other than closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BreakerName {
    /// Requests are refused.
    Open,
    /// One probe may go.
    HalfOpen,
}

/// A status page that reports a problem.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct StatusPageSignal {
    /// `degraded` or `down`.
    pub health: String,
    /// The page's own indicator, e.g. `major`.
    pub indicator: String,
    /// The page's description, when it gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// What the upstream declared about the tool's end of life (RFC 9745, RFC 8594).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct DeprecationSignal {
    /// Deprecated now (a future deprecation date leaves this `false` with `since` set).
    pub deprecated: bool,
    /// When it was or will be deprecated (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// When it is expected to stop working (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sunset: Option<String>,
    /// The replacement: the upstream's link, else the configured successor tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub successor: Option<String>,
    /// Documentation of the deprecation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<String>,
}

/// How the response broke the contract.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct DriftSignal {
    /// One line, breaking changes first.
    pub summary: String,
    /// The structural changes (absent when the response could not be compared, e.g. not
    /// JSON); each has a `kind` (`missing`, `added`, `type_changed`, `renamed`,
    /// `invalid`, …) and the paths it concerns.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    #[schemars(with = "Vec<serde_json::Map<String, serde_json::Value>>")]
    pub changes: Vec<Change>,
    /// Changes left out of `changes` (it holds at most 50).
    #[serde(skip_serializing_if = "is_zero", default)]
    pub truncated: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl CallSignals {
    /// The signals of a call with nothing to say.
    pub fn new(tool: &str, contract_version: &str, attempts: u32) -> CallSignals {
        CallSignals {
            tool: tool.to_string(),
            contract_version: contract_version.to_string(),
            attempts,
            error_class: None,
            retryable: None,
            retry_after_s: None,
            retry_at: None,
            elapsed_ms: None,
            paced_ms: None,
            dependency: None,
            quota: None,
            latency: None,
            breaker: None,
            status_page: None,
            deprecation: None,
            drift: None,
            warnings: Vec::new(),
            incident: None,
        }
    }

    /// A failed call: its class, whether retrying helps, and the wait when known.
    pub fn failed(&mut self, class: ErrorClass, retryable: bool, wait: Option<Duration>) {
        self.error_class = Some(class.as_str().to_string());
        self.retryable = Some(retryable);
        if let Some(wait) = wait {
            self.retry_after_s = Some(wait.as_secs_f64().ceil() as u64);
            self.retry_at = Some(
                crate::explain::at(Utc::now(), wait).to_rfc3339_opts(SecondsFormat::Secs, true),
            );
        }
    }

    /// The parts of the dependency's state that matter for this call: a low quota (or
    /// one that paced it), a brownout, a breaker that is not closed, a status page that
    /// reports a problem — the same conditions the notes speak of.
    pub fn dependency_state(
        &mut self,
        dependency: &str,
        snapshot: &Snapshot,
        paced: Duration,
        call_latency: Option<Duration>,
    ) {
        if !paced.is_zero() {
            self.paced_ms = Some(paced.as_millis() as u64);
        }
        self.quota = snapshot
            .quotas
            .first()
            .filter(|q| crate::notes::quota_low(q, paced))
            .map(quota);
        let l = &snapshot.latency;
        if l.brownout
            && let (Some(ratio), Some(base)) = (l.ratio, l.baseline)
        {
            self.latency = Some(LatencySignal {
                brownout: true,
                ratio,
                baseline_ms: ms(base),
                call_ms: call_latency.map(ms),
            });
        }
        self.breaker = match snapshot.breaker {
            BreakerState::Closed => None,
            BreakerState::Open { retry_in, .. } => Some(BreakerSignal {
                state: BreakerName::Open,
                retry_in_ms: Some(retry_in.as_millis() as u64),
                down_since: snapshot.down_since.map(rfc3339),
            }),
            BreakerState::HalfOpen => Some(BreakerSignal {
                state: BreakerName::HalfOpen,
                retry_in_ms: None,
                down_since: snapshot.down_since.map(rfc3339),
            }),
        };
        self.status_page = snapshot
            .status
            .as_ref()
            .and_then(|s| s.page.as_ref())
            .filter(|p| matches!(p.health, Health::Degraded | Health::Down))
            .map(|p| StatusPageSignal {
                health: if p.health == Health::Down {
                    "down"
                } else {
                    "degraded"
                }
                .to_string(),
                indicator: p.indicator.clone(),
                description: p.description.clone(),
            });
        if self.quota.is_some()
            || self.latency.is_some()
            || self.breaker.is_some()
            || self.status_page.is_some()
        {
            self.dependency = Some(dependency.to_string());
        }
    }

    /// The tool's remembered deprecation notice; `successor` is the configured one.
    pub fn deprecation(&mut self, notice: &Deprecation, successor: Option<&str>) {
        self.deprecation = Some(DeprecationSignal {
            deprecated: notice.deprecated,
            since: notice.since.map(rfc3339),
            sunset: notice.sunset.map(rfc3339),
            successor: notice
                .successor
                .clone()
                .or_else(|| successor.map(str::to_string)),
            info: notice.info.clone(),
        });
    }
}

fn quota(q: &Quota) -> QuotaSignal {
    QuotaSignal {
        policy: q.policy.clone(),
        limit: q.limit,
        remaining: q.remaining,
        resets_in_s: q.reset_after.map(|d| d.as_secs_f64()),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The published JSON Schema of [`CallSignals`] (docs/signals.schema.json).
pub fn json_schema() -> serde_json::Value {
    let mut schema =
        serde_json::to_value(schemars::schema_for!(CallSignals)).unwrap_or(serde_json::Value::Null);
    never_null(&mut schema);
    if let Some(m) = schema.as_object_mut() {
        m.insert("$id".into(), SCHEMA_ID.into());
    }
    schema
}

/// A member with nothing to say is left out, never sent as `null`: the schema says so
/// (schemars describes every `Option` as nullable).
fn never_null(schema: &mut serde_json::Value) {
    use serde_json::Value;
    match schema {
        Value::Object(m) => {
            if let Some(Value::Array(types)) = m.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    m.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(any)) = m.get("anyOf")
                && any.len() == 2
                && any[1] == serde_json::json!({ "type": "null" })
            {
                let only = any[0].clone();
                m.remove("anyOf");
                if let Value::Object(inner) = only {
                    m.extend(inner);
                }
            }
            m.values_mut().for_each(never_null);
        }
        Value::Array(items) => items.iter_mut().for_each(never_null),
        _ => {}
    }
}
