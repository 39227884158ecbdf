//! `toolgate lock`: connects to every configured MCP server, lists its tools and writes
//! them as the pins into each server's lockfile (servers sharing a lockfile share one
//! file; entries of servers not in this config are kept). Reviewing the lockfile's diff
//! is how an operator accepts a changed upstream.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use toolgate_contract::{Lockfile, PinnedServer};

use super::Fronting;
use crate::upstream::UpstreamClient;
use toolgate_config::Config;

/// What `lock` did for one server.
#[derive(Debug)]
pub struct Locked {
    /// The server's name.
    pub server: String,
    /// The lockfile.
    pub path: PathBuf,
    /// How many tools were pinned, or why none could be.
    pub result: Result<usize, String>,
    /// What changed against the previous pins, one line each.
    pub changes: Vec<String>,
}

/// Pins every server's current tools. A server that cannot be reached keeps its old
/// pins and is reported; the others are written.
pub async fn lock(config: &Config) -> anyhow::Result<Vec<Locked>> {
    let client = UpstreamClient::new()
        .map_err(|e| anyhow::anyhow!("cannot build the upstream HTTP client: {e}"))?;
    let (fronting, _events) = Fronting::start(config, &client)?;
    let mut files: BTreeMap<PathBuf, Lockfile> = BTreeMap::new();
    let mut report = Vec::new();
    for server in fronting.servers().map(Arc::clone).collect::<Vec<_>>() {
        let spec = server.spec().clone();
        let file = match files.get(&spec.lock) {
            Some(f) => f.clone(),
            None => Lockfile::read(&spec.lock)?.unwrap_or_default(),
        };
        let previous = file.server(&spec.name).cloned();
        let listed = match server.connection.initialize(spec.dependency.timeout).await {
            Ok(init) => server.list_tools().await.map(|tools| (init, tools)),
            Err(e) => Err(e.to_string()),
        };
        let (result, changes, file) = match listed {
            Ok((init, mut tools)) => {
                tools.sort_by(|a, b| a.name.cmp(&b.name));
                let changes = previous
                    .as_ref()
                    .map(|p| {
                        toolgate_contract::compare(&p.tools, &tools)
                            .iter()
                            .map(|c| c.summary())
                            .collect()
                    })
                    .unwrap_or_default();
                let n = tools.len();
                let mut file = file;
                file.merge(
                    spec.name.clone(),
                    PinnedServer {
                        server_name: init.server_name,
                        server_version: init.server_version,
                        protocol_version: init.protocol_version,
                        locked_at: chrono::Utc::now()
                            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                        tools,
                    },
                );
                (Ok(n), changes, file)
            }
            Err(e) => (Err(e), Vec::new(), file),
        };
        files.insert(spec.lock.clone(), file);
        report.push(Locked {
            server: spec.name.clone(),
            path: spec.lock.clone(),
            result,
            changes,
        });
    }
    for (path, file) in &files {
        if report.iter().any(|l| &l.path == path && l.result.is_ok()) {
            file.write(path)?;
        }
    }
    fronting.shutdown().await;
    Ok(report)
}
