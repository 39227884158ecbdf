//! The one place a tool call is assembled, top to bottom.
//!
//! MCP call → tool lookup (caller) → argument validation → request rendering →
//! breaker and pacer admission → upstream attempt(s) with classification → response
//! validation → signals → notes → result. Each stage says why it sits where it does.
//! Classification happens once per attempt (`toolgate_resilience::classify`); retry,
//! breaker, metrics, incidents and the model's message all consume that class and none
//! re-reads the response.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::time::Instant;
use toolgate_contract::Drift;
use toolgate_resilience::{
    Attempt, Backoff, BodyCheck, ErrorClass, GiveUpReason, RetryDecision, classify, decide_retry,
};
use toolgate_signals::{Headers, Signals};

use crate::config::ToolSpec;
use crate::dependency::Gate;
use crate::explain::{self, Detail};
use crate::gateway::{Gateway, lock};
use crate::metrics::{
    CallLabels, Class, Outcome, RetryLabels, SequenceLabels, SequenceOutcome, ToolLabel,
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
        detail: Detail,
    },
}

/// What the attempt loop did, for `_meta` and notes.
struct Trace {
    attempts: u32,
    started: Instant,
    /// Latency of the last attempt that got a response.
    latency: Option<Duration>,
    /// Time spent waiting for the quota pacer.
    paced: Duration,
}

impl Trace {
    fn new(started: Instant) -> Trace {
        Trace {
            attempts: 0,
            started,
            latency: None,
            paced: Duration::ZERO,
        }
    }
}

/// How the attempt loop ended.
type Ended = Result<Value, (Failure, Option<GiveUpReason>)>;

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
        let Some(dep) = self.dependency(&tool.dependency.name) else {
            // Unreachable by construction: the config compiler checks every reference.
            let failure = Failure {
                class: ErrorClass::ClientError,
                message: format!("{} has no dependency state", tool.name),
                drift: None,
            };
            return self.finish(tool, &tool_label, Err(failure), Trace::new(started));
        };

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
                return self.finish(tool, &tool_label, Err(failure), Trace::new(started));
            }
        };

        let spec = &tool.dependency;
        let backoff = Backoff {
            base: spec.retry.base_delay,
            cap: spec.retry.max_delay,
            max_attempts: spec.retry.max_attempts,
        };
        let retry_safe = tool.retry_safe();
        let mut attempts: u32 = 0;
        let mut first_retried: Option<ErrorClass> = None;
        let mut last_latency: Option<Duration> = None;
        let mut paced = Duration::ZERO;

        let result: Ended = 'call: loop {
            // Admission: the breaker first (a dependency known to be down gets nothing),
            // then the quota pacer (never send what the upstream told us it will refuse).
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                match dep.gate(Instant::now(), left, attempts == 0) {
                    Gate::Go => break,
                    Gate::Wait(d) => {
                        paced += d;
                        tokio::time::sleep(d).await;
                    }
                    Gate::QuotaExhausted { resets_in } => {
                        let message = explain::quota_exhausted(&tool.name, &spec.name, resets_in);
                        break 'call Err((
                            Failure {
                                class: ErrorClass::RateLimited,
                                message,
                                drift: None,
                            },
                            None,
                        ));
                    }
                    Gate::CircuitOpen { retry_in } => {
                        let down_since = dep.snapshot(Instant::now()).down_since;
                        let message =
                            explain::circuit_open(&tool.name, &spec.name, down_since, retry_in);
                        break 'call Err((
                            Failure {
                                class: ErrorClass::CircuitOpen,
                                message,
                                drift: None,
                            },
                            None,
                        ));
                    }
                }
            }
            attempts += 1;
            let left = deadline.saturating_duration_since(Instant::now());
            let sent = self
                .client
                .send(
                    spec,
                    &request,
                    spec.timeout.min(left),
                    self.config.gateway.max_response_bytes,
                )
                .await;
            self.metrics.record_attempt(&spec.name, &tool_label, &sent);
            let signals = read_signals(tool, &sent);
            let latency = sent.as_ref().ok().map(|r| r.latency);
            last_latency = latency;
            if let Some(s) = &signals {
                self.remember_deprecation(tool, s).await;
            }

            let (class, hint, detail) = match self.interpret(tool, sent, signals.as_ref()) {
                AttemptResult::Success(value) => {
                    dep.observe(Instant::now(), signals.as_ref(), latency, None);
                    break Ok(value);
                }
                AttemptResult::Failed {
                    class,
                    hint,
                    detail,
                } => (class, hint, detail),
            };
            let throttle = dep.observe(Instant::now(), signals.as_ref(), latency, Some(class));
            let hint = hint.max(throttle);

            // Retry only where it can help: drift, client errors and auth never are; in a
            // brownout a timeout is not retried either (more load makes it worse).
            let left = deadline.saturating_duration_since(Instant::now());
            let decision = if class == ErrorClass::Timeout && dep.in_brownout() {
                RetryDecision::GiveUp(GiveUpReason::NotRetryable)
            } else {
                decide_retry(
                    class,
                    hint,
                    attempts,
                    retry_safe,
                    left,
                    &backoff,
                    &mut rand::rng(),
                )
            };
            let give_up = match decision {
                // The budget is asked last: it only matters for a retry that would happen.
                RetryDecision::RetryAfter(wait) if dep.withdraw_retry(Instant::now()) => {
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
                RetryDecision::RetryAfter(_) => GiveUpReason::BudgetDenied,
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
            break Err((failure, Some(give_up)));
        };

        if let Some(class) = first_retried {
            let outcome = match &result {
                Ok(_) => SequenceOutcome::recovered,
                Err((_, Some(GiveUpReason::BudgetDenied))) => SequenceOutcome::budget_denied,
                Err((_, Some(GiveUpReason::DeadlineTooShort { .. }))) => SequenceOutcome::deadline,
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
        self.finish(
            tool,
            &tool_label,
            result,
            Trace {
                attempts,
                started,
                latency: last_latency,
                paced,
            },
        )
    }

    /// Turns what came back into success or a classified failure.
    fn interpret(
        &self,
        tool: &ToolSpec,
        sent: Result<UpstreamResponse, SendError>,
        signals: Option<&Signals>,
    ) -> AttemptResult {
        let rate_limited = signals.is_some_and(|s| s.rate_limited);
        let retry_after = signals.and_then(|s| s.retry_after);
        let past_sunset = self.past_sunset(&tool.name);
        let attempt = |status, body_ok| Attempt::Response {
            status,
            rate_limited,
            retry_after,
            past_sunset,
            body_ok,
        };
        let response = match sent {
            Ok(r) => r,
            Err(SendError::Timeout(t)) => {
                return failed(&Attempt::Timeout, None, Detail::Timeout(t));
            }
            Err(SendError::Connect { detail }) => {
                return failed(&Attempt::Connect, None, Detail::Connect(detail));
            }
            Err(SendError::TooLarge { status, limit, .. }) => {
                let check = if (200..300).contains(&status) {
                    BodyCheck::TooLarge
                } else {
                    BodyCheck::Valid
                };
                return failed(
                    &attempt(status, check),
                    retry_after,
                    Detail::TooLarge { status, limit },
                );
            }
        };
        let status = response.status;
        if !(200..300).contains(&status) {
            let detail = Detail::Status {
                status,
                excerpt: explain::excerpt(&response.body),
            };
            return failed(&attempt(status, BodyCheck::Valid), retry_after, detail);
        }
        // The contract is checked on every 2xx: a mismatch is drift, never retried.
        let body: Value = match serde_json::from_slice(&response.body) {
            Ok(v) => v,
            Err(e) => {
                let detail = Detail::NotJson {
                    reason: e.to_string(),
                    excerpt: explain::excerpt(&response.body),
                };
                return failed(&attempt(status, BodyCheck::NotJson), None, detail);
            }
        };
        match tool.contract.response.check(&body) {
            Ok(()) if rate_limited => {
                // A vendor throttling with a 2xx: believe the throttle, not the status.
                failed(
                    &attempt(status, BodyCheck::Valid),
                    retry_after,
                    Detail::Status {
                        status,
                        excerpt: String::new(),
                    },
                )
            }
            Ok(()) => AttemptResult::Success(body),
            Err(drift) => failed(
                &attempt(status, BodyCheck::SchemaMismatch),
                None,
                Detail::Drift(drift),
            ),
        }
    }

    fn past_sunset(&self, tool: &str) -> bool {
        let now = chrono::Utc::now();
        self.tools
            .get(tool)
            .and_then(|t| lock(&t.deprecation).as_ref().and_then(|d| d.sunset))
            .is_some_and(|s| s <= now)
    }

    /// Keeps the latest deprecation notice per tool; the first one opens an incident.
    async fn remember_deprecation(&self, tool: &ToolSpec, signals: &Signals) {
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
            self.open_deprecation_incident(tool, notice).await;
        }
    }

    async fn open_deprecation_incident(
        &self,
        tool: &ToolSpec,
        notice: &toolgate_signals::Deprecation,
    ) {
        let sunset = notice.sunset.map(|s| s.format("%Y-%m-%d").to_string());
        let title = match (&sunset, &tool.successor) {
            (Some(date), Some(next)) => format!(
                "{} is deprecated upstream; sunset {date}; successor tool {next} is configured",
                tool.name
            ),
            (Some(date), None) => format!(
                "{} is deprecated upstream; sunset {date}; no newer contract configured",
                tool.name
            ),
            (None, _) => format!(
                "{} is deprecated upstream (no sunset date announced)",
                tool.name
            ),
        };
        let incident = NewIncident {
            kind: IncidentKind::Deprecation,
            tool: tool.name.clone(),
            dependency: tool.dependency.name.clone(),
            owner: tool.owner.clone(),
            fingerprint: sunset.clone().unwrap_or_default(),
            title: title.clone(),
            detail: json!({ "deprecation": notice, "successor_tool": tool.successor }),
            contract_version: Some(tool.contract.version.clone()),
        };
        match self.store.record_incident(incident).await {
            Ok(r) if r.opened => {
                tracing::warn!(incident = r.id, tool = %tool.name, owner = %tool.owner, "{title}")
            }
            Ok(_) => {}
            Err(e) => {
                tracing::error!(tool = %tool.name, error = %e, "could not record the deprecation incident")
            }
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

    /// Metrics, notes and `_meta` for any outcome.
    fn finish(
        &self,
        tool: &ToolSpec,
        tool_label: &Arc<str>,
        result: Result<Value, Failure>,
        trace: Trace,
    ) -> CallOutcome {
        let Trace {
            attempts,
            started,
            latency,
            paced,
        } = trace;
        let class = result.as_ref().err().map(|f| f.class);
        self.metrics
            .tool_calls
            .get_or_create(&CallLabels {
                tool: tool_label.clone(),
                outcome: Outcome(class),
            })
            .inc();
        let now = Instant::now();
        let deprecation = self
            .tools
            .get(&tool.name)
            .and_then(|t| lock(&t.deprecation).clone());
        let snapshot = self
            .dependency(&tool.dependency.name)
            .map(|d| d.snapshot(now));
        let mut notes = Vec::new();
        let mut signals = json!({
            "tool": tool.name,
            "dependency": tool.dependency.name,
            "contract_version": tool.contract.version,
            "attempts": attempts,
            "elapsed_ms": started.elapsed().as_millis() as u64,
            "paced_ms": paced.as_millis() as u64,
            "latency_ms": latency.map(|l| l.as_secs_f64() * 1000.0),
            "error_class": class.map(ErrorClass::as_str),
            "retryable": class.map(|c| c.retryable(tool.retry_safe())),
            "deprecation": deprecation,
        });
        if let Some(s) = &snapshot {
            self.metrics.record_dependency(&tool.dependency.name, s);
            notes = crate::notes::notes(
                &tool.name,
                &tool.dependency.name,
                tool.successor.as_deref(),
                s,
                deprecation.as_ref(),
                paced,
                chrono::Utc::now(),
            );
            signals["health"] = s.to_json();
        }
        if let Err(Failure { drift: Some(d), .. }) = &result {
            signals["drift"] = json!({ "summary": d.summary(), "changes": d.changes });
        }
        CallOutcome {
            result,
            notes,
            signals,
        }
    }
}

fn failed(attempt: &Attempt, hint: Option<Duration>, detail: Detail) -> AttemptResult {
    // `classify` returns None only for a valid 2xx, which never reaches here.
    let class = classify(attempt).unwrap_or(ErrorClass::ServerError);
    AttemptResult::Failed {
        class,
        hint,
        detail,
    }
}

/// Reads the response's signals (headers only; bodies are the contract's business).
fn read_signals(tool: &ToolSpec, sent: &Result<UpstreamResponse, SendError>) -> Option<Signals> {
    let (status, headers) = match sent {
        Ok(r) => (r.status, &r.headers),
        Err(SendError::TooLarge {
            status, headers, ..
        }) => (*status, headers),
        Err(_) => return None,
    };
    let fields: Vec<(&str, &[u8])> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_bytes()))
        .collect();
    Some(toolgate_signals::read(
        status,
        &Headers::new(&fields),
        chrono::Utc::now(),
        tool.dependency.flavour,
    ))
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
