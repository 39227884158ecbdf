//! Health probes that answer in plain text rather than JSON.
//!
//! Sources: Docker Engine `GET /_ping` and Traefik `/ping` answer `OK`; ClickHouse
//! `/ping` answers `Ok.` (<https://clickhouse.com/docs/interfaces/http>); Envoy's admin
//! `/ready` answers its state, `LIVE` with a 200
//! (<https://www.envoyproxy.io/docs/envoy/latest/operations/admin>); Prometheus
//! `/-/healthy` answers "Prometheus Server is Healthy."
//! (<https://prometheus.io/docs/prometheus/latest/management_api/>).
//!
//! Only a short body is read ([`MAX_TEXT`] bytes, no markup: an HTML error page is not a
//! probe's answer). A one-word body is read as a health word; a sentence is read by its
//! health words, and only when it has no negation ("is not ready", "unhealthy" is its
//! own word), so that a word taken out of a longer sentence never reads as healthy.

use super::{Health, PageStatus, word_health};

/// The longest body read as a probe's plain-text answer.
const MAX_TEXT: usize = 128;

pub(super) fn parse(body: &[u8]) -> Option<PageStatus> {
    if body.len() > MAX_TEXT {
        return None;
    }
    let text = std::str::from_utf8(body).ok()?.trim();
    if text.is_empty() || text.contains(['<', '{', '[']) {
        return None;
    }
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || matches!(c, '.' | ',' | '!' | ';'))
        .filter(|w| !w.is_empty())
        .collect();
    let health = match words.as_slice() {
        [one] => word_health(one),
        _ if words.iter().any(|w| is_negation(w)) => Health::Unknown,
        _ => words
            .iter()
            .map(|w| word_health(w))
            .filter(|h| *h != Health::Unknown)
            .fold(Health::Unknown, super::worse),
    };
    (health != Health::Unknown).then(|| PageStatus {
        health,
        indicator: text.chars().take(40).collect(),
        description: None,
        components: Vec::new(),
    })
}

fn is_negation(w: &str) -> bool {
    ["not", "no", "never", "isn't", "aren't", "cannot", "can't"]
        .iter()
        .any(|n| w.eq_ignore_ascii_case(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_probe_answers() {
        let h = |b: &str| parse(b.as_bytes()).map(|p| p.health);
        assert_eq!(h("OK"), Some(Health::Healthy));
        assert_eq!(h("Ok.\n"), Some(Health::Healthy));
        assert_eq!(h("LIVE\n"), Some(Health::Healthy));
        assert_eq!(h("Prometheus Server is Healthy.\n"), Some(Health::Healthy));
        assert_eq!(h("Service Unavailable"), Some(Health::Down));
        // A negated sentence, markup, long bodies and words without a health meaning.
        assert_eq!(h("Prometheus Server is not Ready."), None);
        assert_eq!(h("<html><body>OK</body></html>"), None);
        assert_eq!(h(&"ok ".repeat(100)), None);
        assert_eq!(h("hello world"), None);
        assert_eq!(parse(&[0xff, 0x4f, 0x4b]), None);
    }
}
