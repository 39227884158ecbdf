//! Waits that an error message states in words, for the APIs that put the wait nowhere
//! else: monday.com's `ComplexityException` ("… out of 1000000 reset in 3 seconds",
//! <https://developer.monday.com/api-reference/changelog/hotfix-complexity-exception-errors>),
//! OpenAI-compatible servers' "Please try again in 20s", Azure OpenAI's "Please retry
//! after 7 seconds".
//!
//! A wait is a trigger phrase (`retry after`, `retry in`, `try again in`, `try again
//! after`, `reset in`, `resets in`, `wait`) followed by an amount: a Go-style duration
//! (`20s`, `1m30s`, `250ms`) or a number and a unit word (`3 seconds`, `2 minutes`).
//! Words without a number ("wait a few minutes") give nothing. Only the first
//! [`MAX_TEXT`] characters are read, and the caller uses the result only on a reply that
//! says it is throttled, so a number in an ordinary message is never taken as a wait.

use std::time::Duration;

use crate::num::TimeUnit;
use crate::{MAX_WAIT, num};

/// Characters of a message examined.
const MAX_TEXT: usize = 300;

const TRIGGERS: [&str; 7] = [
    "retry after ",
    "retry in ",
    "try again in ",
    "try again after ",
    "reset in ",
    "resets in ",
    "wait ",
];

/// The longest wait the message states, capped at [`MAX_WAIT`].
pub(crate) fn wait_in(text: &str) -> Option<Duration> {
    let t: String = text
        .chars()
        .take(MAX_TEXT)
        .collect::<String>()
        .to_lowercase();
    let mut best = None;
    for trigger in TRIGGERS {
        let mut from = 0;
        while let Some(i) = t.get(from..).and_then(|rest| rest.find(trigger)) {
            let after = from + i + trigger.len();
            from = after;
            best = best.max(amount(t.get(after..).unwrap_or_default()));
        }
    }
    best.map(|d: Duration| d.min(MAX_WAIT))
}

/// The amount at the start of `rest`: `20s`, `1m30s`, `3 seconds`, `1.5 minutes`.
fn amount(rest: &str) -> Option<Duration> {
    let mut words = rest
        .split_ascii_whitespace()
        .map(|w| w.trim_end_matches(['.', ',', ';', ')', '!']));
    let first = words.next()?;
    if !first.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if let Some(d) = num::go_duration(first, MAX_WAIT).filter(|_| first != "0") {
        return Some(d);
    }
    TimeUnit::from_word(words.next()?)?.decimal(first, MAX_WAIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_stated_in_words() {
        let s = Duration::from_secs;
        let cases: &[(&str, Option<Duration>)] = &[
            (
                "Complexity budget exhausted, query cost 30001 budget remaining 19986 out of 1000000 reset in 3 seconds",
                Some(s(3)),
            ),
            ("Rate limit reached. Please try again in 20s.", Some(s(20))),
            ("Please try again in 1m30s", Some(s(90))),
            (
                "Please try again in 250ms.",
                Some(Duration::from_millis(250)),
            ),
            ("Please retry after 7 seconds.", Some(s(7))),
            ("Wait 2 minutes before retrying", Some(s(120))),
            ("retry after 100000 hours", Some(MAX_WAIT)),
            // No number, or a number that is not a wait.
            ("Please wait a few minutes before you try again.", None),
            ("Missing required param: amount 30 seconds", None),
            ("try again in soon", None),
            ("retry in -5 seconds", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(wait_in(text), *want, "{text}");
        }
    }
}
