//! The gateway in force, replaced as a whole by a reload (`SIGHUP`, `toolgate reload`,
//! `POST /admin/reload`).
//!
//! The server reads [`Current::load`] once per request and keeps that `Arc<Gateway>`
//! for the request's life, so a call in flight finishes on the routes it started on
//! while the next request sees the next config. A reload reads the config file and
//! checks it whole first: with any error, every error is logged and returned and the
//! config in force keeps serving. Otherwise the next gateway is built from the one in
//! force ([`Gateway::next`]: unchanged dependencies, tools and MCP servers keep their
//! live state), swapped in, and clients are told their tool list may have changed.
//! Reloads run one at a time.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::audit::action::Action;
use crate::background::Background;
use crate::dependency::DependencyState;
use crate::fronting::Host;
use crate::gateway::{Changes, Gateway, ToolRoute};
use crate::metrics::ReloadLabel;
use crate::sync::{lock, read, write};
use crate::watch::incidents::Incidents;

/// Who a reload on `SIGHUP` is recorded as in the audit trail.
pub const BY_SIGNAL: &str = "SIGHUP";
/// Who a reload of `gateway.reload_watch` is recorded as in the audit trail.
pub const BY_WATCH: &str = "reload_watch";

/// The gateway in force, and how to replace it.
#[derive(Debug)]
pub struct Current {
    gateway: RwLock<Arc<Gateway>>,
    /// The config file a reload reads; `None` when the gateway was not loaded from one
    /// (the demo).
    source: Option<PathBuf>,
    generation: AtomicU64,
    /// One reload at a time.
    reloading: tokio::sync::Mutex<()>,
    /// Held while a reload copies the MCP servers' routes into the next gateway and
    /// swaps it in, and while a server publishes its routes, so no publication is lost
    /// between the two.
    publishing: std::sync::Mutex<()>,
    background: std::sync::Mutex<Option<Arc<Background>>>,
    /// The incident service every generation shares (a reload never replaces it).
    incidents: Arc<Incidents>,
}

/// One problem of a rejected config, where it is.
#[derive(Debug, Clone, Serialize)]
pub struct ReloadError {
    /// The field path, e.g. `tools.search.owner` (empty for the whole file).
    pub field: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// 1-based line, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

/// What a reload did.
#[derive(Debug, Clone, Serialize)]
pub struct ReloadReport {
    /// `ok`, or `rejected` (the config in force keeps serving).
    pub result: &'static str,
    /// The generation in force afterwards.
    pub generation: u64,
    /// The file read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Why it was rejected: every error.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ReloadError>,
    /// What changed, when accepted.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Changes>,
}

impl ReloadReport {
    /// Whether the config was accepted.
    pub fn accepted(&self) -> bool {
        self.result == "ok"
    }
}

impl Current {
    /// Serves `gateway` (generation 1); reloads read `source`.
    pub fn new(gateway: Arc<Gateway>, source: Option<PathBuf>) -> Arc<Current> {
        gateway.metrics().config_generation.set(1);
        gateway
            .metrics()
            .config_last_reload_success
            .set(chrono::Utc::now().timestamp());
        Arc::new(Current {
            incidents: gateway.incidents().clone(),
            gateway: RwLock::new(gateway),
            source,
            generation: AtomicU64::new(1),
            reloading: tokio::sync::Mutex::new(()),
            publishing: std::sync::Mutex::new(()),
            background: std::sync::Mutex::new(None),
        })
    }

    /// The gateway in force. Read it once per request and keep it for the request.
    pub fn load(&self) -> Arc<Gateway> {
        read(&self.gateway).clone()
    }

    /// The generation in force: 1 at start-up, one more for each accepted reload.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// The config file a reload reads.
    pub fn source(&self) -> Option<&std::path::Path> {
        self.source.as_deref()
    }

    /// Starts the background work (incident writer, MCP server watches, probes, status
    /// pages, rules); a reload moves it to each next gateway.
    pub fn start_background(self: &Arc<Self>) {
        let host: Arc<dyn Host> = self.clone();
        let background = Background::serving(&self.load(), host);
        *lock(&self.background) = Some(Arc::new(background));
    }

    /// Waits (at most `within`) until every upstream MCP server was checked once.
    pub async fn servers_checked(&self, within: Duration) {
        let background = lock(&self.background).clone();
        if let Some(background) = background {
            background.servers_checked(within).await;
        }
    }

    /// Stops the background work and flushes incidents, notifications and spans, within
    /// `deadline` (see [`Background::stop`]).
    pub async fn stop(&self, deadline: Duration) -> bool {
        let background = lock(&self.background).take();
        match background {
            Some(background) => background.stop(deadline).await,
            None => true,
        }
    }

    /// Reads the config file again and, when it is valid, serves it.
    /// [`Current::reload`], recorded in the audit trail as an action of `who` (the
    /// admin's credential, [`BY_SIGNAL`] or [`BY_WATCH`]), in the trail of the
    /// generation in force afterwards: whatever starts a reload, the trail says when
    /// the config changed and whether it was refused.
    pub async fn reload_by(&self, who: &str) -> ReloadReport {
        let report = self.reload().await;
        let action = if report.accepted() {
            Action::Reload
        } else {
            Action::ReloadRejected
        };
        crate::audit::action::log(self.load().audit(), who, action, "config", None);
        report
    }

    pub async fn reload(&self) -> ReloadReport {
        let Some(path) = self.source.clone() else {
            return self.rejected(
                None,
                vec![ReloadError {
                    field: String::new(),
                    message: "this gateway was not started from a config file (the demo): there is nothing to reload".into(),
                    help: None,
                    line: None,
                    column: None,
                }],
            );
        };
        let file = Some(path.display().to_string());
        // Reading and compiling touch the disk: off the async threads.
        let loaded = tokio::task::spawn_blocking(move || toolgate_config::load(&path)).await;
        match loaded {
            Ok(Ok(config)) => self.apply(config, file).await,
            Ok(Err(errors)) => {
                let errors = errors
                    .errors
                    .into_iter()
                    .map(|e| ReloadError {
                        field: e.path,
                        message: e.message,
                        help: e.help,
                        line: e.location.map(|l| l.0),
                        column: e.location.map(|l| l.1),
                    })
                    .collect();
                self.rejected(file, errors)
            }
            Err(e) => self.rejected(
                file,
                vec![ReloadError {
                    field: String::new(),
                    message: format!("reading the config failed: {e}"),
                    help: None,
                    line: None,
                    column: None,
                }],
            ),
        }
    }

    /// Serves `config` (already checked whole) from now on, keeping what did not change.
    pub async fn apply(
        &self,
        config: toolgate_config::Config,
        file: Option<String>,
    ) -> ReloadReport {
        let _one = self.reloading.lock().await;
        let next = {
            let _publishing = lock(&self.publishing);
            let next = match self.load().next(config) {
                Ok(next) => next,
                Err(e) => {
                    drop(_publishing);
                    return self.rejected(
                        file,
                        vec![ReloadError {
                            field: String::new(),
                            message: e.to_string(),
                            help: None,
                            line: None,
                            column: None,
                        }],
                    );
                }
            };
            *write(&self.gateway) = next.gateway.clone();
            next
        };
        let generation = self.generation.fetch_add(1, Ordering::AcqRel) + 1;
        let metrics = next.gateway.metrics();
        metrics
            .config_generation
            .set(i64::try_from(generation).unwrap_or(i64::MAX));
        metrics
            .config_reloads
            .get_or_create(&ReloadLabel { result: "ok" })
            .inc();
        metrics
            .config_last_reload_success
            .set(chrono::Utc::now().timestamp());
        metrics.config_last_reload_successful.set(1);
        let background = lock(&self.background).clone();
        if let Some(background) = background {
            background.next_generation(&next.gateway, next.started, next.stopped);
        }
        if next.changes.tools_may_differ() {
            next.gateway
                .broadcast()
                .notify_all("notifications/tools/list_changed", None);
        }
        let c = &next.changes;
        tracing::info!(
            generation,
            tools_added = ?c.tools_added,
            tools_removed = ?c.tools_removed,
            tools_changed = ?c.tools_changed,
            dependencies_reset = ?c.dependencies_reset,
            mcp_servers_started = ?c.mcp_servers_started,
            mcp_servers_stopped = ?c.mcp_servers_stopped,
            "config reloaded"
        );
        for key in &c.needs_restart {
            tracing::warn!(
                key,
                "config reloaded, but this setting changes only with a restart; the old value stays in force"
            );
        }
        ReloadReport {
            result: "ok",
            generation,
            file,
            errors: Vec::new(),
            changes: Some(next.changes),
        }
    }

    fn rejected(&self, file: Option<String>, errors: Vec<ReloadError>) -> ReloadReport {
        for e in &errors {
            tracing::error!(
                field = %e.field,
                line = e.line,
                column = e.column,
                error = %e.message,
                "config reload rejected; the config in force keeps serving"
            );
        }
        let gateway = self.load();
        let metrics = gateway.metrics();
        metrics
            .config_reloads
            .get_or_create(&ReloadLabel { result: "rejected" })
            .inc();
        metrics.config_last_reload_successful.set(0);
        ReloadReport {
            result: "rejected",
            generation: self.generation(),
            file,
            errors,
            changes: None,
        }
    }
}

/// MCP servers publish into the gateway in force, whichever generation it is.
impl Host for Current {
    fn route(&self, name: &str) -> Option<Arc<ToolRoute>> {
        self.load().route(name)
    }

    fn names_besides(
        &self,
        server: &str,
        kind: toolgate_contract::DefinitionKind,
    ) -> std::collections::BTreeMap<String, String> {
        Host::names_besides(self.load().as_ref(), server, kind)
    }

    fn set_server_routes(&self, server: &str, routes: Vec<ToolRoute>) {
        let _publishing = lock(&self.publishing);
        self.load().set_server_routes(server, routes);
    }

    fn server_dependency(&self, server: &str) -> Option<Arc<DependencyState>> {
        self.load().server_dependency(server)
    }

    fn incidents(&self) -> &Arc<Incidents> {
        &self.incidents
    }

    fn notify_all(&self, method: &str, params: Option<Value>) {
        self.load().broadcast().notify_all(method, params);
    }

    fn notify_readers(&self, method: &str, params: Option<Value>, readers: Vec<u64>) {
        self.load()
            .broadcast()
            .notify_readers(method, params, readers);
    }
}

pub mod watch;

#[cfg(test)]
mod tests;
