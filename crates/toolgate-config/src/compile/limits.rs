//! The smallest values that can work. Below them a setting is not a stricter policy
//! but a broken one: `probe: {every: 0s}` is a request loop, `timeout: 0s` fails every
//! call, `max_response_bytes: 0` refuses every response. `docs/configuration.md`
//! lists the same minimums.

use std::time::Duration;

/// Per-attempt timeout of a dependency.
pub const MIN_TIMEOUT: Duration = Duration::from_millis(10);
/// Overall call deadline (gateway default and per tool).
pub const MIN_DEADLINE: Duration = Duration::from_millis(10);
/// Backoff base of a retry policy.
pub const MIN_BASE_DELAY: Duration = Duration::from_millis(1);
/// Probe interval.
pub const MIN_PROBE_EVERY: Duration = Duration::from_secs(1);
/// Status page poll interval.
pub const MIN_STATUS_PAGE_EVERY: Duration = Duration::from_secs(1);
/// Alert rule evaluation interval.
pub const MIN_EVALUATE_EVERY: Duration = Duration::from_secs(1);
/// Notification throttle per incident.
pub const MIN_THROTTLE: Duration = Duration::from_secs(1);
/// Window of the recovery-rate and success-rate rules.
pub const MIN_RECOVERY_WINDOW: Duration = Duration::from_secs(60);
/// Sunset warning horizon.
pub const MIN_SUNSET_WITHIN: Duration = Duration::from_secs(3600);
/// Breaker-open alert threshold.
pub const MIN_CIRCUIT_OPEN_FOR: Duration = Duration::from_secs(1);
/// The account hold's length when none is configured.
pub const DEFAULT_ACCOUNT_HOLD: Duration = Duration::from_secs(300);
/// The account hold, at least: shorter is a trial call per call, no hold at all.
pub const MIN_ACCOUNT_HOLD: Duration = Duration::from_secs(1);
/// The account hold, at most: an owner who restores the account must see calls pass
/// within a day without a restart.
pub const MAX_ACCOUNT_HOLD: Duration = Duration::from_secs(24 * 3600);
/// Upstream response body cap.
pub const MIN_RESPONSE_BYTES: usize = 1 << 10;
/// Attempts per call, including the first.
pub const MAX_ATTEMPTS: u32 = 10;

/// `10ms`, `1s`, `1m`, `1h` — as the config file writes durations.
pub fn show(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 || !ms.is_multiple_of(1000) {
        format!("{ms}ms")
    } else if ms.is_multiple_of(3_600_000) {
        format!("{}h", ms / 3_600_000)
    } else if ms.is_multiple_of(60_000) {
        format!("{}m", ms / 60_000)
    } else {
        format!("{}s", ms / 1000)
    }
}

/// The last two segments of a field path (`probe.every` of `tools.x.probe.every`),
/// enough to say which setting without repeating the entry's name.
pub fn field_name(path: &str) -> &str {
    match path.rmatch_indices('.').nth(1) {
        Some((i, _)) => &path[i + 1..],
        None => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimums_print_as_the_config_writes_them() {
        assert_eq!(show(MIN_TIMEOUT), "10ms");
        assert_eq!(show(MIN_PROBE_EVERY), "1s");
        assert_eq!(show(MIN_RECOVERY_WINDOW), "1m");
        assert_eq!(show(MIN_SUNSET_WITHIN), "1h");
        assert_eq!(field_name("tools.web_search.probe.every"), "probe.every");
        assert_eq!(field_name("gateway.deadline"), "gateway.deadline");
        assert_eq!(field_name("deadline"), "deadline");
    }

    fn gateway(lines: &str) -> Result<crate::model::GatewayConfig, String> {
        let text = format!(
            "gateway:\n{lines}dependencies:\n  d: {{base_url: 'https://api.example.com'}}\ntools:\n  t:\n    dependency: d\n    owner: o@example.com\n    request: {{path: /x}}\n    contract: {{version: '1.0', response_schema: {{}}}}\n"
        );
        crate::parse(
            std::path::Path::new("t.yaml"),
            &text,
            std::path::Path::new("."),
            &|_| None,
        )
        .map(|c| c.gateway)
        .map_err(|e| e.to_string())
    }

    #[test]
    fn the_reply_memory_holds_at_least_one_reply_of_the_allowed_size() {
        let g = gateway("  state: s.db\n").unwrap();
        assert_eq!(g.max_buffered_response_bytes, 128 << 20);
        // A large per-reply cap raises the default with it.
        let g = gateway("  max_response_bytes: 200MiB\n").unwrap();
        assert_eq!(g.max_buffered_response_bytes, 200 << 20);
        let g = gateway("  max_buffered_response_bytes: 64MiB\n").unwrap();
        assert_eq!(g.max_buffered_response_bytes, 64 << 20);
        let err = gateway("  max_response_bytes: 8MiB\n  max_buffered_response_bytes: 4MiB\n")
            .unwrap_err();
        assert!(
            err.contains("gateway.max_buffered_response_bytes")
                && err.contains("a reply of the allowed size could never be read"),
            "{err}"
        );
        let err = gateway("  max_buffered_response_bytes: lots\n").unwrap_err();
        assert!(
            err.contains("gateway.max_buffered_response_bytes") && err.contains("not a size"),
            "{err}"
        );
    }

    #[test]
    fn one_agents_share_of_the_reply_memory_is_half_unless_set() {
        assert_eq!(gateway("  state: s.db\n").unwrap().reply_share, 0.5);
        assert_eq!(gateway("  reply_share: 0.25\n").unwrap().reply_share, 0.25);
        assert_eq!(gateway("  reply_share: 1\n").unwrap().reply_share, 1.0);
        for bad in ["0", "-0.5", "1.5"] {
            let err = gateway(&format!("  reply_share: {bad}\n")).unwrap_err();
            assert!(
                err.contains("gateway.reply_share")
                    && err.contains("not a fraction of the reply memory"),
                "{err}"
            );
        }
    }

    #[test]
    fn one_agents_share_of_a_servers_requests_is_half_unless_set() {
        let share = |yaml: &str| gateway(yaml).map(|g| g.server_request_share);
        assert_eq!(share("  state: s.db\n").unwrap(), 0.5);
        assert_eq!(share("  server_request_share: 0.25\n").unwrap(), 0.25);
        assert_eq!(share("  server_request_share: 1\n").unwrap(), 1.0);
        for bad in ["0", "-0.5", "1.5"] {
            let err = share(&format!("  server_request_share: {bad}\n")).unwrap_err();
            assert!(
                err.contains("gateway.server_request_share")
                    && err.contains("not a fraction of a server's max_server_requests"),
                "{err}"
            );
        }
    }
}
