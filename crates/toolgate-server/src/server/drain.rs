//! The stages of a graceful stop, for load balancers that learn of it late.
//!
//! A stop (SIGTERM, Ctrl-C) first makes `/readyz` answer 503 while every request is
//! still served, for `gateway.shutdown_delay`: Kubernetes removes a terminating pod
//! from its endpoints asynchronously, so requests keep arriving for a while, among them
//! a client's follow-up (a lazy `tools/list`, a session `DELETE`) to the answer it just
//! got. Only then does the listener stop accepting, and calls in flight get
//! `gateway.drain` to finish ([`super::listener`]).

use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// The two moments of a graceful stop.
#[derive(Debug, Clone, Default)]
pub struct Shutdown {
    /// Cancelled when the stop begins: readiness fails, requests are still served.
    pub draining: CancellationToken,
    /// Cancelled when the listener stops accepting (and the event streams end).
    pub stop: CancellationToken,
}

impl Shutdown {
    /// A gateway that is not stopping.
    pub fn new() -> Shutdown {
        Shutdown::default()
    }

    /// Begins the stop: readiness fails now; the listener stops after `delay` (at once
    /// when `delay` is zero, or when [`Shutdown::stop`] is cancelled meanwhile).
    pub fn begin(&self, delay: Duration) {
        self.draining.cancel();
        if delay.is_zero() {
            self.stop.cancel();
            return;
        }
        let stop = self.stop.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = tokio::time::sleep(delay) => {
                    tracing::info!("shutdown delay over: no new connections; letting calls in flight finish (gateway.drain)");
                }
                () = stop.cancelled() => {}
            }
            stop.cancel();
        });
    }

    /// Whether the stop has begun (readiness fails).
    pub fn is_draining(&self) -> bool {
        self.draining.is_cancelled()
    }
}

#[cfg(test)]
mod tests {
    use super::Shutdown;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn the_listener_stops_only_after_the_delay() {
        let s = Shutdown::new();
        s.begin(Duration::from_secs(5));
        assert!(s.is_draining());
        tokio::time::sleep(Duration::from_millis(4_900)).await;
        assert!(!s.stop.is_cancelled(), "still serving during the delay");
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(s.stop.is_cancelled());
    }

    #[tokio::test(start_paused = true)]
    async fn a_zero_delay_stops_at_once() {
        let s = Shutdown::new();
        s.begin(Duration::ZERO);
        assert!(s.is_draining() && s.stop.is_cancelled());
    }
}
