//! Joining the groups of one family that describe the same window.
//!
//! A family read by its shape often says one window twice or in pieces:
//! - **bare resets**: a field that only says when the family resets
//!   (`X-Contentful-RateLimit-Reset`, BigCommerce's `X-Rate-Limit-Time-Reset-Ms`,
//!   Mistral's `ratelimitbysize-reset`) belongs to a window with counts. With one such
//!   window the choice is made; with several named by their period (`-minute`,
//!   `-month`), the reset belongs to the shortest window it fits in, since a reset
//!   longer than a window cannot be that window's. With several and no periods it stays
//!   apart rather than be given to the wrong one.
//! - **echoes**: unnamed fields repeating one named window's counts (Mistral sends
//!   `ratelimitbysize-limit` / `-remaining` equal to `x-ratelimitbysize-*-minute`, and
//!   Kong does the same for its tightest period) are that window, so their reset is too.

use std::time::Duration;

use super::Group;

/// Whether a group's fields named no policy (its name is the family's, or `default`).
fn unnamed(g: &Group) -> bool {
    g.policy == g.family || (g.family.is_empty() && g.policy == "default")
}

fn counted(g: &Group) -> bool {
    g.limit.is_some() || g.remaining.is_some() || g.used.is_some()
}

/// The length of the period a policy's words name (`tokens-minute` → 60 s).
fn period(policy: &str) -> Option<Duration> {
    const DAY: u64 = 86_400;
    policy.split('-').find_map(|w| {
        let secs = match w {
            "second" | "sec" | "secondly" => 1,
            "minute" | "min" | "minutely" => 60,
            "hour" | "hourly" => 3_600,
            "day" | "daily" | "today" => DAY,
            "week" | "weekly" => 7 * DAY,
            // The longest month, so a reset late in a 31-day month still fits.
            "month" | "monthly" => 31 * DAY,
            "year" | "yearly" | "annual" => 366 * DAY,
            _ => return None,
        };
        Some(Duration::from_secs(secs))
    })
}

/// Fills what `into` lacks from `from`.
fn absorb(into: &mut Group, from: Group) {
    into.limit = into.limit.or(from.limit);
    into.remaining = into.remaining.or(from.remaining);
    into.used = into.used.or(from.used);
    into.reset = into.reset.or(from.reset);
    into.window = into.window.or(from.window);
}

/// Merges each unnamed group whose limit and remaining equal those of exactly one
/// named group of its family into that group.
pub(super) fn echoes(groups: &mut Vec<Group>) {
    let mut i = 0;
    while i < groups.len() {
        let g = &groups[i];
        if !unnamed(g) || g.limit.is_none() || g.remaining.is_none() {
            i += 1;
            continue;
        }
        let same: Vec<usize> = groups
            .iter()
            .enumerate()
            .filter(|(j, o)| {
                *j != i
                    && !unnamed(o)
                    && o.family == g.family
                    && o.limit == g.limit
                    && o.remaining == g.remaining
            })
            .map(|(j, _)| j)
            .collect();
        if let [j] = same[..] {
            let echo = groups.remove(i);
            let j = if j > i { j - 1 } else { j };
            absorb(&mut groups[j], echo);
        } else {
            i += 1;
        }
    }
}

/// Joins each group that says only a reset or a window to the family's window it
/// belongs to (see the module header).
pub(super) fn bare_groups(groups: &mut Vec<Group>) {
    let mut i = 0;
    while i < groups.len() {
        if counted(&groups[i]) {
            i += 1;
            continue;
        }
        let family = groups[i].family.clone();
        let with_counts: Vec<usize> = groups
            .iter()
            .enumerate()
            .filter(|(_, g)| counted(g) && g.family == family)
            .map(|(j, _)| j)
            .collect();
        let target = match with_counts[..] {
            [j] => Some(j),
            [] => None,
            _ => groups[i].reset.and_then(|reset| {
                with_counts
                    .iter()
                    .filter_map(|&j| Some((period(&groups[j].policy)?, j)))
                    .filter(|(p, _)| *p >= reset)
                    .min()
                    .map(|(_, j)| j)
            }),
        };
        if let Some(j) = target {
            let bare = groups.remove(i);
            let j = if j > i { j - 1 } else { j };
            let g = &mut groups[j];
            g.reset = g.reset.or(bare.reset);
            g.window = g.window.or(bare.window);
        } else {
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(policy: &str, limit: Option<u64>, remaining: Option<u64>, reset: Option<u64>) -> Group {
        Group {
            family: String::new(),
            policy: policy.to_owned(),
            limit,
            remaining,
            reset: reset.map(Duration::from_secs),
            ..Group::default()
        }
    }

    #[test]
    fn periods_from_policy_words() {
        assert_eq!(period("minute"), Some(Duration::from_secs(60)));
        assert_eq!(period("tokens-month"), Some(Duration::from_secs(2_678_400)));
        assert_eq!(period("requests"), None);
    }

    #[test]
    fn a_bare_reset_goes_to_the_shortest_window_it_fits() {
        let mut v = vec![
            g("default", None, None, Some(3000)),
            g("minute", Some(10), Some(5), None),
            g("hour", Some(100), Some(50), None),
            g("day", Some(1000), Some(500), None),
        ];
        bare_groups(&mut v);
        assert_eq!(v.len(), 3);
        assert_eq!(v[1].policy, "hour");
        assert_eq!(v[1].reset, Some(Duration::from_secs(3000)));
        assert_eq!((v[0].reset, v[2].reset), (None, None));
        // No periods to judge by: the reset stays apart.
        let mut v = vec![
            g("default", None, None, Some(30)),
            g("reads", Some(10), Some(5), None),
            g("writes", Some(10), Some(5), None),
        ];
        bare_groups(&mut v);
        assert_eq!(v.len(), 3);
    }

    #[test]
    fn an_unnamed_echo_of_one_named_window_is_that_window() {
        let mut v = vec![
            g("default", Some(60), Some(10), Some(47)),
            g("minute", Some(60), Some(10), None),
            g("hour", Some(1000), Some(900), None),
        ];
        echoes(&mut v);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].policy, "minute");
        assert_eq!(v[0].reset, Some(Duration::from_secs(47)));
        // Two windows with the same counts: which one is echoed is unknown.
        let mut v = vec![
            g("default", Some(60), Some(10), Some(47)),
            g("minute", Some(60), Some(10), None),
            g("hour", Some(60), Some(10), None),
        ];
        echoes(&mut v);
        assert_eq!(v.len(), 3);
    }
}
