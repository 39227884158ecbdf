//! How much of what a server sends during one call reaches the calling client.
//!
//! A server may send progress and log messages without end while it works on a call
//! (100,000 of them in one second is easy), and every one relayed costs the client's
//! connection and, when the client shows them, its model's attention. So per call:
//! - progress passes as it comes for the first [`PROGRESS_UNPACED`] notifications (a
//!   call reporting a few steps, however close together, is relayed step by step);
//!   past them it is coalesced: at most one notification per [`PROGRESS_EVERY`] reaches
//!   the client, always the latest, and the latest one held back is sent when the
//!   interval ends (or when the call ends, or just before any other message passes, so
//!   the order the server sent them in is kept), and the client's last word of
//!   progress is the server's;
//! - progress that is not progress does not pass at all: one whose `progress` is not
//!   a number, whose `total` is there and is not one, or whose `progress` is not
//!   greater than the last that passed (the MCP specification: it "MUST increase with
//!   each notification"). A client resetting its request timeout on every progress
//!   notification would otherwise wait for ever on a server repeating `progress: 3`,
//!   and a client's SDK may refuse the notification's shape, or show a bar that runs
//!   backwards;
//! - every other notification (log messages above all) passes up to
//!   [`MESSAGES_PER_CALL`]; the rest are dropped, and once the call ends the client is
//!   told in one log message of toolgate's how many were.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

/// Progress notifications of one call relayed as they come, before any is held back.
pub const PROGRESS_UNPACED: usize = 32;

/// The shortest interval between two progress notifications relayed for one call, once
/// [`PROGRESS_UNPACED`] have been.
pub const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Notifications other than progress relayed for one call, at most.
pub const MESSAGES_PER_CALL: usize = 100;

const PROGRESS: &str = "notifications/progress";

/// A notification as relayed: its method and params.
pub type Notification = (String, Option<Value>);

/// One call's budget of relayed notifications.
#[derive(Debug, Default)]
pub struct NotificationBudget {
    /// When progress was last relayed.
    progress_sent: Option<Instant>,
    /// The latest progress not relayed yet.
    held_progress: Option<Option<Value>>,
    /// Progress notifications relayed so far.
    progress_relayed: usize,
    /// Other notifications relayed so far.
    messages: usize,
    /// Other notifications dropped for the cap.
    dropped: usize,
    /// The `progress` of the last progress notification admitted.
    last_progress: Option<f64>,
}

/// The `progress` of a progress notification's `params`, when it has the shape the
/// MCP specification gives it: a number, and a `total` that is a number or absent.
fn progress_value(params: Option<&Value>) -> Option<f64> {
    let params = params?;
    let total_fits = params
        .get("total")
        .is_none_or(|t| t.is_number() || t.is_null());
    params
        .get("progress")
        .and_then(Value::as_f64)
        .filter(|_| total_fits)
}

impl NotificationBudget {
    /// The notification, when it may go to the client now. Progress arriving too soon
    /// after the last is held (replacing any held before it) for [`Self::due`].
    pub fn admit(&mut self, method: String, params: Option<Value>) -> Option<Notification> {
        if method == PROGRESS {
            let Some(progress) = progress_value(params.as_ref())
                .filter(|p| self.last_progress.is_none_or(|last| *p > last))
            else {
                tracing::debug!(
                    "a progress notification that is no number or does not increase: dropped"
                );
                return None;
            };
            self.last_progress = Some(progress);
            let now = Instant::now();
            if self.progress_relayed >= PROGRESS_UNPACED
                && self
                    .progress_sent
                    .is_some_and(|at| now < at + PROGRESS_EVERY)
            {
                self.held_progress = Some(params);
                return None;
            }
            self.progress_sent = Some(now);
            self.progress_relayed += 1;
            self.held_progress = None;
            return Some((method, params));
        }
        if self.messages >= MESSAGES_PER_CALL {
            self.dropped += 1;
            return None;
        }
        self.messages += 1;
        Some((method, params))
    }

    /// When the held progress may go, if any is held.
    pub fn held_until(&self) -> Option<Instant> {
        self.held_progress.as_ref()?;
        Some(
            self.progress_sent
                .map_or_else(Instant::now, |at| at + PROGRESS_EVERY),
        )
    }

    /// The held progress, now that its interval has ended.
    pub fn due(&mut self) -> Option<Notification> {
        let params = self.held_progress.take()?;
        self.progress_sent = Some(Instant::now());
        Some((PROGRESS.to_owned(), params))
    }

    /// What the client is still owed when the call ends: the latest progress held, and
    /// how many notifications were dropped, if any.
    pub fn closing(&mut self) -> Vec<Notification> {
        let mut owed: Vec<Notification> = self.due().into_iter().collect();
        if self.dropped > 0 {
            owed.push((
                "notifications/message".to_owned(),
                Some(json!({
                    "level": "warning",
                    "logger": "toolgate",
                    "data": format!(
                        "toolgate dropped {} more notifications the server sent during this call (at most {MESSAGES_PER_CALL} are passed on per call)",
                        self.dropped
                    ),
                })),
            ));
            self.dropped = 0;
        }
        owed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(n: u64) -> (String, Option<Value>) {
        (
            PROGRESS.to_owned(),
            Some(json!({"progressToken": 1, "progress": n})),
        )
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_of_progress_reaches_the_client_as_its_first_steps_and_its_latest() {
        let mut budget = NotificationBudget::default();
        let mut relayed = Vec::new();
        for n in 0..100_000 {
            let (method, params) = progress(n);
            relayed.extend(budget.admit(method, params));
        }
        let first: Vec<_> = (0..PROGRESS_UNPACED as u64).map(progress).collect();
        assert_eq!(relayed, first);
        assert!(budget.held_until().is_some());
        assert_eq!(budget.closing(), vec![progress(99_999)]);
        assert!(budget.closing().is_empty(), "told twice");
    }

    /// A call reporting its steps 50 ms apart (the conformance suite's
    /// `tools-call-with-progress`: 0, 50, 100 of 100) has every step relayed.
    #[tokio::test(start_paused = true)]
    async fn a_few_steps_close_together_are_each_relayed() {
        let mut budget = NotificationBudget::default();
        for n in [0, 50, 100] {
            let (m, p) = progress(n);
            assert_eq!(budget.admit(m, p), Some(progress(n)));
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(budget.closing().is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn progress_held_back_goes_when_its_interval_ends() {
        let mut budget = NotificationBudget::default();
        for n in 0..PROGRESS_UNPACED as u64 {
            let (m, p) = progress(n);
            assert!(budget.admit(m, p).is_some());
        }
        let (m, p) = progress(100);
        assert!(budget.admit(m, p).is_none(), "past the unpaced ones, held");
        tokio::time::sleep(PROGRESS_EVERY).await;
        let (m, p) = progress(101);
        assert!(budget.admit(m, p).is_some());
        let (m, p) = progress(102);
        assert!(budget.admit(m, p).is_none());
        let until = budget.held_until().expect("held");
        tokio::time::sleep_until(until).await;
        assert_eq!(budget.due(), Some(progress(102)));
        assert_eq!(budget.held_until(), None);
        // Spaced out, every one passes.
        tokio::time::sleep(PROGRESS_EVERY).await;
        let (m, p) = progress(103);
        assert_eq!(budget.admit(m, p), Some(progress(103)));
    }

    #[tokio::test(start_paused = true)]
    async fn progress_that_does_not_increase_or_is_no_number_never_reaches_the_client() {
        let mut budget = NotificationBudget::default();
        let mut admit = |params: Value| {
            budget
                .admit(PROGRESS.to_owned(), Some(params))
                .map(|(_, p)| p.unwrap_or_default()["progress"].clone())
        };
        let sent = [
            json!({"progressToken": 1, "progress": 90}),
            json!({"progressToken": 1, "progress": 5}),
            json!({"progressToken": 1, "progress": 90}),
            json!({"progressToken": 1, "progress": "95%"}),
            json!({"progressToken": 1, "progress": 95, "total": "lots"}),
            json!({"progressToken": 1, "message": "no value"}),
            json!({"progressToken": 1, "progress": 90.5, "total": null}),
            json!({"progressToken": 1, "progress": 100, "total": 100}),
        ];
        let passed: Vec<Value> = sent.into_iter().filter_map(&mut admit).collect();
        assert_eq!(passed, vec![json!(90), json!(90.5), json!(100)]);
        let repeats = (0..10_000)
            .filter_map(|_| admit(json!({"progressToken": 1, "progress": 100})))
            .count();
        assert_eq!(repeats, 0, "a repeated value keeps nothing alive");
        assert!(budget.closing().is_empty(), "nothing held back to send");
    }

    #[test]
    fn log_messages_past_the_cap_are_dropped_and_counted_once() {
        let mut budget = NotificationBudget::default();
        let log = || {
            (
                "notifications/message".to_owned(),
                Some(json!({"level": "info", "data": "working"})),
            )
        };
        let passed = (0..100_000)
            .filter(|_| {
                let (m, p) = log();
                budget.admit(m, p).is_some()
            })
            .count();
        assert_eq!(passed, MESSAGES_PER_CALL);
        let closing = budget.closing();
        assert_eq!(closing.len(), 1);
        let text = closing[0].1.as_ref().unwrap()["data"].as_str().unwrap();
        assert!(text.contains("dropped 99900 more"), "{text}");
    }
}
