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
use toolgate_contract::{BodyError, Drift};
use toolgate_resilience::{
    Attempt, Backoff, BodyCheck, ErrorClass, GiveUpReason, RetryDecision, classify, decide_retry,
};
use toolgate_signals::{Headers, Signals};

use crate::config::ToolSpec;
use crate::dependency::Gate;
use crate::explain::{self, Detail};
use crate::gateway::{Gateway, lock};
use crate::metrics::{CallLabels, Class, Outcome, RetryLabels, SequenceLabels, SequenceOutcome};
use crate::upstream::{SendError, UpstreamResponse};

/// What a tool call produced, before it is put into MCP terms.
#[derive(Debug)]
pub struct CallOutcome {
    /// `Ok(structuredContent)` or the failure.
    pub result: Result<Structured, Failure>,
    /// One-line notes for the model (without the `toolgate:` prefix).
    pub notes: Vec<String>,
    /// Machine-readable signals for `_meta["dev.toolgate/signals"]`.
    pub signals: Value,
}

/// A body that satisfied its contract, kept as the bytes it arrived in. The answer
/// carries these bytes as they are (as `structuredContent` and as the text block), so a
/// successful call never builds a JSON tree of the body; see `ResponseContract::check_bytes`.
#[derive(Debug, Clone)]
pub struct Structured {
    /// The body: one JSON document (`null` for an empty body).
    json: bytes::Bytes,
    /// The contract's schema is not an object: the body goes out as `{"result": …}`.
    wrapped: bool,
}

impl Structured {
    /// A checked body. `json` must be one JSON document (the contract check parsed it).
    pub fn new(json: bytes::Bytes, wrapped: bool) -> Structured {
        Structured { json, wrapped }
    }

    /// The body's JSON, as received.
    pub fn body(&self) -> &[u8] {
        &self.json
    }

    /// Whether the structured content is `{"result": body}` rather than the body.
    pub fn is_wrapped(&self) -> bool {
        self.wrapped
    }

    /// The structured content as JSON text: the body, or `{"result":<body>}`.
    pub fn text(&self) -> String {
        // Parsed JSON is UTF-8 throughout (serde_json checks strings; the rest is ASCII).
        let body = String::from_utf8_lossy(&self.json);
        if self.wrapped {
            format!("{{\"result\":{body}}}")
        } else {
            body.into_owned()
        }
    }

    /// The structured content as a `Value` (parses; for the rmcp answer and tests).
    pub fn to_value(&self) -> Value {
        let body = serde_json::from_slice(&self.json).unwrap_or(Value::Null);
        if self.wrapped {
            json!({ "result": body })
        } else {
            body
        }
    }
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
    /// The body, checked against the contract (`null` when it was empty).
    Success(bytes::Bytes),
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
    origin: Origin,
    /// The class of each failure that was retried, in order.
    retried: Vec<ErrorClass>,
}

/// Who made a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// An agent over MCP.
    Agent,
    /// A scheduled or manual contract probe.
    Probe,
}

impl Trace {
    fn new(started: Instant, origin: Origin) -> Trace {
        Trace {
            attempts: 0,
            started,
            latency: None,
            paced: Duration::ZERO,
            origin,
            retried: Vec::new(),
        }
    }
}

/// How the attempt loop ended.
type Ended = Result<bytes::Bytes, (Failure, Option<GiveUpReason>)>;

impl Gateway {
    /// Runs one agent's tool call to completion. Never panics on any upstream bytes.
    pub async fn call(
        self: &Arc<Self>,
        tool: &Arc<ToolSpec>,
        args: Map<String, Value>,
    ) -> CallOutcome {
        self.call_as(tool, args, Origin::Agent).await
    }

    /// Runs a call for `origin`: probe calls share the whole path (pacing, breaker,
    /// contract, incidents) but stay out of the user-facing call metrics and windows.
    pub async fn call_as(
        self: &Arc<Self>,
        tool: &Arc<ToolSpec>,
        args: Map<String, Value>,
        origin: Origin,
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
            return self.finish(tool, &tool_label, Err(failure), Trace::new(started, origin));
        };

        // Arguments are checked before anything touches the network: a call the
        // upstream would reject costs the upstream nothing and the model gets the fix.
        let args = Value::Object(args);
        let request = validate_arguments(tool, &args).and_then(|()| {
            let Value::Object(fields) = &args else {
                return Err("the arguments must be a JSON object".to_string());
            };
            tool.request
                .render(&tool.dependency.base_url, fields)
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
                return self.finish(tool, &tool_label, Err(failure), Trace::new(started, origin));
            }
        };

        // A wrapper known to be older than its upstream is not called when the
        // dependency says `gate: refuse`. Probes still go, so recovery is noticed.
        if origin == Origin::Agent
            && let Some(refusal) = self.version_refusal(tool)
        {
            return self.finish(tool, &tool_label, Err(refusal), Trace::new(started, origin));
        }

        let spec = &tool.dependency;
        let backoff = Backoff {
            base: spec.retry.base_delay,
            cap: spec.retry.max_delay,
            max_attempts: spec.retry.max_attempts,
        };
        let retry_safe = tool.retry_safe();
        let mut attempts: u32 = 0;
        let mut retried: Vec<ErrorClass> = Vec::new();
        let mut last_latency: Option<Duration> = None;
        let mut paced = Duration::ZERO;

        let result: Ended = 'call: loop {
            // Admission: the breaker first (a dependency known to be down gets nothing),
            // then, in a brownout, the concurrency limit, then the quota pacer (never
            // send what the upstream told us it will refuse).
            let admitted = loop {
                let left = deadline.saturating_duration_since(Instant::now());
                match dep.gate(Instant::now(), left, attempts == 0) {
                    Gate::Go(p) => break p,
                    Gate::Saturated { limit } => {
                        let message = explain::saturated(&tool.name, &spec.name, limit);
                        let failure = Failure {
                            class: ErrorClass::Overloaded,
                            message,
                            drift: None,
                        };
                        break 'call Err((failure, None));
                    }
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
                        let down_since = dep.call_snapshot(Instant::now()).down_since;
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
            };
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
            let header_version = crate::watch::version::from_headers(tool, &sent);
            let latency = sent.as_ref().ok().map(|r| r.latency);
            last_latency = latency;
            if let Some(s) = &signals {
                self.remember_deprecation(tool, s).await;
            }

            let (class, hint, detail) = match self.interpret(tool, sent, signals.as_ref()) {
                AttemptResult::Success(body) => {
                    admitted.settle(Instant::now(), signals.as_ref(), latency, None);
                    let seen =
                        header_version.or_else(|| crate::watch::version::from_body(tool, &body));
                    if let Some(v) = seen
                        && let Some(refusal) = self.version_seen(tool, &v, origin).await
                    {
                        break Err((refusal, None));
                    }
                    break Ok(body);
                }
                AttemptResult::Failed {
                    class,
                    hint,
                    detail,
                } => (class, hint, detail),
            };
            let throttle = admitted.settle(Instant::now(), signals.as_ref(), latency, Some(class));
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
                    retried.push(class);
                    if origin == Origin::Agent {
                        let labels = RetryLabels {
                            tool: tool_label.clone(),
                            error_class: Class(class),
                        };
                        self.metrics.retries.get_or_create(&labels).inc();
                    }
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

        if let (Some(&class), Origin::Agent) = (retried.first(), origin) {
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
            Ok(body) => {
                self.contract_holds(tool).await;
                Ok(Structured::new(body, tool.contract.wraps_result))
            }
            Err((failure, _)) => {
                if let Some(drift) = &failure.drift {
                    self.drift_detected(tool, drift).await;
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
                origin,
                retried,
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
        // An empty body (204, HEAD, a bare 200) is `null`: the contract decides whether
        // that is acceptable (`{type: "null"}`), rather than calling it "not JSON".
        let body = if response.body.iter().all(u8::is_ascii_whitespace) {
            bytes::Bytes::from_static(b"null")
        } else {
            response.body
        };
        match tool.contract.response.check_bytes(&body) {
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
            Err(BodyError::NotJson(e)) => {
                let detail = Detail::NotJson {
                    reason: e.to_string(),
                    excerpt: explain::excerpt(&body),
                };
                failed(&attempt(status, BodyCheck::NotJson), None, detail)
            }
            Err(BodyError::Drift(drift)) => failed(
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

    /// Metrics, notes and `_meta` for any outcome.
    fn finish(
        &self,
        tool: &ToolSpec,
        tool_label: &Arc<str>,
        result: Result<Structured, Failure>,
        trace: Trace,
    ) -> CallOutcome {
        let Trace {
            attempts,
            started,
            latency,
            paced,
            origin,
            retried,
        } = trace;
        let class = result.as_ref().err().map(|f| f.class);
        // Probe traffic stays out of the user-facing numbers (it has its own metric).
        if origin == Origin::Agent {
            let labels = CallLabels {
                tool: tool_label.clone(),
                outcome: Outcome(class),
            };
            self.metrics.tool_calls.get_or_create(&labels).inc();
            if let Some(state) = self.tools.get(&tool.name) {
                let sequence = retried.first().map(|c| (*c, result.is_ok()));
                lock(&state.stats).call(Instant::now(), class, &retried, sequence);
            }
        }
        let now = Instant::now();
        let deprecation = self
            .tools
            .get(&tool.name)
            .and_then(|t| lock(&t.deprecation).clone());
        let snapshot = self
            .dependency(&tool.dependency.name)
            .map(|d| d.call_snapshot(now));
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
fn validate_arguments(tool: &ToolSpec, value: &Value) -> Result<(), String> {
    if tool.input_validator.is_valid(value) {
        return Ok(());
    }
    let problems: Vec<String> = tool
        .input_validator
        .iter_errors(value)
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
