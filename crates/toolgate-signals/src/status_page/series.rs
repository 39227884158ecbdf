//! Check-result series: a monitor's recent checks, each with a time and an outcome.
//!
//! Sources: Gatus `GET /api/v1/endpoints/statuses` (each endpoint with `results[]`, each
//! result `{status, success, timestamp, conditionResults}`, where `status` is the HTTP
//! code and `success` the verdict); Uptime Kuma `GET /api/status-page/heartbeat/<slug>`
//! (`heartbeatList` maps a monitor id to its beats, each `{status, time, msg, ping}`
//! with `status` 1 up, 0 down, 2 pending and 3 maintenance, see `scale.rs`).
//!
//! Only the newest result of a series says how the monitor is now: a failure an hour
//! ago followed by a success is healthy. The newest is the one with the latest
//! timestamp (ISO-like strings compare in time order, epoch numbers by value), the
//! later one in the list on a tie or when times are missing.

use serde_json::{Map, Value};

use super::{Health, MAX_ENTRIES, word_health};

/// Fields that carry when a check ran.
const TIME_KEYS: [&str; 7] = [
    "timestamp",
    "time",
    "checked_at",
    "checkedAt",
    "date",
    "created_at",
    "createdAt",
];

/// The newest result of a series, as `(health, raw outcome)`; `None` when the array is
/// not a series of timed results.
pub(super) fn newest(items: &[Value]) -> Option<(Health, String)> {
    if !is_series(items) {
        return None;
    }
    // Series are usually oldest first; both ends are looked at so that a huge list
    // in either order is read in bounded time.
    let head = items.iter().take(MAX_ENTRIES);
    let tail = items.iter().rev().take(MAX_ENTRIES).rev();
    let mut best: Option<&Map<String, Value>> = None;
    for item in head.chain(tail).filter_map(Value::as_object) {
        if best.is_none_or(|b| !is_older(item, b)) {
            best = Some(item);
        }
    }
    outcome(best?)
}

/// Whether every (looked-at) item is a timed check result.
fn is_series(items: &[Value]) -> bool {
    !items.is_empty()
        && items.iter().take(MAX_ENTRIES).all(|i| {
            i.as_object()
                .is_some_and(|o| time_of(o).is_some() && outcome(o).is_some())
        })
}

fn time_of(obj: &Map<String, Value>) -> Option<&Value> {
    TIME_KEYS
        .iter()
        .find_map(|k| obj.get(*k))
        .filter(|v| v.is_string() || v.is_number())
}

/// `a` ran strictly before `b`.
fn is_older(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    match (time_of(a), time_of(b)) {
        (Some(Value::String(x)), Some(Value::String(y))) => x < y,
        (Some(Value::Number(x)), Some(Value::Number(y))) => {
            x.as_f64().unwrap_or(0.0) < y.as_f64().unwrap_or(0.0)
        }
        _ => false,
    }
}

/// A result's verdict: `success` (Gatus), a 1/0 `status` (Uptime Kuma), or a word.
fn outcome(obj: &Map<String, Value>) -> Option<(Health, String)> {
    if let Some(ok) = obj.get("success").and_then(Value::as_bool) {
        let h = if ok { Health::Healthy } else { Health::Down };
        return Some((h, if ok { "success" } else { "failure" }.to_owned()));
    }
    match obj.get("status")? {
        Value::Number(n) => super::scale::heartbeat(obj, n),
        Value::String(s) => match word_health(s) {
            Health::Unknown => None,
            h => Some((h, s.clone())),
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_newest_result_wins_in_either_order() {
        let up_then_down = json!([
            {"status": 1, "time": "2025-05-01 09:59:00"},
            {"status": 0, "time": "2025-05-01 10:00:00"}
        ]);
        let items = up_then_down.as_array().unwrap();
        assert_eq!(newest(items).map(|r| r.0), Some(Health::Down));
        let reversed: Vec<Value> = items.iter().rev().cloned().collect();
        assert_eq!(newest(&reversed).map(|r| r.0), Some(Health::Down));
        // Epoch seconds compare as numbers.
        let epochs =
            json!([{"success": true, "timestamp": 100}, {"success": false, "timestamp": 99}]);
        assert_eq!(
            newest(epochs.as_array().unwrap()).map(|r| r.0),
            Some(Health::Healthy)
        );
        // Untimed entries or entries without an outcome are not a series.
        assert_eq!(newest(json!([{"status": 1}]).as_array().unwrap()), None);
        assert_eq!(newest(json!([{"time": "x"}]).as_array().unwrap()), None);
        assert_eq!(newest(&[]), None);
    }
}
