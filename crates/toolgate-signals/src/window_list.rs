//! Several windows listed in one field, in the same order in each field.
//!
//! Sources:
//! - Strava (<https://developers.strava.com/docs/rate-limits/>): `X-RateLimit-Limit:
//!   600,30000` and `X-RateLimit-Usage: 314,27536`, the 15-minute and the daily window
//!   (and the same pair as `X-ReadRateLimit-*` for read requests).
//! - Brave Search API (rate-limiting guide): `X-RateLimit-Limit: 1, 15000`,
//!   `X-RateLimit-Remaining: 1, 1000`, `X-RateLimit-Reset: 1, 1419704`, with the windows
//!   in `X-RateLimit-Policy: 1;w=1, 15000;w=2592000`.
//!
//! A list is bare counts only (`600,30000`); a value with parameters
//! (`100, 100;window=60, 10000;window=86400`) is the IETF draft's "closest limit, then
//! its policies" and is not a list of windows. Each position becomes a quota: the first
//! keeps the family's policy name (so it still meets the other readers' `default`), the
//! others are `<policy>-2`, `-3`… A field that is a single value belongs to the first
//! window, as before lists were read. Which window is tightest is left to the ordering
//! in [`crate::quota`], so a nearly spent daily window comes before a fresh short one.
//! At most [`MAX_WINDOWS`] positions are read.
//!
//! A field may instead key its counts by the window they count in, as a JSON object
//! (People Data Labs' `x-ratelimit-remaining: {"minute": 6}`, <https://docs.peopledatalabs.com/docs/usage-limits>):
//! each key names its window ([`keyed`]), so even one member says which window it is,
//! and the fields of a family meet by key rather than by position.

use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::{Quota, num, reset};

/// Positions read from one list.
const MAX_WINDOWS: usize = 8;

/// The fields of one family, each a list (or a single value, as a list of one).
#[derive(Debug, Default, Clone)]
pub(crate) struct Lists {
    pub limit: Vec<u64>,
    pub remaining: Vec<u64>,
    pub used: Vec<u64>,
    pub reset: Vec<Option<Duration>>,
    pub window: Vec<Option<Duration>>,
}

impl Lists {
    /// Whether any count field lists more than one window.
    pub fn is_list(&self) -> bool {
        self.limit.len() > 1 || self.remaining.len() > 1 || self.used.len() > 1
    }

    /// One quota per position, the first named `policy`.
    pub fn quotas(&self, policy: &str) -> Vec<Quota> {
        let n = self
            .limit
            .len()
            .max(self.remaining.len())
            .max(self.used.len())
            .min(MAX_WINDOWS);
        (0..n)
            .map(|i| {
                let limit = self.limit.get(i).copied();
                let remaining = self
                    .remaining
                    .get(i)
                    .copied()
                    .or_else(|| Some(limit?.saturating_sub(*self.used.get(i)?)));
                Quota {
                    limit,
                    remaining,
                    reset_after: self.reset.get(i).copied().flatten(),
                    window: self.window.get(i).copied().flatten(),
                    ..Quota::new(if i == 0 {
                        policy.to_owned()
                    } else {
                        format!("{policy}-{}", i + 1)
                    })
                }
            })
            .collect()
    }
}

/// `N` or `N,N[,N…]`: bare counts, or `None` when any member is not one.
pub(crate) fn counts(text: &str) -> Option<Vec<u64>> {
    text.split(',')
        .take(MAX_WINDOWS)
        .map(num::parse_u64)
        .collect::<Option<Vec<u64>>>()
        .filter(|v| !v.is_empty())
}

/// The longest keyed value read: a few windows' counts, not a document.
const MAX_KEYED: usize = 256;

/// `{"minute": 6, "day": 90}`: counts keyed by the period they count in, in the order
/// sent; `None` unless the value is such an object with at least one member and every
/// key a period ([`crate::num::period_seconds`]) and every value a whole count.
pub(crate) fn keyed(text: &str) -> Option<Vec<(String, u64, Duration)>> {
    let text = text.trim();
    if !text.starts_with('{') || text.len() > MAX_KEYED {
        return None;
    }
    let members: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text).ok()?;
    let out = members
        .iter()
        .take(MAX_WINDOWS)
        .map(|(k, v)| {
            let key = k.trim().to_ascii_lowercase();
            let window = crate::num::period_seconds(&key)?;
            Some((key, v.as_u64()?, Duration::from_secs(window)))
        })
        .collect::<Option<Vec<_>>>()?;
    (!out.is_empty()).then_some(out)
}

/// The fields of one family keyed by window ([`keyed`]), as positions: the windows in
/// the order the first keyed field names them, each field's count for that window.
/// `None` unless at least one field is keyed; a field that is not gives nothing.
pub(crate) fn keyed_lists(limit: Option<&str>, remaining: Option<&str>) -> Option<Lists> {
    let limit = limit.and_then(keyed).unwrap_or_default();
    let remaining = remaining.and_then(keyed).unwrap_or_default();
    let order = if remaining.is_empty() {
        &limit
    } else {
        &remaining
    };
    if order.is_empty() {
        return None;
    }
    let count = |of: &[(String, u64, Duration)], key: &str| {
        of.iter().find(|(k, _, _)| k == key).map(|(_, n, _)| *n)
    };
    let mut lists = Lists::default();
    for (key, _, window) in order {
        // A position needs its count in every keyed field, or the positions would slip.
        let l = count(&limit, key);
        let r = count(&remaining, key);
        if (!limit.is_empty() && l.is_none()) || (!remaining.is_empty() && r.is_none()) {
            continue;
        }
        lists.limit.extend(l);
        lists.remaining.extend(r);
        lists.window.push(Some(*window));
    }
    (!lists.window.is_empty()).then_some(lists)
}

/// A reset per position, each any shape [`reset::parse_str`] knows; a single value
/// (which may itself hold a comma, as an HTTP-date does) is one reset.
pub(crate) fn resets(text: &str, now: DateTime<Utc>) -> Vec<Option<Duration>> {
    if let Some(one) = reset::parse_str(text, now) {
        return vec![Some(one)];
    }
    text.split(',')
        .take(MAX_WINDOWS)
        .map(|m| reset::parse_str(m, now))
        .collect()
}

/// The window of each member of a policy list (`1;w=1, 15000;w=2592000`).
pub(crate) fn policy_windows(text: &str) -> Vec<Option<Duration>> {
    text.split(',')
        .take(MAX_WINDOWS)
        .map(|member| {
            member.split(';').skip(1).find_map(|p| {
                let (k, v) = p.split_once('=')?;
                matches!(k.trim(), "w" | "window")
                    .then(|| num::parse_u64(v))
                    .flatten()
                    .map(|s| Duration::from_secs(s).min(reset::MAX_RESET))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_by_shape() {
        assert_eq!(counts("600,30000"), Some(vec![600, 30000]));
        assert_eq!(counts(" 1, 1000 "), Some(vec![1, 1000]));
        assert_eq!(counts("42"), Some(vec![42]));
        assert_eq!(counts("100, 100;window=60"), None);
        assert_eq!(counts("1,,2"), None);
        assert_eq!(counts(""), None);
        assert_eq!(counts(&vec!["7"; 1000].join(",")).map(|v| v.len()), Some(8));
        assert_eq!(
            policy_windows("1;w=1, 15000;w=2592000, 9"),
            vec![
                Some(Duration::from_secs(1)),
                Some(Duration::from_secs(2_592_000)),
                None
            ]
        );
        let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap_or_default();
        assert_eq!(
            resets("1, 1419704", now),
            vec![
                Some(Duration::from_secs(1)),
                Some(Duration::from_secs(1_419_704))
            ]
        );
        // An HTTP-date's comma does not split it.
        assert_eq!(
            resets("Sun, 01 Jun 2025 12:00:30 GMT", now),
            vec![Some(Duration::from_secs(30))]
        );
    }

    #[test]
    fn counts_keyed_by_window() {
        let minute = Duration::from_secs(60);
        assert_eq!(
            keyed(r#"{"minute": 6}"#),
            Some(vec![("minute".to_owned(), 6, minute)])
        );
        assert_eq!(
            keyed(r#" {"Second": 2, "day": 900} "#),
            Some(vec![
                ("second".to_owned(), 2, Duration::from_secs(1)),
                ("day".to_owned(), 900, Duration::from_secs(86_400)),
            ])
        );
        // Not periods, not counts, not an object, too long: nothing.
        assert_eq!(keyed(r#"{"search": 6}"#), None);
        assert_eq!(keyed(r#"{"minute": "6"}"#), None);
        assert_eq!(keyed(r#"{"minute": -1}"#), None);
        assert_eq!(keyed("{}"), None);
        assert_eq!(keyed("6"), None);
        assert_eq!(keyed(r#"{"minute": 6"#), None);
        let long = format!(r#"{{"minute": 6, "pad": "{}"}}"#, "x".repeat(400));
        assert_eq!(keyed(&long), None);
        // Two fields meet by key, whatever order each sends its windows in.
        let l = keyed_lists(
            Some(r#"{"day": 1000, "minute": 10}"#),
            Some(r#"{"minute": 0, "day": 40}"#),
        )
        .unwrap_or_default();
        let q = l.quotas("default");
        assert_eq!(q.len(), 2);
        assert_eq!(
            (q[0].limit, q[0].remaining, q[0].window),
            (Some(10), Some(0), Some(minute))
        );
        assert_eq!((q[1].limit, q[1].remaining), (Some(1000), Some(40)));
        // A keyed remaining beside a plain limit: the windows of the keyed field only.
        let l = keyed_lists(Some("10"), Some(r#"{"minute": 6}"#)).unwrap_or_default();
        let q = l.quotas("default");
        assert_eq!((q[0].limit, q[0].remaining), (None, Some(6)));
        assert!(keyed_lists(Some("10"), Some("6")).is_none());
    }

    #[test]
    fn positions_become_quotas() {
        let l = Lists {
            limit: vec![600, 30000],
            used: vec![314, 27536],
            ..Lists::default()
        };
        assert!(l.is_list());
        let q = l.quotas("default");
        assert_eq!(q.len(), 2);
        assert_eq!((q[0].limit, q[0].remaining), (Some(600), Some(286)));
        assert_eq!(q[1].policy, "default-2");
        assert_eq!((q[1].limit, q[1].remaining), (Some(30000), Some(2464)));
        // A single remaining belongs to the first window only.
        let l = Lists {
            limit: vec![10, 20],
            remaining: vec![3],
            ..Lists::default()
        };
        let q = l.quotas("p");
        assert_eq!((q[0].remaining, q[1].remaining), (Some(3), None));
    }
}
