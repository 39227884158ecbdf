//! The one place a tool call is assembled, top to bottom.
//!
//! MCP call → tool lookup (caller) → argument validation → request rendering →
//! upstream attempt(s) with classification → response validation → signals → result.
//! Each stage says why it sits where it does. Classification happens once per attempt
//! (`toolgate_resilience::classify`); retry, metrics, incidents and the model's message
//! all consume that class and none re-reads the response.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::time::Instant;
use toolgate_contract::Drift;
use toolgate_resilience::{
    Attempt, Backoff, BodyCheck, ErrorClass, GiveUpReason, RetryDecision, classify, decide_retry,
};

use crate::config::ToolSpec;
use crate::explain;
use crate::gateway::{Gateway, lock};
use crate::metrics::{
    CallLabels, Class, DependencyLabel, Outcome, RetryLabels, SequenceLabels, SequenceOutcome,
    StatusLabel, ToolLabel, UpstreamLabels,
};
use crate::store::{IncidentKind, NewIncident};
use crate::upstream::{SendError, UpstreamResponse};

/// What a tool call produced, before it is put into MCP terms.
#[derive(Debug)]
pub struct CallOutcome {
    /// `Ok(structuredContent)` or the failure.
    pub result: Result<Value, Failure>,
    /// One-line notes for the model (without the `toolgate:` prefix).
    pub notes: Vec<String>,
    /// Machine-readable signals for `_meta["dev.toolgate/signals"]`.
    pub signals: Value,
}

/// A failed call.
#[derive(Debug)]
pub struct Failure {
    /// The class of the last failed attempt (or of the refusal).
    pub class: ErrorClass,
    /// The complete message for the model.
    pub message: String,
    /// The contract diff, for drift.
    pub drift: Option<Drift>,
}

/// What one attempt turned into.
enum AttemptResult {
    Success(Value),
    Failed {
        class: ErrorClass,
        hint: Option<Duration>,
        detail: explain::Detail,
    },
}

impl Gateway {
    /// Runs one tool call to completion. Never panics on any upstream bytes.
    pub async fn call(
        self: &Arc<Self>,
        tool: &Arc<ToolSpec>,
        args: Map<String, Value>,
    ) -> CallOutcome {
        let started = Instant::now();
        let deadline = started + tool.deadline;
        let tool_label: Arc<str> = Arc::from(tool.name.as_str());

        // Arguments are checked before anything touches the network: a call the
        // upstream would reject costs the upstream nothing and the model gets the fix.
        let request = validate_arguments(tool, &args).and_then(|()| {
            tool.request
                .render(&tool.dependency.base_url, &args)
                .map_err(|e| e.0)
        });
        let request = match request {
            Ok(r) => r,
            Err(problem) => {
                let failure = Failure {
                    class: ErrorClass::ClientError,
                    message: explain::invalid_arguments(&tool.name, &problem),
                    drift: None,
                };
                return self.finish(tool, &tool_label, Err(failure), 0, started);
            }
        };

        let dep = &tool.dependency;
        let state = self.dependencies.get(&dep.name);
        let backoff = Backoff {
            base: dep.retry.base_delay,
            cap: dep.retry.max_delay,
            max_attempts: dep.retry.max_attempts,
        };
        let retry_safe = tool.retry_safe();
        let mut attempts: u32 = 0;
        let mut first_retried: Option<ErrorClass> = None;

        let result = loop {
            attempts += 1;
            if let Some(s) = state {
                lock(&s.budget).record_request(Instant::now());
            }
            let now = Instant::now();
            let remaining = deadline.saturating_duration_since(now);
            let timeout = dep.timeout.min(remaining);
            let sent = self
                .client
                .send(
                    dep,
                    &request,
                    timeout,
                    self.config.gateway.max_response_bytes,
                )
                .await;
            self.record_attempt(&tool_label, dep.name.as_str(), &sent);

            let (class, hint, detail) = match self.interpret(tool, sent) {
                AttemptResult::Success(value) => break Ok(value),
                AttemptResult::Failed {
                    class,
                    hint,
                    detail,
                } => (class, hint, detail),
            };

            // Retry only where it can help; drift, client errors and auth never are.
            let remaining = deadline.saturating_duration_since(Instant::now());
            let decision = decide_retry(
                class,
                hint,
                attempts,
                retry_safe,
                remaining,
                &backoff,
                &mut rand::rng(),
            );
            let give_up = match decision {
                RetryDecision::RetryAfter(wait) => {
                    // The budget is asked last: it only matters for a retry that would happen.
                    let allowed =
                        state.is_none_or(|s| lock(&s.budget).try_withdraw(Instant::now()));
                    if allowed {
                        first_retried.get_or_insert(class);
                        self.metrics
                            .retries
                            .get_or_create(&RetryLabels {
                                tool: tool_label.clone(),
                                error_class: Class(class),
                            })
                            .inc();
                        tokio::time::sleep(wait).await;
                        continue;
                    }
                    GiveUpReason::BudgetDenied
                }
                RetryDecision::GiveUp(reason) => reason,
            };
            let failure = Failure {
                class: if give_up == GiveUpReason::BudgetDenied {
                    ErrorClass::BudgetExhausted
                } else {
                    class
                },
                message: explain::failure(
                    tool,
                    class,
                    &detail,
                    give_up,
                    attempts,
                    started.elapsed(),
                ),
                drift: detail.into_drift(),
            };
            break Err((failure, give_up));
        };

        if let Some(class) = first_retried {
            let outcome = match &result {
                Ok(_) => SequenceOutcome::recovered,
                Err((_, GiveUpReason::BudgetDenied)) => SequenceOutcome::budget_denied,
                Err((_, GiveUpReason::DeadlineTooShort { .. })) => SequenceOutcome::deadline,
                Err(_) => SequenceOutcome::exhausted,
            };
            self.metrics
                .retry_sequences
                .get_or_create(&SequenceLabels {
                    tool: tool_label.clone(),
                    error_class: Class(class),
                    outcome,
                })
                .inc();
        }

        let result = match result {
            Ok(v) => Ok(if tool.contract.wraps_result {
                json!({ "result": v })
            } else {
                v
            }),
            Err((failure, _)) => {
                if let Some(drift) = &failure.drift {
                    self.open_drift_incident(tool, drift).await;
                }
                Err(failure)
            }
        };
        self.finish(tool, &tool_label, result, attempts, started)
    }

    /// Turns what came back into success or a classified failure.
    fn interpret(
        &self,
        tool: &ToolSpec,
        sent: Result<UpstreamResponse, SendError>,
    ) -> AttemptResult {
        let response = match sent {
            Ok(r) => r,
            Err(SendError::Timeout(t)) => {
                return failed(&Attempt::Timeout, None, explain::Detail::Timeout(t));
            }
            Err(SendError::Connect { detail }) => {
                return failed(&Attempt::Connect, None, explain::Detail::Connect(detail));
            }
            Err(SendError::TooLarge { status, limit, .. }) => {
                let attempt = response_attempt(
                    status,
                    None,
                    if (200..300).contains(&status) {
                        BodyCheck::TooLarge
                    } else {
                        BodyCheck::Valid
                    },
                );
                return failed(&attempt, None, explain::Detail::TooLarge { status, limit });
            }
        };
        let status = response.status;
        let retry_after = retry_after(&response);
        if !(200..300).contains(&status) {
            let attempt = response_attempt(status, retry_after, BodyCheck::Valid);
            return failed(
                &attempt,
                retry_after,
                explain::Detail::Status {
                    status,
                    excerpt: explain::excerpt(&response.body),
                },
            );
        }
        // The contract is checked on every 2xx: a mismatch is drift, never retried.
        let body: Value = match serde_json::from_slice(&response.body) {
            Ok(v) => v,
            Err(e) => {
                let attempt = response_attempt(status, None, BodyCheck::NotJson);
                return failed(
                    &attempt,
                    None,
                    explain::Detail::NotJson {
                        reason: e.to_string(),
                        excerpt: explain::excerpt(&response.body),
                    },
                );
            }
        };
        match tool.contract.response.check(&body) {
            Ok(()) => AttemptResult::Success(body),
            Err(drift) => {
                let attempt = response_attempt(status, None, BodyCheck::SchemaMismatch);
                failed(&attempt, None, explain::Detail::Drift(drift))
            }
        }
    }

    fn record_attempt(
        &self,
        tool: &Arc<str>,
        dependency: &str,
        sent: &Result<UpstreamResponse, SendError>,
    ) {
        let status = match sent {
            Ok(r) => StatusLabel::Code(r.status),
            Err(SendError::TooLarge { status, .. }) => StatusLabel::Code(*status),
            Err(SendError::Timeout(_)) => StatusLabel::Timeout,
            Err(SendError::Connect { .. }) => StatusLabel::Connect,
        };
        let dependency: Arc<str> = Arc::from(dependency);
        self.metrics
            .upstream_requests
            .get_or_create(&UpstreamLabels {
                dependency: dependency.clone(),
                tool: tool.clone(),
                status,
            })
            .inc();
        if let Ok(r) = sent {
            self.metrics
                .upstream_latency
                .get_or_create(&DependencyLabel { dependency })
                .observe(r.latency.as_secs_f64());
        }
    }

    async fn open_drift_incident(&self, tool: &ToolSpec, drift: &Drift) {
        self.metrics
            .contract_drift
            .get_or_create(&ToolLabel {
                tool: Arc::from(tool.name.as_str()),
            })
            .inc();
        let summary = drift.summary();
        let incident = NewIncident {
            kind: IncidentKind::ContractDrift,
            tool: tool.name.clone(),
            dependency: tool.dependency.name.clone(),
            owner: tool.owner.clone(),
            fingerprint: summary.clone(),
            title: format!(
                "{} no longer matches contract v{}: {summary}",
                tool.name, tool.contract.version
            ),
            detail: json!({ "summary": summary, "changes": drift.changes, "violations": drift.violations }),
            contract_version: Some(tool.contract.version.clone()),
        };
        match self.store.record_incident(incident).await {
            Ok(r) if r.opened => tracing::error!(
                incident = r.id,
                tool = %tool.name,
                owner = %tool.owner,
                contract = %tool.contract.version,
                drift = %summary,
                "contract drift: new incident for the tool owner"
            ),
            Ok(_) => {}
            Err(e) => {
                tracing::error!(tool = %tool.name, error = %e, "could not record the drift incident")
            }
        }
    }

    fn finish(
        &self,
        tool: &ToolSpec,
        tool_label: &Arc<str>,
        result: Result<Value, Failure>,
        attempts: u32,
        started: Instant,
    ) -> CallOutcome {
        let class = result.as_ref().err().map(|f| f.class);
        self.metrics
            .tool_calls
            .get_or_create(&CallLabels {
                tool: tool_label.clone(),
                outcome: Outcome(class),
            })
            .inc();
        let mut signals = json!({
            "tool": tool.name,
            "dependency": tool.dependency.name,
            "contract_version": tool.contract.version,
            "attempts": attempts,
            "elapsed_ms": started.elapsed().as_millis() as u64,
            "error_class": class.map(ErrorClass::as_str),
        });
        if let Err(Failure { drift: Some(d), .. }) = &result {
            signals["drift"] = json!({ "summary": d.summary(), "changes": d.changes });
        }
        CallOutcome {
            result,
            notes: Vec::new(),
            signals,
        }
    }
}

fn failed(attempt: &Attempt, hint: Option<Duration>, detail: explain::Detail) -> AttemptResult {
    // `classify` returns None only for a valid 2xx, which never reaches here.
    let class = classify(attempt).unwrap_or(ErrorClass::ServerError);
    AttemptResult::Failed {
        class,
        hint,
        detail,
    }
}

fn response_attempt(status: u16, retry_after: Option<Duration>, body_ok: BodyCheck) -> Attempt {
    Attempt::Response {
        status,
        rate_limited: status == 429,
        retry_after,
        past_sunset: false,
        body_ok,
    }
}

fn retry_after(r: &UpstreamResponse) -> Option<Duration> {
    let value = r.headers.get(reqwest::header::RETRY_AFTER)?;
    toolgate_signals::retry_after::parse(value.as_bytes(), chrono::Utc::now())
}

/// Checks arguments against the tool's input schema; the error lists what to fix.
fn validate_arguments(tool: &ToolSpec, args: &Map<String, Value>) -> Result<(), String> {
    let value = Value::Object(args.clone());
    if tool.input_validator.is_valid(&value) {
        return Ok(());
    }
    let problems: Vec<String> = tool
        .input_validator
        .iter_errors(&value)
        .take(5)
        .map(|e| {
            let at = e.instance_path().to_string();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("{at}: {e}")
            }
        })
        .collect();
    Err(problems.join("; "))
}
