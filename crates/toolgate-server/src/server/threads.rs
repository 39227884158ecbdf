//! Threads that serve client connections, one single-threaded runtime each.
//!
//! Why not the process's work-stealing runtime: a call is one task that reads a request,
//! writes to the upstream, reads its answer and writes the client's, all on one
//! connection. Under load the work-stealing scheduler wakes an idle thread whenever a
//! task becomes ready, so that it can steal it; on a small machine that thread mostly
//! finds nothing and sleeps again, and those wake-ups (a futex call and a context switch
//! each) cost a tenth of a call's CPU (docs/performance.md). A connection handed to a
//! serving thread stays there: its task and the upstream connections it borrows are
//! polled by the thread whose event loop they are registered with, and nothing else is
//! woken. Connections are dealt out in turn. Background jobs stay on the main runtime
//! (`toolgate_engine::serving`).

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

/// How long a stopping thread waits for blocking work its runtime started.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(1);

/// The serving threads; they stop when this is dropped.
#[derive(Debug)]
pub struct ServingThreads {
    handles: Vec<Handle>,
    next: AtomicUsize,
    stop: CancellationToken,
}

impl ServingThreads {
    /// Starts `count` serving threads (one per core for `None`), whose background work
    /// goes to the runtime this is called on. `None` when there is nothing to start (a
    /// count of 0, no current runtime, or a thread that could not start, which is
    /// logged): connections are then served on the current runtime.
    pub fn start(count: Option<usize>) -> Option<ServingThreads> {
        let count =
            count.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
        if count == 0 {
            return None;
        }
        let main = Handle::try_current().ok()?;
        let mut threads = ServingThreads {
            handles: Vec::with_capacity(count),
            next: AtomicUsize::new(0),
            stop: CancellationToken::new(),
        };
        for index in 0..count {
            match start_one(index, main.clone(), threads.stop.clone()) {
                Ok(handle) => threads.handles.push(handle),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot start a serving thread; serving connections on the main runtime");
                    return None;
                }
            }
        }
        Some(threads)
    }

    /// How many threads serve.
    pub fn len(&self) -> usize {
        self.handles.len()
    }

    /// Never empty: [`ServingThreads::start`] starts at least one or none at all.
    pub fn is_empty(&self) -> bool {
        self.handles.is_empty()
    }

    /// Runs `task` on the next thread in turn.
    pub(super) fn spawn<F>(&self, task: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let at = self.next.fetch_add(1, Ordering::Relaxed) % self.handles.len();
        drop(self.handles[at].spawn(task));
    }
}

/// Starts serving thread `index`; its runtime's handle.
fn start_one(index: usize, main: Handle, stop: CancellationToken) -> std::io::Result<Handle> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let handle = runtime.handle().clone();
    std::thread::Builder::new()
        .name(format!("toolgate-serve-{index}"))
        .spawn(move || {
            toolgate_engine::serving::enter_serving_thread(index, main);
            runtime.block_on(stop.cancelled());
            // Outside any async context: cancels what is left on it (connections past
            // the drain deadline) and waits briefly for blocking work it started.
            runtime.shutdown_timeout(SHUTDOWN_WAIT);
        })?;
    Ok(handle)
}

impl Drop for ServingThreads {
    fn drop(&mut self) {
        // Not joined: this may run on an async thread, which must not block.
        self.stop.cancel();
    }
}
