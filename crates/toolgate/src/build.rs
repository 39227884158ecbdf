//! What this build was compiled with, and what a config asks for that it lacks. The
//! default build leaves out what only a fleet or a trace collector needs (see the
//! `[features]` of this package); `toolgate check` names each missing part with the
//! feature that brings it, before `serve` would fail on the same.

use toolgate_config::Config;

/// One sentence per part `config` uses that this build does not have.
pub fn missing(config: &Config) -> Vec<&'static str> {
    let mut missing = Vec::new();
    if config.gateway.postgres.is_some() && !cfg!(feature = "postgres") {
        missing.push(
            "gateway.state is a PostgreSQL URL, but this build has no PostgreSQL support: rebuild with `--features postgres`",
        );
    }
    if config.gateway.shared.is_some() && !cfg!(feature = "redis") {
        missing.push(
            "gateway.shared is set, but this build has no Redis support: rebuild with `--features redis`",
        );
    }
    if config.telemetry.is_some() && !cfg!(feature = "otel") {
        missing.push(
            "telemetry.otlp is set, but this build has no OTLP trace exporter: rebuild with `--features otel`",
        );
    }
    missing
}
