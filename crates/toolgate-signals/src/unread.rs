//! Signal-like headers that no reader understood. Real APIs keep inventing header
//! families; one that names a quota, a wait or a retirement in a way toolgate cannot
//! read must not be dropped silently: it is handed on verbatim, so the model (and the
//! owner, through a metric) still sees what the upstream said.
//!
//! A header is a candidate when its name carries a signal word, which also says what
//! kind of signal it would be: a quota (rate limit, quota, throttle, remaining, reset,
//! limit), a wait (retry) or a retirement (deprecation, sunset, and the advisory words
//! warn, notice, advisory that vendors put deprecation texts under). A candidate is
//! unread when the response's reading found nothing of its kind: a response whose quota
//! was read has its quota headers' story told (a `…-Count` or `…-Type` beside the limits
//! adds detail, not news), while an unknown quota header on a response with no quota
//! read at all is news. Retirement headers are also judged one by one: a `Sunset` whose
//! date could not be read is news even beside a `Deprecation` that was, since the end
//! date is the part an owner plans by. Deciding from the reading costs nothing more per
//! response: no header is read twice.

use crate::{Headers, Signals};

/// What a signal word says a header is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Quota,
    Wait,
    Retirement,
}

/// Words in a header name that mark it as a signal, and of which kind. Lower case;
/// matched as substrings of the lower-cased name with `_` read as `-`. The first match
/// decides (`retry` before the quota words: `X-Retry-Reset` is a wait).
const SIGNAL_WORDS: &[(&str, Kind)] = &[
    ("retry", Kind::Wait),
    ("deprecat", Kind::Retirement),
    ("sunset", Kind::Retirement),
    ("retire", Kind::Retirement),
    ("end-of-life", Kind::Retirement),
    ("ratelimit", Kind::Quota),
    ("rate-limit", Kind::Quota),
    ("quota", Kind::Quota),
    ("throttl", Kind::Quota),
    ("remaining", Kind::Quota),
    ("reset", Kind::Quota),
    ("-limit", Kind::Quota),
    ("limit-", Kind::Quota),
    // A count of what was used with no limit beside it (Binance's
    // `X-MBX-USED-WEIGHT-1M`): nothing to compute a budget from, but news to the model.
    ("-used-", Kind::Quota),
    ("warn", Kind::Retirement),
    ("notice", Kind::Retirement),
    ("advisor", Kind::Retirement),
];

/// Headers that carry a signal word but are never operational signals, or that the
/// readers understand and deliberately leave out: `api-deprecated-versions` (ASP.NET
/// API versioning) lists *other* versions, not the one called.
const NOT_SIGNALS: &[&str] = &[
    "access-control-",
    "content-",
    "x-content-",
    "api-deprecated-versions",
];

/// Names read by their own reader, which keeps only what matters: `Warning`'s caching
/// codes (1xx) are dropped on purpose, not missed.
const OWN_READER: &[&str] = &crate::warning::WARNING_FIELDS;

/// At most this many unread headers are reported per response.
pub const MAX_UNREAD: usize = 4;

/// A value longer than this is cut (the model needs the gist, not a document).
const MAX_VALUE: usize = 200;

/// One header nothing could read, as the upstream sent it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unread {
    /// The header name as received.
    pub name: String,
    /// Its value, lossily decoded, trimmed and capped.
    pub value: String,
}

/// The response counts the items of a listing (`X-Total-Count`, `Total-Count`, as
/// OCPI's paginated answers do beside `X-Limit`).
fn lists_a_total(headers: &Headers<'_>) -> bool {
    headers.get("x-total-count").is_some() || headers.get("total-count").is_some()
}

/// A limit that names nothing it limits (`X-Limit`, `Limit`): beside a listing's total
/// it is the page's size, not a budget.
fn is_bare_limit(name: &str) -> bool {
    let name = name.trim();
    name.eq_ignore_ascii_case("x-limit") || name.eq_ignore_ascii_case("limit")
}

/// What kind of signal `name` looks like, if any.
fn kind(name: &str) -> Option<Kind> {
    // Runs on every header of every response: compared in place, nothing allocated.
    let name = name.trim().as_bytes();
    if NOT_SIGNALS
        .iter()
        .any(|p| starts_with_folded(name, p.as_bytes()))
        || OWN_READER
            .iter()
            .any(|own| name.eq_ignore_ascii_case(own.as_bytes()))
        || ends_with_folded(name, b"should-retry")
        || names_no_budget(name)
    {
        return None;
    }
    SIGNAL_WORDS
        .iter()
        .find(|(word, _)| contains_folded(name, word.as_bytes()))
        .map(|(_, kind)| *kind)
}

/// Words of a header name that say it is about something other than the caller's
/// budget: a cache between the caller and the data (NewsAPI's `x-cache-remaining: 99`
/// and `x-cache-expires`, `x-cached-result`, `cf-cache-status`), or the pages of a list
/// (`x-page-limit: 20`, `x-per-page`, `x-pages-remaining`). What a cache has left, when
/// its copy expires or how many items a page holds is no budget and no wait.
const NO_BUDGET_WORDS: [&[u8]; 6] = [
    b"cache",
    b"cached",
    b"page",
    b"pages",
    b"paging",
    b"pagination",
];

/// Whether a word of `name`, split at `-` and `_`, is one of [`NO_BUDGET_WORDS`].
fn names_no_budget(name: &[u8]) -> bool {
    name.split(|&b| b == b'-' || b == b'_')
        .any(|word| NO_BUDGET_WORDS.iter().any(|w| word.eq_ignore_ascii_case(w)))
}

/// `b` lower-cased, with `_` read as `-`.
fn fold(b: u8) -> u8 {
    if b == b'_' {
        b'-'
    } else {
        b.to_ascii_lowercase()
    }
}

/// `x-should-retry` and its kin are read by `retry_advice.rs`.
fn ends_with_folded(name: &[u8], suffix: &[u8]) -> bool {
    name.len() >= suffix.len()
        && name[name.len() - suffix.len()..]
            .iter()
            .zip(suffix)
            .all(|(&a, &b)| fold(a) == b)
}

fn starts_with_folded(name: &[u8], prefix: &[u8]) -> bool {
    name.len() >= prefix.len() && name.iter().zip(prefix).all(|(&a, &b)| fold(a) == b)
}

fn contains_folded(name: &[u8], word: &[u8]) -> bool {
    name.windows(word.len())
        .any(|w| w.iter().zip(word).all(|(&a, &b)| fold(a) == b))
}

/// Whether `name` looks like a rate-limit, wait or deprecation signal.
#[must_use]
pub fn looks_like_signal(name: &str) -> bool {
    kind(name).is_some()
}

/// The candidate headers of `headers` whose kind of signal `read` found nothing of.
#[must_use]
pub fn find(headers: &Headers<'_>, read: &Signals) -> Vec<Unread> {
    find_with(headers, read, &crate::deprecation::Fields::default())
}

/// [`find`], judging the retirement fields the deprecation reader examined one by one:
/// one it could not read is reported whatever else was read, and one it read in full
/// (`Deprecation: false` included, which declares nothing) is not.
pub(crate) fn find_with(
    headers: &Headers<'_>,
    read: &Signals,
    retirement: &crate::deprecation::Fields,
) -> Vec<Unread> {
    let told = |kind: Kind| match kind {
        Kind::Quota => !read.quota.is_empty() || read.rate_limited,
        Kind::Wait => read.retry_after.is_some() || read.rate_limited,
        Kind::Retirement => {
            read.deprecation.is_some() || !read.notices.is_empty() || !read.warnings.is_empty()
        }
    };
    if told(Kind::Quota)
        && told(Kind::Wait)
        && told(Kind::Retirement)
        && retirement.unread.is_empty()
    {
        return Vec::new();
    }
    let field_told = |i: usize, kind: Kind| {
        if kind != Kind::Retirement {
            return told(kind);
        }
        if retirement.unread.contains(&i) {
            return false;
        }
        retirement.read.contains(&i) || told(kind)
    };
    let listing = lists_a_total(headers);
    headers
        .iter()
        .enumerate()
        .filter(|(i, (name, value))| {
            kind(name).is_some_and(|k| {
                let placeholder = k == Kind::Quota && is_placeholder_count(value);
                let page_size = listing && is_bare_limit(name);
                !(field_told(*i, k) || placeholder || page_size || used_of_nothing(name, value))
            })
        })
        .map(|(_, field)| field)
        .take(MAX_UNREAD)
        .map(|(name, value)| Unread {
            name: name.trim().to_string(),
            value: cap(&String::from_utf8_lossy(value.trim_ascii())),
        })
        .collect()
}

/// A negative count (`X-RateLimit-Limit: -1`): how plans without a limit, and gateways
/// that do not count a route, fill the field. It says there is no budget to run out
/// of, which is nothing to hand on.
fn is_placeholder_count(value: &[u8]) -> bool {
    value
        .trim_ascii()
        .strip_prefix(b"-")
        .is_some_and(|digits| !digits.is_empty() && digits.iter().all(u8::is_ascii_digit))
}

/// A field named only by `-used-` whose value holds no number: the word then names
/// whose budget was used (Yandex Direct's `Units-Used-Login: agrom`), not a count of it.
/// The stronger words (`quota`, `remaining`) are news even in words (`exhausted`).
fn used_of_nothing(name: &str, value: &[u8]) -> bool {
    let name = name.trim().as_bytes();
    let mut words = SIGNAL_WORDS
        .iter()
        .filter(|(word, _)| contains_folded(name, word.as_bytes()))
        .map(|(word, _)| *word);
    words.next() == Some("-used-")
        && words.next().is_none()
        && !value.iter().any(u8::is_ascii_digit)
}

fn cap(value: &str) -> String {
    let clean: String = value.chars().filter(|c| !c.is_control()).collect();
    match clean.char_indices().nth(MAX_VALUE) {
        Some((at, _)) => format!("{}…", &clean[..at]),
        None => clean,
    }
}

#[cfg(test)]
mod tests;
