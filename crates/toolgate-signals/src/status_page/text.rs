//! Health probes that answer in plain text rather than JSON.
//!
//! Sources: Docker Engine `GET /_ping` and Traefik `/ping` answer `OK`; ClickHouse
//! `/ping` answers `Ok.` (<https://clickhouse.com/docs/interfaces/http>); Envoy's admin
//! `/ready` answers its state, `LIVE` with a 200
//! (<https://www.envoyproxy.io/docs/envoy/latest/operations/admin>); Prometheus
//! `/-/healthy` answers "Prometheus Server is Healthy."
//! (<https://prometheus.io/docs/prometheus/latest/management_api/>).
//!
//! Kubernetes' `/livez` and `/readyz` (<https://kubernetes.io/docs/reference/using-api/health-checks/>),
//! and every server built on its health-check library, answer a list of checks, one a
//! line: `[+]ping ok`, `[-]etcd failed: reason withheld`, then `readyz check passed` or
//! `… failed`. Any failed check means the server is not ready; the failed checks are its
//! components ([`check_list`]).
//!
//! Otherwise only a short body is read ([`MAX_TEXT`] bytes, no markup: an HTML error page is not a
//! probe's answer). A one-word body is read as a health word; a sentence is read by its
//! health words, and only when it has no negation ("is not ready", "unhealthy" is its
//! own word), so that a word taken out of a longer sentence never reads as healthy.

use super::{Health, PageStatus, word_health};

/// The longest body read as a probe's plain-text answer.
const MAX_TEXT: usize = 128;

/// The longest check list read, and the most checks named as failed.
const MAX_LIST: usize = 8192;
const MAX_FAILED: usize = 16;

pub(super) fn parse(body: &[u8]) -> Option<PageStatus> {
    if let Some(p) = check_list(body).or_else(|| coloured_page(body)) {
        return Some(p);
    }
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

/// Whether the body is one word and nothing else (Hasura's `/healthz` answers `ERROR`
/// with a 500): a probe's own answer, where a sentence on a failed reply ("Internal
/// Server Error") is the server's account of the request.
pub(super) fn one_word(body: &[u8]) -> bool {
    body.len() <= MAX_TEXT
        && std::str::from_utf8(body).is_ok_and(|t| {
            let t = t.trim();
            !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// The longest page read as one that answers by its colour.
const MAX_PAGE: usize = 512;
/// The declaration whose value is such a page's answer.
const BACKGROUND: &str = "background-color:";

/// A page that says its health by its colour alone, as Rails' `/up`
/// (`Rails::HealthController`, generated in every new app since Rails 7.1) renders
/// `<body style="background-color: green">` when the app booted and red when it raised
/// (<https://api.rubyonrails.org/classes/Rails/HealthController.html>). Only markup with
/// no text between its tags counts: a page that says anything in words is not read by its
/// colour. The colour is read as a health word (`green`, `yellow`, `red`); any other says
/// nothing.
pub(super) fn coloured_page(body: &[u8]) -> Option<PageStatus> {
    if body.len() > MAX_PAGE {
        return None;
    }
    let text = std::str::from_utf8(body).ok()?.trim();
    if !text.starts_with('<') || !only_markup(text) {
        return None;
    }
    let lower = text.to_ascii_lowercase();
    let value = lower[lower.find(BACKGROUND)? + BACKGROUND.len()..].trim_start();
    let colour: String = value
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .collect();
    let health = word_health(&colour);
    (health != Health::Unknown).then(|| PageStatus {
        health,
        indicator: colour,
        description: None,
        components: Vec::new(),
    })
}

/// Whether `text` holds nothing but tags and the space between them.
fn only_markup(text: &str) -> bool {
    let mut in_tag = false;
    text.chars().all(|c| match c {
        '<' => {
            in_tag = true;
            true
        }
        '>' => {
            in_tag = false;
            true
        }
        _ => in_tag || c.is_whitespace(),
    })
}

/// A list of `[+]name ok` / `[-]name failed: …` lines: healthy when every check passed,
/// down when any failed (a server is ready only when all its checks are).
fn check_list(body: &[u8]) -> Option<PageStatus> {
    if body.len() > MAX_LIST || !body.starts_with(b"[") {
        return None;
    }
    let text = std::str::from_utf8(body).ok()?;
    let (mut passed, mut failed) = (0usize, Vec::new());
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(check) = line.strip_prefix("[+]") {
            passed += usize::from(!check.is_empty());
        } else if let Some(check) = line.strip_prefix("[-]") {
            let name = check.split_whitespace().next().unwrap_or_default();
            if failed.len() < MAX_FAILED && !name.is_empty() {
                let reason = check[name.len()..].trim();
                failed.push((
                    name.chars().take(80).collect(),
                    reason.chars().take(80).collect(),
                ));
            }
        } else if line.contains(['[', '<', '{']) {
            // Not the library's summary line: some other document.
            return None;
        }
    }
    if passed + failed.len() == 0 {
        return None;
    }
    let health = if failed.is_empty() {
        Health::Healthy
    } else {
        Health::Down
    };
    let summary = text
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with('['));
    Some(PageStatus {
        health,
        indicator: summary.map_or_else(
            || {
                format!(
                    "{} of {} checks failed",
                    failed.len(),
                    passed + failed.len()
                )
            },
            |l| l.chars().take(40).collect(),
        ),
        description: None,
        components: failed,
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
        // Liveness words: a load balancer's probe answers alive or dead.
        assert_eq!(h("ALIVE"), Some(Health::Healthy));
        assert_eq!(h("Server is alive.\n"), Some(Health::Healthy));
        assert_eq!(h("DEAD"), Some(Health::Down));
        assert_eq!(h("Node is not alive"), None);
        // A ping answered.
        assert_eq!(h("PONG"), Some(Health::Healthy));
        // A negated sentence, markup, long bodies and words without a health meaning.
        assert_eq!(h("Prometheus Server is not Ready."), None);
        assert_eq!(h("<html><body>OK</body></html>"), None);
        assert_eq!(h(&"ok ".repeat(100)), None);
        assert_eq!(h("hello world"), None);
        assert_eq!(parse(&[0xff, 0x4f, 0x4b]), None);
    }

    #[test]
    fn one_word_answers_are_told_from_sentences() {
        assert!(one_word(b"ERROR"));
        assert!(one_word(b" NOT_SERVING\n"));
        assert!(!one_word(b"Internal Server Error"));
        assert!(!one_word(b"{\"status\":\"error\"}"));
        assert!(!one_word(b""));
        assert!(!one_word("x".repeat(MAX_TEXT + 1).as_bytes()));
    }

    #[test]
    fn a_list_of_checks_is_down_when_any_failed() {
        let failing = "[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n\
                       [-]informer-sync failed: not synced\nreadyz check failed\n";
        let p = parse(failing.as_bytes()).unwrap();
        assert_eq!(p.health, Health::Down);
        assert_eq!(p.indicator, "readyz check failed");
        assert_eq!(
            p.components,
            vec![
                ("etcd".to_owned(), "failed: reason withheld".to_owned()),
                ("informer-sync".to_owned(), "failed: not synced".to_owned()),
            ]
        );
        let passing = "[+]ping ok\n[+]etcd ok\nlivez check passed\n";
        assert_eq!(parse(passing.as_bytes()).unwrap().health, Health::Healthy);
        // Brackets that are not a check list are some other document.
        assert_eq!(parse(b"[1, 2, 3]").map(|p| p.health), None);
        assert_eq!(parse(b"[+]ok\n<html>").map(|p| p.health), None);
    }
}
