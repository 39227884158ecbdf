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
        if !watch {
            tasks.close();
            return Background {
                tasks,
                stop,
                gateway: gateway.clone(),
            };
        }
        let dependencies: Vec<_> = gateway.dependencies().map(|(_, d)| d.clone()).collect();
        crate::watch::status_page::spawn(&dependencies, gateway.client(), &tasks, &stop);
        crate::watch::probe::spawn(gateway, &tasks, &stop);
        crate::watch::rules::spawn(gateway, &tasks, &stop);
        tasks.close();
        Background {
            tasks,
            stop,
            gateway: gateway.clone(),
        }
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
        if !(flushed && joined && delivered) {
            tracing::warn!(
                incidents_flushed = flushed,
                tasks_stopped = joined,
                notifications_delivered = delivered,
                "shutdown deadline reached with work pending"
            );
        }
        flushed && joined && delivered
    }
}
