//! The background work of a serving gateway — the incident writer, status-page pollers,
//! contract probes and the alert rules — started in one place and tracked, so that a
//! shutdown stops every task, waits for it, and flushes incidents and notifications
//! before the process exits.
//!
//! A reload hands it the next gateway ([`Background::next_generation`]): the tasks that
//! belong to one config (status pages, probes, rules) are restarted on it, the watch
//! of an MCP server that was kept keeps running, added servers get theirs, and removed
//! ones are stopped once the calls already on them have had their deadline.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::fronting::{Fronted, Host, ServerEvents};
use crate::gateway::Gateway;

/// The running background tasks of one gateway.
#[derive(Debug)]
pub struct Background {
    tasks: TaskTracker,
    stop: CancellationToken,
    gateway: Arc<Gateway>,
    first_checks: Option<Arc<FirstChecks>>,
    /// Where MCP servers publish their routes: the gateway, or what serves the current
    /// generation.
    host: Arc<dyn Host>,
    /// Stops the tasks of the config in force.
    generation: std::sync::Mutex<CancellationToken>,
    /// Stops each MCP server's watch, by server name.
    servers: std::sync::Mutex<std::collections::HashMap<String, CancellationToken>>,
}

impl std::fmt::Debug for dyn Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Host")
    }
}

/// Upstream MCP servers not yet checked once.
#[derive(Debug)]
struct FirstChecks {
    left: std::sync::atomic::AtomicUsize,
    done: tokio::sync::Notify,
}

impl FirstChecks {
    fn one_done(&self) {
        self.left.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        self.done.notify_waiters();
    }
}

impl Background {
    /// Starts every background task of `gateway`.
    pub fn start(gateway: &Arc<Gateway>) -> Background {
        Background::spawn(gateway, gateway.clone(), true)
    }

    /// Starts every background task of `gateway`, its MCP servers publishing their
    /// routes through `host` (which follows the generations a reload brings).
    pub fn serving(gateway: &Arc<Gateway>, host: Arc<dyn Host>) -> Background {
        Background::spawn(gateway, host, true)
    }

    /// Starts only the incident writer: for one-shot commands (`toolgate probe`) that
    /// raise incidents but watch nothing.
    pub fn incidents_only(gateway: &Arc<Gateway>) -> Background {
        Background::spawn(gateway, gateway.clone(), false)
    }

    fn spawn(gateway: &Arc<Gateway>, host: Arc<dyn Host>, watch: bool) -> Background {
        let tasks = TaskTracker::new();
        let stop = CancellationToken::new();
        tasks.spawn(
            gateway
                .incidents()
                .clone()
                .run_writer(gateway.store().clone(), stop.clone()),
        );
        if let Some(audit) = gateway.audit() {
            tasks.spawn(
                audit
                    .clone()
                    .run_writer(gateway.store().clone(), stop.clone()),
            );
            if watch {
                tasks.spawn(crate::audit::run_prune(
                    gateway.store().clone(),
                    gateway.config().gateway.audit.retention,
                    stop.clone(),
                ));
            }
        }
        let generation = stop.child_token();
        let mut background = Background {
            tasks,
            stop,
            gateway: gateway.clone(),
            first_checks: None,
            host,
            generation: std::sync::Mutex::new(generation.clone()),
            servers: Default::default(),
        };
        if !watch {
            background.tasks.close();
            return background;
        }
        background.spawn_generation(gateway, &generation);
        let servers = gateway.take_server_events();
        let pending = Arc::new(FirstChecks {
            left: std::sync::atomic::AtomicUsize::new(servers.len()),
            done: tokio::sync::Notify::new(),
        });
        background.first_checks = Some(pending.clone());
        background.watch_servers(servers, Some(pending));
        background.tasks.close();
        background
    }

    /// The tasks that belong to one config: status pages, probes, alert rules.
    fn spawn_generation(&self, gateway: &Arc<Gateway>, stop: &CancellationToken) {
        let dependencies: Vec<_> = gateway.dependencies().map(|(_, d)| d.clone()).collect();
        crate::watch::status_page::spawn(&dependencies, gateway.client(), &self.tasks, stop);
        crate::watch::probe::spawn(gateway, &self.tasks, stop);
        crate::watch::rules::spawn(gateway, &self.tasks, stop);
    }

    /// Checks each server once, then watches it until it is stopped.
    fn watch_servers(&self, servers: Vec<ServerEvents>, pending: Option<Arc<FirstChecks>>) {
        for (server, events) in servers {
            let stop = self.stop.child_token();
            crate::sync::lock(&self.servers).insert(server.spec().name.clone(), stop.clone());
            let (host, pending) = (self.host.clone(), pending.clone());
            self.tasks.spawn(async move {
                let first = server.check(host.as_ref()).await;
                if let Some(pending) = pending {
                    pending.one_done();
                }
                if first.changed {
                    host.notify_all("notifications/tools/list_changed", None);
                }
                crate::fronting::watch(server, host, events, first, stop).await;
            });
        }
    }

    /// Moves the background work to `next` (the gateway a reload built): restarts the
    /// per-config tasks on it, watches the `started` MCP servers, and stops the
    /// `stopped` ones — after their longest call deadline, so calls already on them
    /// finish (at once when the gateway stops).
    pub fn next_generation(
        &self,
        next: &Arc<Gateway>,
        started: Vec<ServerEvents>,
        stopped: Vec<Arc<Fronted>>,
    ) {
        let generation = self.stop.child_token();
        let old = std::mem::replace(
            &mut *crate::sync::lock(&self.generation),
            generation.clone(),
        );
        old.cancel();
        self.spawn_generation(next, &generation);
        for server in stopped {
            if let Some(watch) = crate::sync::lock(&self.servers).remove(&server.spec().name) {
                watch.cancel();
            }
            let stop = self.stop.clone();
            self.tasks.spawn(async move {
                let grace = server.spec().deadline;
                tokio::select! {
                    () = stop.cancelled() => {}
                    () = tokio::time::sleep(grace) => {}
                }
                server.stop().await;
                tracing::info!(server = %server.spec().name, "stopped the MCP server removed from the config");
            });
        }
        self.watch_servers(started, None);
    }

    /// Waits (at most `within`) until every upstream MCP server has been checked once,
    /// so the first `tools/list` already has the tools of the servers that are up.
    pub async fn servers_checked(&self, within: Duration) {
        let Some(pending) = &self.first_checks else {
            return;
        };
        let wait = async {
            loop {
                let notified = pending.done.notified();
                if pending.left.load(std::sync::atomic::Ordering::Acquire) == 0 {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(within, wait).await;
    }

    /// Stops every task and waits for them, then flushes what the incident writer and
    /// the notifier still hold, all within `deadline`. Returns false when something was
    /// still pending at the deadline (it is logged).
    pub async fn stop(&self, deadline: Duration) -> bool {
        let started = tokio::time::Instant::now();
        // Incidents first, while the writer still runs: what the last calls raised is
        // written and handed to the notifier.
        let flushed = self.gateway.incidents().flush(deadline).await;
        self.stop.cancel();
        let left = deadline.saturating_sub(started.elapsed());
        let joined = tokio::time::timeout(left, self.tasks.wait()).await.is_ok();
        let left = deadline.saturating_sub(started.elapsed());
        let delivered = self.gateway.notifier().flush(left).await;
        // Spans last: the calls that ended meanwhile are in the batch too.
        let left = deadline.saturating_sub(started.elapsed());
        let exported = match self.gateway.telemetry() {
            Some(telemetry) => telemetry.shutdown(left).await,
            None => true,
        };
        if !(flushed && joined && delivered && exported) {
            tracing::warn!(
                incidents_flushed = flushed,
                tasks_stopped = joined,
                notifications_delivered = delivered,
                spans_exported = exported,
                "shutdown deadline reached with work pending"
            );
        }
        flushed && joined && delivered && exported
    }
}
