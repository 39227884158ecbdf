//! toolgate's engine: everything a tool call goes through, and what it leaves behind.
//!
//! The call path is assembled in one place, [`pipeline`]: admission (quota, breaker,
//! pacing), the upstream attempt ([`upstream`]: HTTP or a fronted MCP server), the
//! interpretation of the reply (error class, contract check, signals), the retry loop,
//! and the answer's notes. Around it: per-dependency state ([`dependency`]), per-tool
//! state ([`tool_state`]), fronted MCP servers' pins and routes ([`fronting`]), the
//! incident index and the background jobs ([`watch`], [`background`]), metrics and traces
//! ([`metrics`], [`telemetry`]), the fleet's shared state ([`fleet`]), and [`gateway`],
//! which assembles them. The MCP transports that call into it are `toolgate-server`'s;
//! nothing here knows about HTTP requests from clients or JSON-RPC framing.

pub mod agents;
pub mod audit;
pub mod background;
pub mod broadcast;
pub mod dependency;
pub mod exchange;
mod explain;
mod fingerprint;
#[cfg(test)]
mod fixtures;
mod fleet;
mod fleet_gauges;
pub mod fronting;
pub mod gateway;
pub mod health;
pub mod learned;
pub mod metrics;
mod notes;
pub mod pipeline;
pub mod reload;
pub mod serving;
pub mod status;
mod successor;
pub mod sync;
// The OTLP exporter only with the `otel` feature; without it, a stub that refuses a
// `telemetry.otlp` config with a sentence saying how to rebuild.
#[cfg(feature = "otel")]
mod telemetry;
#[cfg(not(feature = "otel"))]
mod telemetry_off;
#[cfg(not(feature = "otel"))]
use telemetry_off as telemetry;
// W3C trace context, read and passed on with or without the exporter.
pub mod tls;
pub mod tool_state;
mod trace_context;
pub mod upstream;
pub mod watch;
