//! `toolgate audit`: the recorded tool calls in the config's state store, filtered,
//! as lines for people or JSON lines for export. Read-only: it never creates a store.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;

use toolgate_config as config;
use toolgate_store::{AuditQuery, Store, parse_audit_time};

use super::incidents::existing_file;

/// The filters as given on the command line.
#[derive(Debug)]
pub(super) struct Filters {
    pub agent: Option<String>,
    pub tool: Option<String>,
    pub class: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub limit: u32,
}

impl Filters {
    fn query(self) -> anyhow::Result<AuditQuery> {
        let now = chrono::Utc::now();
        let time = |flag: &str, text: Option<String>| {
            text.map(|t| parse_audit_time(&t, now).map_err(|e| anyhow::anyhow!("--{flag}: {e}")))
                .transpose()
        };
        if self.limit == 0 || self.limit > toolgate_store::AUDIT_READ_MAX {
            anyhow::bail!(
                "--limit {}: use 1 to {} (export more with --since/--until windows)",
                self.limit,
                toolgate_store::AUDIT_READ_MAX
            );
        }
        Ok(AuditQuery {
            since: time("since", self.since)?,
            until: time("until", self.until)?,
            agent: self.agent,
            tool: self.tool,
            outcome: self.class,
            limit: self.limit,
        })
    }
}

pub(super) async fn audit(path: &Path, filters: Filters, json: bool) -> anyhow::Result<ExitCode> {
    let query = filters.query()?;
    // Only the store's location matters: the upstreams' credentials need not be exported.
    let (c, unset) = match config::load_for_reading(path) {
        Ok(loaded) => loaded,
        Err(errors) => {
            eprintln!("{errors}");
            return Ok(ExitCode::FAILURE);
        }
    };
    if let Some(u) = unset.iter().find(|u| u.path == "gateway.state") {
        anyhow::bail!(
            "gateway.state names ${{{}}}, which is not set: export it to reach the state store",
            u.var
        );
    }
    if c.gateway.postgres.is_none() {
        existing_file(&c.gateway.state, "the config's gateway.state")?;
    }
    let store = Store::connect(&c.gateway)
        .await
        .context("opening the state store")?;
    eprintln!("reading {}", store.describe());
    let records = store.audit(query).await?;
    if json {
        for r in &records {
            say!("{}", serde_json::to_string(r)?);
        }
    } else if records.is_empty() {
        say!("no recorded calls match in {}", store.describe());
    } else {
        for r in &records {
            say!(
                "{} {} {} {} attempts={} {}ms args={}{}",
                r.at,
                r.agent,
                r.tool,
                r.outcome,
                r.attempts,
                r.latency_ms,
                &r.args_sha256[..r.args_sha256.len().min(16)],
                r.request_id
                    .as_deref()
                    .map(|id| format!(" request={id}"))
                    .unwrap_or_default()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
