//! A reply's own word on whether retrying it can help: `x-should-retry` (which the
//! OpenAI and Anthropic SDKs obey), `Stripe-Should-Retry`, and any other
//! `…-should-retry` header. The server knows what a retry would meet (a lock held, a
//! request already applied, an input it will always refuse); its `false` ends the
//! retries, where the status alone (a 5xx) would have allowed them.

use crate::Headers;

/// `Some(false)` when a `…should-retry` header says `false` (or `0`, `no`), `Some(true)`
/// when one says `true` (`1`, `yes`) and none says otherwise; `None` when there is no
/// such header or its words are neither.
pub fn read(headers: &Headers<'_>) -> Option<bool> {
    let mut advice = None;
    for (name, value) in headers.iter() {
        if !is_advice(name) {
            continue;
        }
        let said = match value.trim_ascii().to_ascii_lowercase().as_slice() {
            b"true" | b"1" | b"yes" => true,
            b"false" | b"0" | b"no" => false,
            _ => continue,
        };
        // Two headers that disagree: not retrying is the safe reading.
        advice = Some(advice.unwrap_or(true) && said);
    }
    advice
}

/// `x-should-retry`, `Stripe-Should-Retry`, `should_retry` (`_` read as `-`). Runs on
/// every header of a reply that is read: compared in place, nothing allocated.
pub(crate) fn is_advice(name: &str) -> bool {
    const WORD: &[u8] = b"should-retry";
    let name = name.trim().as_bytes();
    let folded = |b: u8| {
        if b == b'_' {
            b'-'
        } else {
            b.to_ascii_lowercase()
        }
    };
    let Some(start) = name.len().checked_sub(WORD.len()) else {
        return false;
    };
    name[start..]
        .iter()
        .zip(WORD)
        .all(|(&a, &b)| folded(a) == b)
        && (start == 0 || folded(name[start - 1]) == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn advice(fields: &[(&str, &str)]) -> Option<bool> {
        let fields: Vec<(&str, &[u8])> = fields.iter().map(|(k, v)| (*k, v.as_bytes())).collect();
        read(&Headers::new(&fields))
    }

    #[test]
    fn vendors_say_whether_a_retry_can_help() {
        assert_eq!(advice(&[("x-should-retry", "false")]), Some(false));
        assert_eq!(advice(&[("Stripe-Should-Retry", "true")]), Some(true));
        assert_eq!(advice(&[("X_Should_Retry", " FALSE ")]), Some(false));
        assert_eq!(advice(&[("x-should-retry", "0")]), Some(false));
        assert_eq!(advice(&[("x-should-retry", "maybe")]), None);
        assert_eq!(advice(&[("x-retry-count", "false")]), None);
        assert_eq!(advice(&[("should-retry", "false")]), Some(false));
        assert_eq!(advice(&[("x-wouldshould-retry", "false")]), None);
        assert_eq!(advice(&[("content-type", "application/json")]), None);
        assert_eq!(
            advice(&[("x-should-retry", "true"), ("stripe-should-retry", "false")]),
            Some(false),
            "disagreeing headers: no retry"
        );
    }
}
