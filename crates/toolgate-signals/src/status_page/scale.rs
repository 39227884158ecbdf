//! Numeric status codes, read only through the scale of the format that names them.
//!
//! A number under `status` means nothing by itself: UptimeRobot's 2 is "up", Uptime
//! Kuma's 2 is "pending", status.io's 200 is "planned maintenance" and a check result's
//! 200 is an HTTP code. So a number is read only when the document's shape says whose
//! scale it is; any other number is left unread (never taken as healthy).
//!
//! Sources:
//! - UptimeRobot API v2 (<https://uptimerobot.com/api/>), `getMonitors`: the envelope's
//!   `stat` is the call's result, each monitor's `status` is 0 paused, 1 not checked yet,
//!   2 up, 8 seems down, 9 down. The format is recognised by that `stat` envelope or by
//!   a monitor's `friendly_name`.
//! - status.io Public Status API (<https://kb.status.io/developers/public-status-api>):
//!   `status_code` 100 operational, 200 planned maintenance, 300 degraded performance,
//!   400 partial service disruption, 500 service disruption, 600 security event, read
//!   only inside status.io's `result.status_overall`.
//! - Uptime Kuma heartbeats (`src/util.ts`): 0 down, 1 up, 2 pending (a failed check
//!   being retried), 3 maintenance; 2 and 3 are read only in a beat that carries Kuma's
//!   own fields (`msg`, `ping`, `duration`), 0 and 1 in any timed series.

use serde_json::{Map, Number, Value};

use super::Health;

/// A format whose numeric statuses this reader knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scale {
    UptimeRobot,
}

/// The scale a whole document announces by its envelope: UptimeRobot's `stat`.
pub(super) fn of_document(root: &Map<String, Value>) -> Option<Scale> {
    root.get("stat")
        .is_some_and(Value::is_string)
        .then_some(Scale::UptimeRobot)
}

/// The scale one entry announces by its own fields: UptimeRobot's `friendly_name`.
pub(super) fn of_entry(entry: &Map<String, Value>) -> Option<Scale> {
    entry
        .contains_key("friendly_name")
        .then_some(Scale::UptimeRobot)
}

/// A numeric `status` read on `scale`; a number the scale does not list is unread.
pub(super) fn read(scale: Scale, n: &Number) -> (Health, String) {
    match scale {
        Scale::UptimeRobot => match n.as_u64() {
            // A paused monitor, or one not checked yet, reports nothing about the service.
            Some(0) => (Health::Unknown, "paused".to_owned()),
            Some(1) => (Health::Unknown, "not checked yet".to_owned()),
            Some(2) => (Health::Healthy, "up".to_owned()),
            // One location failed and the others have not confirmed it: suspected.
            Some(8) => (Health::Degraded, "seems down".to_owned()),
            Some(9) => (Health::Down, "down".to_owned()),
            _ => (Health::Unknown, n.to_string()),
        },
    }
}

/// status.io's `status_code`.
pub(super) fn status_io(code: u64) -> Option<Health> {
    match code {
        100 => Some(Health::Healthy),
        // Planned maintenance, degraded performance, a partial disruption, and a security
        // event (the service runs, but is not in its normal state).
        200 | 300 | 400 | 600 => Some(Health::Degraded),
        500 => Some(Health::Down),
        _ => None,
    }
}

/// An Uptime Kuma heartbeat's numeric `status`, as `(health, raw)`.
pub(super) fn heartbeat(beat: &Map<String, Value>, n: &Number) -> Option<(Health, String)> {
    let kuma = ["msg", "ping", "duration"]
        .iter()
        .any(|k| beat.contains_key(*k));
    match n.as_u64() {
        Some(1) => Some((Health::Healthy, "up".to_owned())),
        Some(0) => Some((Health::Down, "down".to_owned())),
        // A failed check being retried: something fails, not yet confirmed.
        Some(2) if kuma => Some((Health::Degraded, "pending".to_owned())),
        Some(3) if kuma => Some((Health::Degraded, "maintenance".to_owned())),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
