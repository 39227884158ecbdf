//! The one place a tool call is assembled, as named stages that read top to bottom:
//!
//! 1. **prepare** — validate the arguments against the input schema and build the
//!    request, before anything touches the network: a call the upstream would reject
//!    costs the upstream nothing, and the model gets the fix.
//! 2. **gate** — a wrapper known to be older than its upstream is not called when its
//!    dependency says `gate: refuse`.
//! 3. **attempts** — the retry loop ([`toolgate_resilience::RetryLoop`]) says attempt,
//!    wait or stop; each attempt is **admit** (breaker, brownout concurrency limit,
//!    quota pacer), **attempt** (one request through the route's [`Upstream`]) and
//!    **interpret** (classified once, see [`interpret`]).
//! 4. **decide** — the verdict becomes the result: the checked body, or a failure with
//!    the sentence the model reads.
//! 5. **record** — metrics, per-tool windows, incidents (never waiting for the store),
//!    notes and `_meta`.
//!
//! The same path serves agent calls and probes; probes stay out of the user-facing
//! metrics and windows.

mod arguments;
mod deprecation;
mod incident;
mod member_spelling;
pub(crate) mod outcome;
mod record;
mod route;
mod signals;
#[cfg(test)]
pub(crate) mod tests;
mod version;

use deprecation::remember_deprecation;
use record::record;

use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;
use toolgate_resilience::{
    Backoff, CallVerdict, ErrorClass, GiveUpReason, RetryLoop, Step, StepOutcome,
};
use toolgate_signals::Signals;

use crate::dependency::{Admitted, Gate};
use crate::explain::{self, Detail};
use crate::metrics::{Class, RetryLabels};
use crate::upstream::{CheckedBody, SendError, Upstream};

pub use crate::upstream::{AttemptResult, CallContext, interpret, read_signals};
pub use outcome::{CallOutcome, Failure, Origin, Structured};
pub use route::{Route, Services, ToolRoute};
pub use signals::{CallSignals, json_schema as signals_schema};

/// What one call did, for the record stage, `_meta` and the notes.
#[derive(Debug)]
struct Call {
    origin: Origin,
    started: Instant,
    retry: RetryLoop,
    /// Time spent waiting for the quota pacer or a concurrency slot.
    paced: Duration,
    /// The part of `paced` the quota pacer spaced this call by (its place in line).
    spaced: Duration,
    /// Latency of the last attempt that got a reply.
    latency: Option<Duration>,
    /// The last failed attempt: its class, the server's wait, and what to say.
    last: Option<(ErrorClass, Option<Duration>, Detail)>,
    /// The last failed attempt's reply vouched for a retry (`x-should-retry: true`): the
    /// retries below the model followed it, and so does what the model is told.
    last_vouched: bool,
    /// The scope the last reply's `insufficient_scope` challenge said the credentials
    /// lack.
    missing_scope: Option<String>,
    /// The last reply said a count the account holds is full (a
    /// [`toolgate_signals::recovery::Recovery::Holdings`]).
    full_count: bool,
    /// `Warning` texts of the last reply, for the notes.
    warnings: Vec<String>,
    /// The quotas the last reply advertised, kept only when they are the caller's own
    /// budget (each caller's own credentials): this call's notes and `_meta` tell
    /// them, and the dependency's state, which every caller reads, does not.
    own_quotas: Vec<toolgate_signals::Quota>,
    /// Signal-like headers of the last reply that toolgate could not read.
    unread: Vec<toolgate_signals::unread::Unread>,
    /// The call's trace span, with `telemetry.otlp`.
    trace: Option<crate::telemetry::CallTrace>,
    /// Drift of a body returned anyway (`on_drift: warn`), and the number of responses
    /// its learned contract was learned from (none for a declared contract).
    warned_drift: Option<(toolgate_contract::Drift, Option<u64>)>,
    /// The agent whose call this is, for the incidents it hits (`None`: anonymous or a
    /// probe).
    agent: Option<crate::agents::CallAgent>,
}

/// How the attempts ended.
#[derive(Debug)]
enum Ending {
    /// A body that satisfied the contract.
    Body(CheckedBody),
    /// Admission or the version gate answered instead of the upstream.
    Refused(Failure),
    /// The retry loop stopped on a failed attempt.
    Failed {
        class: ErrorClass,
        reason: Option<GiveUpReason>,
    },
}

/// Runs one call of `route` to completion. Never panics on any upstream bytes.
///
/// An agent's call is first admitted for that agent (`agents.rs`: its tool policy, then
/// its quota): a refusal is recorded like any refusal, and nothing is sent upstream.
pub async fn run<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    args: Map<String, Value>,
    origin: Origin,
    ctx: &CallContext,
) -> CallOutcome {
    let agent = ctx.agent.as_ref().filter(|_| origin == Origin::Agent);
    // Agents' calls are audited (probes are not calls anyone made); the arguments are
    // hashed here, before they are moved, and never kept.
    let audit = services
        .audit
        .as_ref()
        .filter(|_| origin == Origin::Agent)
        .map(|log| (log, crate::audit::Started::now(&args)));
    let admitted = match agent {
        Some(a) => Some(a.admit_shared(&route.spec.name, Instant::now()).await),
        None => None,
    };
    let outcome = match admitted {
        Some(Err(refusal)) => {
            tracing::info!(agent = crate::agents::label(agent), tool = %route.spec.name, class = refusal.class.as_str(), "call refused for the agent");
            let call = Call::new(route, origin, None);
            record(route, services, call, Err(refusal))
        }
        Some(Ok(_permit)) => run_admitted(route, services, args, origin, ctx).await,
        None => run_admitted(route, services, args, origin, ctx).await,
    };
    if origin == Origin::Agent {
        let class = outcome.result.as_ref().err().map(|f| f.class);
        services
            .metrics
            .count_agent_call(agent.map(|a| (a.name(), a.calls())), class);
    }
    if let Some((log, started)) = audit {
        let record = started.finish(
            crate::agents::label(agent),
            &route.spec.name,
            outcome.result.as_ref().err().map(|f| f.class.as_str()),
            outcome.signals.attempts,
            ctx,
        );
        log.record_with(record, outcome.signals.incident.clone());
    }
    outcome
}

impl Call {
    fn new<U: Upstream>(
        route: &Route<U>,
        origin: Origin,
        trace: Option<crate::telemetry::CallTrace>,
    ) -> Call {
        let started = Instant::now();
        let spec = &route.spec;
        Call {
            origin,
            started,
            retry: RetryLoop::new(
                Backoff {
                    base: spec.dependency.retry.base_delay,
                    cap: spec.dependency.retry.max_delay,
                    max_attempts: spec.dependency.retry.max_attempts,
                },
                spec.retry_safe(),
                started + spec.deadline,
            ),
            paced: Duration::ZERO,
            spaced: Duration::ZERO,
            latency: None,
            last: None,
            last_vouched: false,
            missing_scope: None,
            full_count: false,
            warnings: Vec::new(),
            own_quotas: Vec::new(),
            unread: Vec::new(),
            trace,
            warned_drift: None,
            agent: None,
        }
    }
}

/// [`run`] once the agent, if any, is admitted.
async fn run_admitted<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    args: Map<String, Value>,
    origin: Origin,
    ctx: &CallContext,
) -> CallOutcome {
    let spec = &route.spec;
    let agent = ctx.agent.clone().filter(|_| origin == Origin::Agent);
    // Traced, the upstream gets this call's span as its parent instead of the caller's.
    let trace = services
        .telemetry
        .as_ref()
        .map(|t| t.call(spec, ctx, origin == Origin::Probe));
    let traced_ctx = trace.as_ref().map(|t| t.upstream_context(ctx));
    let ctx = traced_ctx.as_ref().unwrap_or(ctx);
    let mut call = Call::new(route, origin, trace);
    call.agent = agent;
    let mut args = args;
    let left_out = arguments::drop_null_optionals(&spec.input_schema, &mut args);
    if !left_out.is_empty() {
        tracing::debug!(tool = %spec.name, arguments = ?left_out, "null for an optional argument taken as left out");
    }
    let args = Value::Object(args);
    let mut request = match prepare(route, &args, ctx) {
        Ok(request) => request,
        Err(failure) => return record(route, services, call, Err(failure)),
    };
    if origin == Origin::Agent
        && let Some(refusal) = version::known_refusal(spec, &route.state)
    {
        return record(route, services, call, Err(refusal));
    }
    // With the caller's authority (a token exchanged for the caller's), once per call.
    if let Err(e) = route.upstream.authorize(&mut request, ctx).await {
        let failure = Failure::new(e.class(), e.message(&spec.name, &spec.dependency.name));
        return record(route, services, call, Err(failure));
    }
    let ending = attempts(route, services, &mut call, &request).await;
    let result = decide(route, services, &mut call, ending);
    record(route, services, call, result)
}

/// Stage 1: the arguments against the input schema, then the request.
fn prepare<U: Upstream>(
    route: &Route<U>,
    args: &Value,
    ctx: &CallContext,
) -> Result<U::Request, Failure> {
    validate_arguments(route, args)
        .and_then(|()| match args {
            Value::Object(fields) => route.upstream.prepare(fields, ctx),
            _ => Err("the arguments must be a JSON object".to_string()),
        })
        .map_err(|problem| {
            Failure::new(
                ErrorClass::ClientError,
                explain::invalid_arguments(&route.spec.name, &problem),
            )
        })
}

/// Stage 3: the retry loop's steps until it is done.
async fn attempts<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    call: &mut Call,
    request: &U::Request,
) -> Ending {
    let mut step = Step::Attempt;
    let mut body = None;
    let mut refused = None;
    loop {
        let outcome = match step {
            Step::Done(CallVerdict::Succeeded) => {
                return body.map_or_else(
                    // The loop succeeds only on a body; keep the type honest anyway.
                    || Ending::Failed {
                        class: ErrorClass::ServerError,
                        reason: None,
                    },
                    Ending::Body,
                );
            }
            Step::Done(CallVerdict::Failed { class, reason, .. }) => {
                return match refused.take() {
                    Some(failure) if reason.is_none() => Ending::Refused(failure),
                    _ => Ending::Failed { class, reason },
                };
            }
            Step::Wait(wait) => {
                if call.origin == Origin::Agent
                    && let Some((class, ..)) = &call.last
                {
                    let labels = RetryLabels {
                        tool: route.label.clone(),
                        error_class: Class(*class),
                    };
                    services.metrics.retries.get_or_create(&labels).inc();
                }
                tokio::time::sleep(wait).await;
                StepOutcome::Waited
            }
            Step::Attempt => match admit(route, services, call).await {
                Err(failure) => {
                    let class = failure.class;
                    refused = Some(failure);
                    StepOutcome::Refused { class }
                }
                Ok(admitted) => match attempt(route, services, call, admitted, request).await {
                    Attempted::Success(b) => {
                        body = Some(b);
                        StepOutcome::Success
                    }
                    Attempted::Refused(failure) => return Ending::Refused(failure),
                    Attempted::Failed {
                        class,
                        hint,
                        detail,
                        advice,
                    } => {
                        call.last = Some((class, hint, detail));
                        call.last_vouched = advice == Some(true);
                        StepOutcome::Failed {
                            class,
                            hint,
                            brownout: route.dependency.in_brownout(),
                            advice,
                        }
                    }
                },
            },
        };
        let dependency = &route.dependency;
        step = call.retry.next(
            outcome,
            Instant::now(),
            |now| dependency.withdraw_retry(now),
            &mut rand::rng(),
        );
    }
}

/// Admission of one attempt: the breaker first (a dependency known to be down gets
/// nothing), then, in a brownout, the concurrency limit, then the quota pacer (never
/// send what the upstream said it will refuse). Waits for the pacer or a slot count
/// as paced time; a call given a place in line by the pacer holds it while it waits,
/// and asks the breaker again before it sends.
async fn admit<'a, U: Upstream>(
    route: &'a Route<U>,
    services: &Services,
    call: &mut Call,
) -> Result<Admitted<'a>, Failure> {
    let first = call.retry.attempts() == 0;
    let (tool, dependency) = (&route.spec.name, &route.spec.dependency.name);
    // Replies already fill what toolgate may hold: this one could not be read, and
    // sending it would have the upstream act for nothing.
    if services.replies.is_full() {
        return Err(Failure::new(
            ErrorClass::Overloaded,
            explain::no_room_for_replies(tool, services.replies.held(), services.replies.limit()),
        ));
    }
    // The same for this agent's share: its other calls' replies fill it.
    if let Some(agent) = &call.agent
        && services.replies.is_full_for(agent.replies())
    {
        return Err(Failure::new(
            ErrorClass::Overloaded,
            explain::no_room_for_agent_replies(
                tool,
                agent.name(),
                agent.replies().held(),
                services.replies.agent_limit(),
            ),
        ));
    }
    loop {
        let now = Instant::now();
        match route
            .dependency
            .gate_fleet(now, call.retry.left(now), first)
            .await
        {
            Gate::Go(admitted) => return Ok(admitted),
            Gate::Wait(d) => {
                call.paced += d;
                tokio::time::sleep(d).await;
            }
            Gate::Queued { wait, admitted } => {
                // The place in line is this call's; cancelled while waiting, the
                // admission is dropped and gives the place back.
                call.paced += wait;
                call.spaced += wait;
                tokio::time::sleep(wait).await;
                let now = Instant::now();
                if let Some(retry_in) = route.dependency.open_for(now) {
                    admitted.unsent();
                    let down_since = route.dependency.call_snapshot(now).down_since;
                    return Err(Failure {
                        retry_after: Some(retry_in),
                        ..Failure::new(
                            ErrorClass::CircuitOpen,
                            explain::circuit_open(tool, dependency, down_since, retry_in),
                        )
                    });
                }
                return Ok(admitted);
            }
            Gate::Saturated { limit } => {
                return Err(Failure::new(
                    ErrorClass::Overloaded,
                    explain::saturated(tool, dependency, limit),
                ));
            }
            Gate::QuotaExhausted { resets_in } => {
                return Err(Failure {
                    retry_after: Some(resets_in),
                    ..Failure::new(
                        ErrorClass::RateLimited,
                        explain::quota_exhausted(tool, dependency, resets_in),
                    )
                });
            }
            Gate::AccountHeld { retry_in } => {
                return Err(Failure {
                    retry_after: Some(retry_in),
                    ..Failure::new(
                        ErrorClass::Account,
                        explain::account_held(tool, dependency, &route.spec.owner, retry_in),
                    )
                });
            }
            Gate::CircuitOpen { retry_in } => {
                let down_since = route.dependency.call_snapshot(now).down_since;
                return Err(Failure {
                    retry_after: Some(retry_in),
                    ..Failure::new(
                        ErrorClass::CircuitOpen,
                        explain::circuit_open(tool, dependency, down_since, retry_in),
                    )
                });
            }
        }
    }
}

/// What one admitted attempt came to.
enum Attempted {
    Success(CheckedBody),
    /// The reply announced a newer upstream version and the gate refuses.
    Refused(Failure),
    Failed {
        class: ErrorClass,
        hint: Option<Duration>,
        detail: Detail,
        /// The reply's own word on a retry (`x-should-retry`): `Some(false)`, it
        /// will not help; `Some(true)`, it is safe and may succeed.
        advice: Option<bool>,
    },
}

/// One attempt: send, read the signals, interpret, and settle the admission with what
/// came back (the breaker, pacer, latency window and limit learn from it).
async fn attempt<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    call: &mut Call,
    admitted: Admitted<'_>,
    request: &U::Request,
) -> Attempted {
    let spec = &route.spec;
    let timeout = spec.dependency.timeout.min(call.retry.left(Instant::now()));
    let mut span = call
        .trace
        .as_ref()
        .map(|t| t.attempt(spec, call.retry.attempts() + 1));
    let sent = route.upstream.attempt(request, timeout).await;
    if let Some(s) = &mut span {
        s.reply(&sent);
    }
    if let Err(SendError::Build { detail }) = &sent {
        admitted.unsent();
        if let Some(s) = span {
            s.end(Some(ErrorClass::ClientError));
        }
        return Attempted::Failed {
            class: ErrorClass::ClientError,
            hint: None,
            detail: Detail::NotFormed(detail.clone()),
            advice: None,
        };
    }
    let wall = chrono::Utc::now();
    let (signals, header_version) = read_reply(route, services, call, &admitted, &sent, wall);
    let latency = call.latency;
    let past_sunset = route.state.past_sunset(wall);
    match route
        .upstream
        .interpret(spec, sent, signals.as_ref(), past_sunset)
    {
        AttemptResult::Success(body) => {
            let reply = Reply {
                admitted,
                span,
                signals,
                latency,
            };
            succeeded(route, services, call, reply, header_version, body)
        }
        AttemptResult::Failed {
            class,
            hint,
            detail,
        } => {
            let reply = Reply {
                admitted,
                span,
                signals,
                latency,
            };
            failed(reply, class, hint, detail)
        }
    }
}

/// What an attempt's reply leaves to settle: the admission to give back with what was
/// learned, the trace span to end, and what the reply said about itself.
struct Reply<'a> {
    admitted: Admitted<'a>,
    span: Option<crate::telemetry::AttemptTrace>,
    signals: Option<Signals>,
    latency: Option<Duration>,
}

/// What a reply says before it is interpreted: its metrics, its signals (their quota
/// resets in the dependency's own unit), a deprecation it announces or withdraws, and
/// warnings and headers toolgate could not read. Returns the signals and any version
/// the headers announce.
fn read_reply<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    call: &mut Call,
    admitted: &Admitted<'_>,
    sent: &Result<crate::upstream::UpstreamResponse, SendError>,
    wall: chrono::DateTime<chrono::Utc>,
) -> (Option<Signals>, Option<String>) {
    let spec = &route.spec;
    if let Some(status) = crate::upstream::status_label(sent) {
        services.metrics.count_attempt(
            &route.series,
            &spec.dependency.name,
            &route.label,
            status,
            sent.as_ref().ok().map(|r| r.latency),
        );
    }
    let mut signals = read_signals(spec, sent, wall);
    if let Some(s) = signals.as_mut() {
        admitted.read_countdowns(Instant::now(), s);
    }
    let header_version = version::from_headers(spec, sent);
    let latency = sent.as_ref().ok().map(|r| r.latency);
    call.latency = latency;
    let succeeded = sent.as_ref().is_ok_and(|r| (200..300).contains(&r.status));
    remember_deprecation(
        route,
        services,
        signals.as_ref().and_then(|s| s.deprecation.as_ref()),
        succeeded,
    );
    call.missing_scope = signals.as_ref().and_then(|s| s.missing_scope.clone());
    call.full_count = signals.as_ref().and_then(|s| s.recovery)
        == Some(toolgate_signals::recovery::Recovery::Holdings);
    if let Some(s) = &signals {
        call.warnings.clone_from(&s.warnings);
        if route.dependency.credentials() == crate::dependency::Credentials::EachCallersOwn {
            call.own_quotas.clone_from(&s.quota);
        }
        call.unread.clone_from(&s.unread);
        for header in &s.unread {
            services
                .metrics
                .record_unread_header(&spec.dependency.name, &header.name);
        }
    }
    (signals, header_version)
}

/// A reply that passed its contract: judged against a learned contract, settled as a
/// success, and refused if it announces a version the tool does not accept.
fn succeeded<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    call: &mut Call,
    reply: Reply<'_>,
    header_version: Option<String>,
    body: CheckedBody,
) -> Attempted {
    let spec = &route.spec;
    let Reply {
        admitted,
        span,
        signals,
        latency,
    } = reply;
    call.warned_drift = None;
    match crate::learned::judge(&services.learning, spec, &route.state.learned, body.bytes()) {
        crate::learned::Judged::Fine => {}
        crate::learned::Judged::Drift { drift, samples }
            if spec.contract.on_drift == toolgate_config::OnDrift::Fail =>
        {
            let _ = samples;
            admitted.settle(
                Instant::now(),
                signals.as_ref(),
                latency,
                Some(ErrorClass::ContractDrift),
            );
            if let Some(s) = span {
                s.end(Some(ErrorClass::ContractDrift));
            }
            return Attempted::Failed {
                class: ErrorClass::ContractDrift,
                hint: None,
                detail: Detail::Drift(drift),
                advice: None,
            };
        }
        crate::learned::Judged::Drift { drift, samples } => {
            call.warned_drift = Some((drift, samples));
        }
    }
    admitted.settle(Instant::now(), signals.as_ref(), latency, None);
    if let Some(s) = span {
        s.end(None);
    }
    let seen = header_version.or_else(|| version::from_body(spec, &body));
    if let Some(announced) = seen
        && let version::VersionVerdict::Refuse(refusal) = version::judge(
            spec,
            &route.state,
            &services.incidents,
            &announced,
            call.origin,
        )
    {
        return Attempted::Refused(refusal);
    }
    Attempted::Success(body)
}

/// A failed attempt, settled with its class and the wait it asked for.
fn failed(
    reply: Reply<'_>,
    class: ErrorClass,
    hint: Option<Duration>,
    detail: Detail,
) -> Attempted {
    let Reply {
        admitted,
        span,
        signals,
        latency,
    } = reply;
    // A wait the reply itself gave (a JSON-RPC rate-limit error's
    // `retryAfterSeconds`) paces the dependency as a `Retry-After` header would.
    let mut signals = signals;
    if class == ErrorClass::RateLimited
        && let Some(wait) = hint
        && signals.as_ref().is_none_or(|s| s.retry_after.is_none())
    {
        let s = signals.get_or_insert_with(Signals::default);
        s.retry_after = Some(wait);
        s.rate_limited = true;
    }
    // A reply toolgate had no room for says nothing about the dependency: the
    // breaker and the latency window hear that it answered, no more.
    let outcome = (!matches!(detail, Detail::NoRoom { .. })).then_some(class);
    let throttle = admitted.settle(Instant::now(), signals.as_ref(), latency, outcome);
    if let Some(s) = span {
        s.end(Some(class));
    }
    Attempted::Failed {
        class,
        hint: hint.max(throttle),
        detail,
        advice: signals.as_ref().and_then(|s| s.should_retry),
    }
}

/// Stage 4: the ending as a result, with the model's sentence for a failure.
fn decide<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    call: &mut Call,
    ending: Ending,
) -> Result<Structured, Failure> {
    let spec = &route.spec;
    match ending {
        Ending::Body(body) => Ok(match spec.kind {
            toolgate_config::ToolKind::Mcp { .. } => Structured::mcp_result(body.into_parts().0),
            toolgate_config::ToolKind::Http(_) => {
                let (json, escapes) = body.into_parts();
                Structured::checked(json, escapes, spec.contract.wraps_result)
            }
        }),
        Ending::Refused(failure) => match call.last.take() {
            // Refused on a retry (the breaker opened meanwhile): the call did reach the
            // upstream, so say what the attempts got, not "was not called".
            Some((last, hint, detail)) => Err(failure_of(
                route,
                services,
                call,
                failure.class,
                last,
                hint.or(failure.retry_after),
                detail,
                GiveUpReason::CircuitOpen,
            )),
            None => Err(failure),
        },
        Ending::Failed { class, reason } => {
            let (last, hint, detail) = call.last.take().unwrap_or((
                class,
                None,
                Detail::Connect("no attempt was made".into()),
            ));
            Err(failure_of(
                route,
                services,
                call,
                class,
                last,
                hint,
                detail,
                reason.unwrap_or(GiveUpReason::NotRetryable),
            ))
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn failure_of<U: Upstream>(
    route: &Route<U>,
    services: &Services,
    call: &Call,
    class: ErrorClass,
    last: ErrorClass,
    hint: Option<Duration>,
    detail: Detail,
    reason: GiveUpReason,
) -> Failure {
    let spec = &route.spec;
    let vouched = call.last_vouched && reason != GiveUpReason::AdvisedAgainst;
    let message = explain::failure(&explain::Failed {
        tool: spec,
        class: last,
        detail: &detail,
        why: reason,
        attempts: call.retry.attempts(),
        elapsed: call.started.elapsed(),
        owner_alerted: services.incidents.reaches(&spec.owner),
        retry_after: hint,
        now: chrono::Utc::now(),
        retry_vouched: vouched,
        missing_scope: call.missing_scope.as_deref(),
        full_count: call.full_count,
        successor: crate::successor::Successor::for_reader(
            spec.successor.as_deref(),
            call.agent.as_ref().map(|a| a.spec().as_ref()),
        ),
    });
    let drift_cause = (last == ErrorClass::ContractDrift && !matches!(detail, Detail::Drift(_)))
        .then(|| detail.drift_cause());
    let (drift, passthrough) = match detail {
        Detail::Drift(d) => (Some(Box::new(d)), None),
        Detail::ToolError { result, .. } => (None, Some(result)),
        _ => (None, None),
    };
    Failure {
        class,
        message,
        retry_after: hint,
        drift_cause,
        drift,
        passthrough,
        retry_advised_against: reason == GiveUpReason::AdvisedAgainst,
        retry_vouched: vouched,
    }
}

/// Checks arguments against the tool's input schema; the error lists what to fix.
fn validate_arguments<U>(route: &Route<U>, args: &Value) -> Result<(), String> {
    let validator = &route.spec.input_validator;
    if validator.is_valid(args) {
        return match member_spelling::misread_member(&route.spec.input_schema, args) {
            Some(problem) => Err(problem),
            None => Ok(()),
        };
    }
    let problems: Vec<String> = validator
        .iter_errors(args)
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
