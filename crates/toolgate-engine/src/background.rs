//! The background work of a serving gateway — the incident writer, status-page pollers,
//! contract probes and the alert rules — started in one place and tracked, so that a
//! shutdown stops every task, waits for it, and flushes incidents and notifications
//! before the process exits.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::gateway::Gateway;

/// The running background tasks of one gateway.
#[derive(Debug)]
pub struct Background {
    tasks: TaskTracker,
    stop: CancellationToken,
    gateway: Arc<Gateway>,
    first_checks: Option<Arc<FirstChecks>>,
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
        Background::spawn(gateway, true)
    }

    /// Starts only the incident writer: for one-shot commands (`toolgate probe`) that
    /// raise incidents but watch nothing.
    pub fn incidents_only(gateway: &Arc<Gateway>) -> Background {
        Background::spawn(gateway, false)
    }

    fn spawn(gateway: &Arc<Gateway>, watch: bool) -> Background {
        let tasks = TaskTracker::new();
        let stop = CancellationToken::new();
        tasks.spawn(
            gateway
                .incidents()
                .clone()
                .run_writer(gateway.store().clone(), stop.clone()),
        );
        if let Some(audit) = &gateway.services().audit {
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
        if !watch {
            tasks.close();
            return Background {
                tasks,
                stop,
                gateway: gateway.clone(),
                first_checks: None,
            };
        }
        let dependencies: Vec<_> = gateway.dependencies().map(|(_, d)| d.clone()).collect();
        crate::watch::status_page::spawn(&dependencies, gateway.client(), &tasks, &stop);
        crate::watch::probe::spawn(gateway, &tasks, &stop);
        crate::watch::rules::spawn(gateway, &tasks, &stop);
        let servers = gateway.take_server_events();
        let pending = Arc::new(FirstChecks {
            left: std::sync::atomic::AtomicUsize::new(servers.len()),
            done: tokio::sync::Notify::new(),
        });
        for (server, events) in servers {
            let (gateway, stop, pending) = (gateway.clone(), stop.clone(), pending.clone());
            tasks.spawn(async move {
                let first = server.check(gateway.as_ref()).await;
                pending.one_done();
                if first.changed {
                    gateway
                        .broadcast()
                        .notify_all("notifications/tools/list_changed", None);
                }
                crate::fronting::watch(server, gateway, events, first, stop).await;
            });
        }
        tasks.close();
        Background {
            tasks,
            stop,
            gateway: gateway.clone(),
            first_checks: Some(pending),
        }
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
    pub async fn stop(self, deadline: Duration) -> bool {
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
        let exported = match &self.gateway.services().telemetry {
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
