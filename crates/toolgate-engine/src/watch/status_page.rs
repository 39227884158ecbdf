//! Status-page and health-endpoint polling: a background loop per dependency that names
//! one. A page that is not green marks the dependency degraded or down in its state,
//! which the notes, `dependency_health` and the rules read.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use toolgate_signals::status_page::Health;

use crate::dependency::{DependencyState, StatusReport};
use crate::upstream::UpstreamClient;

/// A status page that takes longer than this is reported as unreadable.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// A status document larger than this is refused while it streams in.
const MAX_PAGE_BYTES: usize = 1 << 20;

/// Status page and health endpoint polling: a background loop per dependency that
/// names one. A non-green page marks the dependency degraded or down.
pub fn spawn(
    dependencies: &[Arc<DependencyState>],
    client: &UpstreamClient,
    tasks: &TaskTracker,
    shutdown: &CancellationToken,
) {
    for dep in dependencies {
        let Some(page) = dep.spec.status_page.clone() else {
            continue;
        };
        let dep = dep.clone();
        let client = client.clone();
        let name = dep.spec.name.clone();
        let shutdown = shutdown.clone();
        tasks.spawn(async move {
            loop {
                let checked_at = chrono::Utc::now();
                let report = match client.get(&page.url, FETCH_TIMEOUT, MAX_PAGE_BYTES).await
                {
                    // The status counts: a health endpoint answering 503 is down.
                    Ok((status, body)) => match toolgate_signals::status_page::parse_response(
                        status, &body,
                    ) {
                        Some(p) => StatusReport {
                            page: Some(p),
                            error: None,
                            checked_at,
                        },
                        None => StatusReport {
                            page: None,
                            error: Some("not a recognised status page or health document".into()),
                            checked_at,
                        },
                    },
                    Err(e) => StatusReport {
                        page: None,
                        error: Some(e),
                        checked_at,
                    },
                };
                if let Some(p) = &report.page
                    && p.health != Health::Healthy
                {
                    tracing::warn!(dependency = %name, indicator = %p.indicator, "status page is not green");
                }
                dep.set_status(report);
                tokio::select! {
                    _ = shutdown.cancelled() => break,
                    _ = tokio::time::sleep(page.every) => {}
                }
            }
        });
    }
}
