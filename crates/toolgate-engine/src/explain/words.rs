//! Durations, instants, sizes and the tool's contract as a sentence names them
//! ("3 min 20 s", "1.5 KiB", "contract v3.1"): apart so that the answer, refusal and
//! failure sentences, and the notes, all say them one way.

use std::time::Duration;

use toolgate_config::ToolSpec;

/// `now + wait`, saturating at the far future.
pub fn at(now: chrono::DateTime<chrono::Utc>, wait: Duration) -> chrono::DateTime<chrono::Utc> {
    chrono::Duration::from_std(wait)
        .ok()
        .and_then(|d| now.checked_add_signed(d))
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MAX_UTC)
}

/// The tool's contract as a sentence names it: "contract v3.1", or "the learned
/// contract" for one learned from responses (its version is only a marker).
pub fn contract_name(tool: &ToolSpec) -> String {
    if tool.contract.origin == toolgate_config::ContractOrigin::Learned {
        "the learned contract".to_owned()
    } else {
        format!("contract v{}", tool.contract.version)
    }
}

/// `47 s`, `1.5 s`, `250 ms`, `3 min 20 s`.
pub fn human(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 10_000 && !ms.is_multiple_of(1000) {
        format!("{:.1} s", d.as_secs_f64())
    } else if d.as_secs() < 120 {
        format!("{} s", d.as_secs())
    } else if d.as_secs() < 7200 {
        match d.as_secs() % 60 {
            0 => format!("{} min", d.as_secs() / 60),
            s => format!("{} min {s} s", d.as_secs() / 60),
        }
    } else {
        match d.as_secs() % 3600 / 60 {
            0 => format!("{} h", d.as_secs() / 3600),
            m => format!("{} h {m} min", d.as_secs() / 3600),
        }
    }
}

/// A size read at a glance: "1.4 MiB", "300 KiB" (to a tenth), else bytes.
pub(super) fn about_bytes(n: usize) -> String {
    let n_f = n as f64;
    if n >= 1 << 20 {
        format!("{:.1} MiB", n_f / f64::from(1u32 << 20))
    } else if n >= 1 << 10 {
        format!("{:.1} KiB", n_f / 1024.0)
    } else {
        byte_count(n)
    }
}

pub(super) fn bytes(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        byte_count(n)
    }
}

/// "1 byte", "700 bytes".
fn byte_count(n: usize) -> String {
    if n == 1 {
        "1 byte".to_owned()
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_words() {
        assert_eq!(about_bytes(1), "1 byte");
        assert_eq!(about_bytes(700), "700 bytes");
        assert_eq!(about_bytes(1536), "1.5 KiB");
        assert_eq!(bytes(1), "1 byte");
        assert_eq!(bytes(8 << 20), "8 MiB");
        assert_eq!(bytes(1000), "1000 bytes");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human(Duration::from_millis(250)), "250 ms");
        assert_eq!(human(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(human(Duration::from_secs(47)), "47 s");
        assert_eq!(human(Duration::from_secs(200)), "3 min 20 s");
        assert_eq!(human(Duration::from_secs(7300)), "2 h 1 min");
        assert_eq!(
            human(Duration::from_secs(3600)),
            "60 min",
            "never \"60 min 0 s\""
        );
        assert_eq!(human(Duration::from_secs(7200)), "2 h");
    }
}
