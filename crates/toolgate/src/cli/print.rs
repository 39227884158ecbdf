//! The commands that print a generated artefact: `config-schema`, `signals-schema`,
//! and `alerts prometheus|grafana`.

use std::process::ExitCode;

use toolgate_config as config;

use super::AlertsCommand;

pub(super) fn config_schema() -> anyhow::Result<ExitCode> {
    say!("{}", serde_json::to_string_pretty(&config::json_schema())?);
    Ok(ExitCode::SUCCESS)
}

pub(super) fn signals_schema() -> anyhow::Result<ExitCode> {
    say!(
        "{}",
        serde_json::to_string_pretty(&toolgate_engine::pipeline::signals_schema())?
    );
    Ok(ExitCode::SUCCESS)
}

pub(super) fn alerts(what: AlertsCommand) -> anyhow::Result<ExitCode> {
    match what {
        AlertsCommand::Prometheus => say_raw!("{}", crate::alerts::prometheus::rules_yaml()),
        AlertsCommand::Grafana => say!(
            "{}",
            serde_json::to_string_pretty(&crate::alerts::grafana::dashboard())?
        ),
    }
    Ok(ExitCode::SUCCESS)
}
