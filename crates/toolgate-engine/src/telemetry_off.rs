//! Traces in a build without the `otel` feature: a config with `telemetry.otlp` is
//! refused with a sentence that says how to get the exporter, and no tracer can exist,
//! so the call path's `Option<Telemetry>` is always `None`. The trace context a caller
//! sends in `_meta` is still passed on to the upstream ([`crate::trace_context`]).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use toolgate_config::{Otlp, ToolSpec};
use toolgate_resilience::{BreakerState, ErrorClass};

use crate::upstream::{CallContext, SendError, UpstreamResponse};

/// What `telemetry.otlp` needs and this build lacks.
pub const NOT_BUILT: &str =
    "this build has no OTLP trace exporter (telemetry.otlp): rebuild with `--features otel`";

/// The installed tracer; this build cannot install one.
#[derive(Debug)]
pub struct Telemetry {
    never: Infallible,
}

impl Telemetry {
    /// Refuses: this build has no OTLP exporter.
    pub fn start(_otlp: &Otlp) -> anyhow::Result<Arc<Telemetry>> {
        anyhow::bail!(NOT_BUILT)
    }

    /// Unreachable: no tracer exists.
    pub async fn flush(&self, _within: Duration) -> bool {
        match self.never {}
    }

    /// Unreachable: no tracer exists.
    pub async fn shutdown(&self, _within: Duration) -> bool {
        match self.never {}
    }

    /// Unreachable: no tracer exists.
    pub fn call(&self, _spec: &ToolSpec, _ctx: &CallContext, _probe: bool) -> CallTrace {
        match self.never {}
    }
}

/// One call's span; none exists in this build.
#[derive(Debug)]
pub struct CallTrace {
    never: Infallible,
}

/// What a finished call reports on its span.
#[derive(Debug)]
pub struct CallEnd<'a> {
    /// The failure's class; `None` for a success.
    pub class: Option<ErrorClass>,
    /// Attempts sent upstream.
    pub attempts: u32,
    /// Time waiting for the pacer or a concurrency slot.
    pub paced: Duration,
    /// The drift summary, when the reply no longer matched the contract.
    pub drift: Option<String>,
    /// The dependency's breaker after the call.
    pub breaker: &'a BreakerState,
}

impl CallTrace {
    /// Unreachable: no span exists.
    pub fn upstream_context(&self, _ctx: &CallContext) -> CallContext {
        match self.never {}
    }

    /// Unreachable: no span exists.
    pub fn attempt(&self, _spec: &ToolSpec, _n: u32) -> AttemptTrace {
        match self.never {}
    }

    /// Unreachable: no span exists.
    pub fn end(self, _end: &CallEnd<'_>) {
        match self.never {}
    }
}

/// One attempt's span; none exists in this build.
#[derive(Debug)]
pub struct AttemptTrace {
    never: Infallible,
}

impl AttemptTrace {
    /// Unreachable: no span exists.
    pub fn reply(&mut self, _sent: &Result<UpstreamResponse, SendError>) {
        match self.never {}
    }

    /// Unreachable: no span exists.
    pub fn end(self, _class: Option<ErrorClass>) {
        match self.never {}
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_otlp_config_is_refused_saying_how_to_rebuild() {
        let otlp = toolgate_config::Otlp {
            endpoint: "http://127.0.0.1:4318".parse().expect("a URL"),
            sample: 1.0,
        };
        let err = super::Telemetry::start(&otlp).unwrap_err().to_string();
        assert!(err.contains("rebuild with `--features otel`"), "{err}");
    }
}
