//! Rate-limit headers read by their shape, for the families no vendor module knows.
//!
//! Real APIs keep inventing names (`x-sib-ratelimit-remaining`,
//! `X-Contentful-RateLimit-Second-Limit`, `x-rate-limit-api-token-max`,
//! `X-App-Rate-Limit: 20:1,100:120`, `x-daily-requests-left`, `X-Quota-Remaining`, …),
//! but the names are built from the same words. A field name is split at `-` and `_`
//! and must carry
//! - a **rate-limit word**: a token containing `ratelimit`, `throttl` or `quota`, the
//!   pair `rate` `limit`, a budget a second (`qps`, `rps`), or (only when directly
//!   followed by a part) `call(s)` / `request(s)`;
//! - a **part**: limit (`limit`, `max`, `total`, `capacity`, `allotted`), remaining
//!   (`remaining`, `left`, `available`), used (`used`, `count`, `consumed`, and
//!   `current` as the last word, as Mashery's `X-Plan-Quota-Current`), reset (`reset`,
//!   `resets`, `next`), a wait (`retry`, `retry-after`, `wait`, `after`) or a window (`window`,
//!   `interval`, `period`); a reset, wait or window optionally with a unit (`ms`,
//!   `seconds`, `mins`, `hours`: the plurals and abbreviations of `num::TimeUnit`).
//!
//! A part glued to its policy in one token (Imgur's `X-RateLimit-UserLimit`, Xero's
//! `X-MinLimit-Remaining`) is split first; a budget said as a phrase (Etsy's
//! `x-limit-per-second`, `x-remaining-today`) is named by its period; a part before a
//! final `limit` (CoinGlass's `API-KEY-USE-LIMIT`) is read as that part, and `quota`
//! after the word is the limit (BigCommerce's `X-Rate-Limit-Requests-Quota`).
//!
//! The other tokens name the policy: those after the rate-limit word (`hour`, `second`,
//! `api-token`), else those before it minus a leading `x` (`sib`, `app`), else
//! `default`, so a family's bare `-reset` joins its only policy with counts. Values may be a
//! number (a leading number of a list, `100, 100;w=60`, with its window), `used/limit`,
//! `count:window` pairs (with a `…-count` companion), `key=value;` / `key:value;`
//! lists, or any reset shape [`crate::reset::parse_str`] knows. A field listing bare
//! counts (`300,3000`) gives one quota per window ([`crate::window_list`]), and so does
//! a list of counts per period (Upbit's `Remaining-Req: group=default; min=1800;
//! sec=29`, a part and what it counts naming the field).
//!
//! Some words only look like policies: `status` right after `limit` is what is left
//! (Bybit's `X-Bapi-Limit-Status`), and `timestamp` / `time` / `date` after `reset` say
//! how the instant is written (`X-Gate-RateLimit-Reset-Timestamp`). A `quota` word with
//! nothing else naming it names the policy `quota`, a budget apart from the rate limit
//! beside it. Groups of one family that describe one window are joined (`shape/join.rs`).
//!
//! Fields a vendor module reads are skipped here ([`claimed`]), so each field is read by
//! one reader. Work is bounded: at most [`MAX_FIELDS`] rate-limit fields and
//! [`MAX_VALUE`] bytes of each value are looked at.

use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::headers::has_prefix_ci;
use crate::num::TimeUnit;
use crate::quota::Collector;
use crate::{Headers, MAX_WAIT, Quota, num, reset, retry_after, window_list};

mod join;

/// Rate-limit fields examined per response.
const MAX_FIELDS: usize = 64;
/// Bytes of one value examined.
const MAX_VALUE: usize = 256;
/// Tokens of one field name examined.
const MAX_TOKENS: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Limit,
    Remaining,
    Used,
    Reset,
    Retry,
    Window,
}

/// One parsed field name.
#[derive(Debug, PartialEq)]
struct Name {
    family: String,
    policy: String,
    part: Part,
    unit: Option<TimeUnit>,
    /// Named by no rate-limit word, only by its shape (`X-FloodControl-Remaining`):
    /// read only when its family also has both a limit and a remaining count.
    by_shape_alone: bool,
    /// A spent count that counts only beside a limit a rate-limit word names
    /// ([`used_by_shape`]).
    needs_named_limit: bool,
}

/// One `count:window` field: its family and policy, its pairs, and whether it is the
/// `-count` companion (used) rather than the limits.
type Pairs = (String, Vec<(u64, u64)>, bool);

#[derive(Debug, Default)]
struct Group {
    family: String,
    policy: String,
    by_shape_alone: bool,
    limit: Option<u64>,
    remaining: Option<u64>,
    used: Option<u64>,
    reset: Option<Duration>,
    /// The reset as sent, when it was a bare whole number with no unit in its name:
    /// the one shape whose unit the number alone may not tell ([`Group::emit`]).
    bare_reset: Option<u64>,
    window: Option<Duration>,
    /// Counts listed per window (Strava's `X-ReadRateLimit-Limit: 300,3000`), kept
    /// beside the first ones above when a field lists more than one.
    lists: window_list::Lists,
    /// The field the used count came from, to find the limit a vendor module read
    /// beside it ([`limit_beside`]).
    used_field: Option<String>,
    /// The limit came from a field a rate-limit word names.
    limit_named: bool,
    /// The used count came from a field that needs a named limit ([`used_by_shape`]).
    used_by_shape: bool,
}

/// Fields the vendor modules read (exact names and prefixes).
pub(crate) fn claimed(name: &str) -> bool {
    const EXACT: [&str; 33] = [
        "retry-after",
        "retry-after-ms",
        "x-ms-retry-after-ms",
        "ratelimit",
        "ratelimit-policy",
        "ratelimit-limit",
        "ratelimit-remaining",
        "ratelimit-reset",
        "ratelimit-observed",
        "ratelimit-resettime",
        "ratelimit-reason",
        "beta-ratelimit",
        "beta-ratelimit-policy",
        "beta-retry-after",
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
        "x-ratelimit-used",
        "x-ratelimit-usage",
        "x-ratelimit-resource",
        "x-ratelimit-reset-after",
        "x-ratelimit-bucket",
        "x-ratelimit-global",
        "x-ratelimit-scope",
        "x-ratelimit-nearlimit",
        "x-rate-limit",
        "x-rate-limit-limit",
        "x-rate-limit-remaining",
        "x-rate-limit-reset",
        "x-shopify-shop-api-call-limit",
        "sforce-limit-info",
        "x-beta-ratelimit-nearlimit",
        "x-beta-ratelimit-reason",
    ];
    const PREFIXES: [&str; 9] = [
        "anthropic-ratelimit-",
        "zendesk-ratelimit-",
        "x-hubspot-ratelimit-",
        "x-ms-ratelimit-",
        "x-ms-throttle-",
        "x-sentry-rate-limit-",
        "x-ratelimit-limit-",
        "x-ratelimit-remaining-",
        "x-ratelimit-reset-",
    ];
    EXACT.iter().any(|e| name.eq_ignore_ascii_case(e))
        || PREFIXES.iter().any(|p| has_prefix_ci(name, p))
        || policy_named(name)
}

/// `x-ratelimit-<policy>-{limit,remaining,reset}`, read by the policy-named module.
fn policy_named(name: &str) -> bool {
    const P: &str = "x-ratelimit-";
    if !has_prefix_ci(name, P) {
        return false;
    }
    let rest = name[P.len()..].to_ascii_lowercase();
    rest.rsplit_once('-').is_some_and(|(policy, f)| {
        !policy.is_empty() && matches!(f, "limit" | "remaining" | "reset")
    })
}

fn part_of(token: &str) -> Option<Part> {
    // `resetat`, `resettimestamp` (Bitvavo's `bitvavo-ratelimit-resetat`): the reset
    // glued to the word for how its instant is written.
    if token
        .strip_prefix("reset")
        .is_some_and(|form| !form.is_empty() && time_form(form))
    {
        return Some(Part::Reset);
    }
    Some(match token {
        // Mashery's `X-Plan-Quota-Allotted`: what the plan allots.
        "limit" | "max" | "total" | "capacity" | "allowed" | "allotted" | "allotment" | "quota" => {
            Part::Limit
        }
        "remaining" | "remain" | "left" | "available" => Part::Remaining,
        "used" | "count" | "consumed" | "observed" | "usage" | "utilized" | "utilised" => {
            Part::Used
        }
        // When the budget runs out or comes back (HTX's `X-HB-RateLimit-Requests-Expire`,
        // an `until` instant).
        "reset" | "resets" | "resettime" | "next" | "expire" | "expires" | "expiry" | "until" => {
            Part::Reset
        }
        // tower_governor's `x-ratelimit-after: 5`: the seconds until the next call may
        // pass (`reset-after` is read as a reset before this is reached).
        "retry" | "retryafter" | "wait" | "after" => Part::Retry,
        // Entur's `rate-limit-range: PT2M`: the range of time the count covers.
        "window" | "interval" | "period" | "range" => Part::Window,
        _ => return None,
    })
}

/// Words after `reset` that say how the instant is written, not which policy it is.
fn time_form(token: &str) -> bool {
    matches!(
        token,
        "timestamp" | "time" | "ts" | "epoch" | "unix" | "utc" | "at" | "date" | "datetime"
    )
}

fn unit_of(token: &str) -> Option<TimeUnit> {
    // The singular period words (`-minute`, `-hour`) name a policy, as Kong's
    // `X-RateLimit-Remaining-Minute` does; only plurals and abbreviations are units.
    match token {
        "s" => Some(TimeUnit::Seconds),
        _ => TimeUnit::SUFFIXES
            .iter()
            .find(|(spelling, _)| *spelling == token)
            .map(|(_, unit)| *unit),
    }
}

/// A policy glued to its part in one token, as Imgur (`X-RateLimit-UserLimit`,
/// `-ClientRemaining`) and Xero (`X-MinLimit-Remaining`, `X-DayLimit-Remaining`) write
/// them: `userlimit` is `user` + `limit`. Rate-limit words themselves (`ratelimit`) are
/// not split, nor a head shorter than two letters (`preset`).
fn glued_part(t: &str) -> Option<(&str, &str)> {
    if t.contains("ratelimit") || t.contains("throttl") || t.contains("quota") {
        return None;
    }
    ["limit", "remaining", "reset"].iter().find_map(|part| {
        let head = t.strip_suffix(part)?;
        (head.len() >= 2 && head.bytes().all(|b| b.is_ascii_alphabetic()))
            .then(|| (head, &t[head.len()..]))
    })
}

/// A budget said as a phrase, as Etsy does: `x-limit-per-second`,
/// `x-remaining-this-second`, `x-limit-per-day`, `x-remaining-today`. The period names
/// the policy, so a family's limit and remaining for one period meet.
fn budget_phrase(tokens: &[&str]) -> Option<Name> {
    let rest = match tokens {
        ["x", rest @ ..] => rest,
        rest => rest,
    };
    let (part, period) = match rest {
        [p, "per" | "this", period] | [p, period] => (part_of(p)?, *period),
        _ => return None,
    };
    if !matches!(part, Part::Limit | Part::Remaining) {
        return None;
    }
    let period = match period {
        "second" | "sec" => "second",
        "minute" | "min" => "minute",
        "hour" => "hour",
        "day" | "today" => "day",
        "week" => "week",
        "month" => "month",
        _ => return None,
    };
    Some(Name {
        family: String::new(),
        policy: period.to_owned(),
        part,
        unit: None,
        by_shape_alone: false,
        needs_named_limit: false,
    })
}

/// Stored things a quota may be of, rather than calls: a bare quota under a stem naming
/// one is a size, not a budget of calls.
const STORED: [&str; 14] = [
    "storage", "disk", "space", "mailbox", "upload", "uploads", "file", "files", "size", "bytes",
    "memory", "seats", "members", "users",
];

/// Splits a field name into its family, policy, part and unit; `None` when it is not
/// a rate-limit field.
fn parse_name(name: &str) -> Option<Name> {
    let lower = humps_split(name.trim()).unwrap_or_else(|| name.trim().to_ascii_lowercase());
    let tokens = tokens_of(&lower)?;
    if let Some(n) = budget_phrase(&tokens) {
        return Some(n);
    }
    let Some((at, span)) = rate_limit_word(&tokens) else {
        return part_then_limit(&tokens)
            .or_else(|| count_of_requests(&tokens))
            .or_else(|| credit_budget(&tokens))
            .or_else(|| family_by_shape(&tokens))
            .or_else(|| concurrency(&tokens));
    };
    let after = &tokens[at + span..];
    let Tail {
        part,
        unit,
        mut policy,
    } = Tail::of(after);
    let before: Vec<&str> = tokens[..at].iter().copied().filter(|t| *t != "x").collect();
    // `X-App-Rate-Limit`, `X-RateLimit`: the word itself names the limit. So does a
    // `quota` ending the name (Brandfetch's `x-api-key-quota: 100`, the month's quota of
    // the key, whose use `x-api-key-approximate-usage` counts: [`used_by_shape`]).
    // A quota glued to what it counts (`x-apiquota-remaining`) is that quota too.
    let quota_word = tokens[at].ends_with("quota") || tokens[at].ends_with("quotas");
    // Only under a stem of its own, and one naming no stored thing: `X-Storage-Quota`
    // and `X-Mailbox-Quota` are sizes, and a lone `X-Quota` says not of what.
    let bare_quota = after.is_empty()
        && quota_word
        && !before.is_empty()
        && !before.iter().any(|t| STORED.contains(t));
    let implied = after.is_empty() && (tokens[at + span - 1].ends_with("limit") || bare_quota);
    // A rate limit followed only by its period is that period's limit (Apollo's
    // `x-rate-limit-minute: 200` beside `x-minute-requests-left`, and `-24-hour`).
    let period_alone =
        part.is_none() && tokens[at + span - 1].ends_with("limit") && names_a_period(&policy);
    let part = part.or((implied || period_alone).then_some(Part::Limit))?;
    // A quota is a budget apart from the rate limit beside it (MarketCheck's
    // `Quota-Limit` / `Quota-Remaining`, monthly, next to the per-second `RateLimit-*`):
    // when nothing else names it, the word does, so the two do not merge as `default`.
    // A bare quota under a stem of its own is named by the stem, which its usage
    // field shares.
    // A period leading the name names the budget and its window, as a trailing one
    // does (CoreLogic Trestle's `Minute-Quota-Limit` beside `Hour-Quota-Available`).
    let mut before = before;
    if policy.is_empty() && names_a_period(&before) {
        policy.append(&mut before);
    }
    if policy.is_empty() && quota_word && !bare_quota {
        policy.push("quota");
    }
    // So is a budget of queries a period (Mashery's `X-Plan-QPS-Allotted` beside its
    // `X-Plan-Quota-*`, World Weather Online's `X-WWO-Qpd-Left`): the word names it.
    if policy.is_empty() && is_per_period_budget(tokens[at]) {
        policy.push(tokens[at]);
    }
    Some(Name {
        family: before.join("-"),
        policy: policy.join("-"),
        part,
        unit,
        by_shape_alone: false,
        needs_named_limit: false,
    })
}

/// A period, alone or counted (`minute`, `24-hour`), as it may name a budget.
fn names_a_period(tokens: &[&str]) -> bool {
    match tokens {
        [period] => is_leading_period(period),
        [count, period] => {
            !count.is_empty()
                && count.bytes().all(|b| b.is_ascii_digit())
                && is_leading_period(period)
        }
        _ => false,
    }
}

/// A period noun that may lead a field's name for the budget it counts (the adjectives,
/// `x-daily-requests-left`, name the family, as they always have).
fn is_leading_period(token: &str) -> bool {
    matches!(
        token,
        "second" | "minute" | "hour" | "day" | "week" | "month"
    )
}

/// A lower-cased name's tokens, split at `-` and `_` with glued parts split off;
/// `None` past [`MAX_TOKENS`].
fn tokens_of(lower: &str) -> Option<Vec<&str>> {
    let mut tokens: Vec<&str> = Vec::new();
    for t in lower.split(['-', '_']).filter(|t| !t.is_empty()) {
        // Bybit's `X-Bapi-Limit-Status` is what is left of the limit.
        let t = if t == "status" && matches!(tokens.last(), Some(&("limit" | "limits"))) {
            "remaining"
        } else {
            t
        };
        match glued_part(t) {
            Some((head, part)) => tokens.extend([head, part]),
            None => tokens.push(t),
        }
        if tokens.len() > MAX_TOKENS {
            return None;
        }
    }
    Some(tokens)
}

/// Where the rate-limit word is, and how many tokens it spans: a rate-limit, throttle
/// or quota word, else a counted noun followed by a part, else a `limit` word followed,
/// later, by a part.
fn rate_limit_word(tokens: &[&str]) -> Option<(usize, usize)> {
    for (i, t) in tokens.iter().enumerate() {
        if t.contains("ratelimit")
            || t.contains("throttl")
            || t.contains("quota")
            || is_per_period_budget(t)
        {
            return Some((i, 1));
        }
        if *t == "rate" && tokens.get(i + 1) == Some(&"limit") {
            return Some((i, 2));
        }
        // football-data.org's `X-RequestCounter-Reset`: a counter of requests is a
        // rate-limit word when a part follows it.
        if is_request_counter(t) && tokens.get(i + 1).and_then(|n| part_of(n)).is_some() {
            return Some((i, 1));
        }
    }
    tokens
        .iter()
        .enumerate()
        .find_map(|(i, t)| {
            if !matches!(*t, "call" | "calls" | "request" | "requests")
                || tokens.get(i + 1).and_then(|n| part_of(n)).is_none()
            {
                return None;
            }
            // Oracle Access Governance's `RequestLimit-Default-Remaining`: a limit of
            // requests is the name when a part follows later; the policy and that part
            // come after it.
            let limit_named = matches!(tokens[i + 1], "limit" | "limits")
                && tokens[i + 2..].iter().any(|n| part_of(n).is_some());
            Some((i, if limit_named { 2 } else { 1 }))
        })
        // `x-user-limit-24hour-remaining`: a `limit` word followed, later, by a part.
        .or_else(|| {
            tokens.iter().enumerate().find_map(|(i, t)| {
                (matches!(*t, "limit" | "limits")
                    && tokens[i + 1..].iter().any(|n| part_of(n).is_some()))
                .then_some((i, 1))
            })
        })
}

/// `requestcounter`, `callcounter`: what is counted glued to the counter counting it.
fn is_request_counter(t: &str) -> bool {
    t.strip_suffix("counter").is_some_and(|noun| {
        matches!(
            noun,
            "request" | "requests" | "req" | "call" | "calls" | "query" | "queries"
        )
    })
}

/// `qps`, `rps`, `qpd`: queries (requests) per second, minute, hour or day, a
/// budget's own name (Mashery's `X-Plan-QPS-Allotted`, World Weather Online's
/// `X-WWO-Qpd-Left`, "total number of requests remaining for the day").
fn is_per_period_budget(t: &str) -> bool {
    matches!(
        t,
        "qps" | "qpm" | "qph" | "qpd" | "rps" | "rpm" | "rph" | "rpd"
    )
}

/// `API-KEY-MAX-LIMIT`, `API-KEY-USE-LIMIT`: a part, then `limit` last.
fn part_then_limit(tokens: &[&str]) -> Option<Name> {
    let [before @ .., p, last] = tokens else {
        return None;
    };
    if !matches!(*last, "limit" | "limits") {
        return None;
    }
    let part = part_of(p).or((*p == "use").then_some(Part::Used))?;
    Some(Name {
        family: before
            .iter()
            .copied()
            .filter(|t| *t != "x")
            .collect::<Vec<_>>()
            .join("-"),
        policy: String::new(),
        part,
        unit: None,
        by_shape_alone: false,
        needs_named_limit: false,
    })
}

/// A name written in one piece with its words' capitals (`remainingCallsPerSubscription`,
/// a header name an API gateway's policy lets its owner choose), lower-cased with a `-`
/// at each word's start; `None` for a name that already has separators or no humps, so
/// every other name is read as before. Bounded by the name's length.
fn humps_split(name: &str) -> Option<String> {
    if name.len() > 64
        || name.contains(['-', '_'])
        || !name.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        return None;
    }
    let bytes = name.as_bytes();
    let mut out = String::with_capacity(name.len() + 8);
    let mut humps = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if i > 0 && b.is_ascii_uppercase() && bytes[i - 1].is_ascii_lowercase() {
            out.push('-');
            humps += 1;
        }
        out.push(char::from(b.to_ascii_lowercase()));
    }
    (humps > 0).then_some(out)
}

/// `Remaining-Req` (Upbit), `x-remaining-calls` (ShipBob), `remaining-tokens`: a count
/// part, then what is counted, and nothing else but an extension header's `x` — or
/// `per` and whom the count is for (`remainingCallsPerSubscription`, as an API
/// management layer names the header), which names the policy.
fn count_of_requests(tokens: &[&str]) -> Option<Name> {
    let (p, noun, whose) = match tokens {
        ["x", p, noun] | [p, noun] => (*p, *noun, &[][..]),
        [p, noun, "per", whose @ ..] if !whose.is_empty() && whose.len() <= 2 => (*p, *noun, whose),
        _ => return None,
    };
    if !matches!(
        noun,
        "req" | "reqs" | "request" | "requests" | "call" | "calls" | "tokens"
    ) {
        return None;
    }
    let Some(part @ (Part::Limit | Part::Remaining)) = part_of(p) else {
        return None;
    };
    Some(Name {
        family: String::new(),
        policy: whose.join("-"),
        part,
        unit: None,
        by_shape_alone: false,
        needs_named_limit: false,
    })
}

/// A budget counted in what each call spends rather than in calls: credits, points or
/// units (`X-Scrapfly-Remaining-Api-Credit`, `x-remaining-credits` beside
/// `x-credits-consumed`, `X-API-Credits-Left`). The noun names the policy, so the budget
/// stays apart from a rate limit beside it; a count part anywhere in the name says
/// which count it is. What one call cost (`Spb-Cost`, `Ant-Credits-Cost`) has no part
/// and says nothing of what is left.
fn credit_budget(tokens: &[&str]) -> Option<Name> {
    let noun = tokens.iter().position(|t| is_spent_unit(t))?;
    let mut part = None;
    let mut family = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match part_of(t) {
            Some(p @ (Part::Limit | Part::Remaining | Part::Used)) if part.is_none() => {
                part = Some(p);
            }
            // A time part (`-credits-reset`) belongs to a family a rate-limit word names.
            Some(_) => return None,
            None if i != noun && *t != "x" => family.push(*t),
            None => {}
        }
    }
    Some(Name {
        family: family.join("-"),
        policy: tokens[noun].trim_end_matches('s').to_owned(),
        part: part?,
        unit: None,
        by_shape_alone: false,
        needs_named_limit: false,
    })
}

/// What a budget counts when a call spends more than one of it.
fn is_spent_unit(t: &str) -> bool {
    matches!(t, "credit" | "credits" | "points" | "units")
}

/// What the tokens after the rate-limit word say: the part, a time's unit, and the
/// words that name the policy.
struct Tail<'a> {
    part: Option<Part>,
    unit: Option<TimeUnit>,
    policy: Vec<&'a str>,
}

impl<'a> Tail<'a> {
    /// Reads `after` left to right: the first part, a unit only after a time, and every
    /// other word (but a reset's time form) into the policy.
    fn of(after: &[&'a str]) -> Self {
        let mut tail = Tail {
            part: None,
            unit: None,
            policy: Vec::new(),
        };
        let mut i = 0;
        while i < after.len() {
            let t = after[i];
            if tail.part.is_none() && t == "retry" && after.get(i + 1) == Some(&"after") {
                tail.part = Some(Part::Retry);
                i += 2;
                continue;
            }
            // `current` last is what is counted so far against the budget
            // (Mashery's `X-Plan-Quota-Current: 2` beside `-Allotted: 1000`); elsewhere
            // it may say which window (`-current-window`), so only there.
            if tail.part.is_none() && t == "current" && i + 1 == after.len() {
                tail.part = Some(Part::Used);
                i += 1;
                continue;
            }
            if tail.part.is_none()
                && let Some(p) = part_of(t)
            {
                // `reset-after` is a delta, read as a reset.
                tail.part = Some(p);
                if p == Part::Reset && after.get(i + 1) == Some(&"after") {
                    i += 1;
                }
            } else if matches!(tail.part, Some(Part::Reset | Part::Retry | Part::Window))
                && tail.unit.is_none()
                && let Some(u) = unit_of(t)
            {
                // Only a time has a unit; after a count, the word names the policy.
                tail.unit = Some(u);
            } else if tail.part == Some(Part::Reset) && time_form(t) {
                // `-Reset-Timestamp` (Bybit, Gate.io), `-Reset-Time`, `-Reset-Date`: how the
                // reset is written, which the value's shape already tells; not a policy.
            } else {
                tail.policy.push(t);
            }
            i += 1;
        }
        tail
    }
}

/// A family no rate-limit word names, read by its shape alone: `<family>-limit`,
/// `-remaining`, `-reset` (HipChat's `X-FloodControl-Limit` / `-Remaining` / `-Reset`).
/// Such a name is only a candidate; [`read`] keeps the family when it has both a limit
/// and a remaining count, which together say "a budget, and what is left of it".
fn family_by_shape(tokens: &[&str]) -> Option<Name> {
    let tokens = match tokens {
        ["x", rest @ ..] => rest,
        rest => rest,
    };
    if let Some(name) = used_by_shape(tokens) {
        return Some(name);
    }
    let [family @ .., last] = tokens else {
        return None;
    };
    let part = match *last {
        "limit" => Part::Limit,
        "remaining" => Part::Remaining,
        "reset" => Part::Reset,
        _ => return None,
    };
    if family.is_empty() || family.iter().any(|t| part_of(t).is_some()) {
        return None;
    }
    Some(Name {
        family: family.join("-"),
        policy: String::new(),
        part,
        unit: None,
        by_shape_alone: true,
        needs_named_limit: false,
    })
}

/// `<family>-usage`, `<family>-used`, a word saying the count is estimated allowed
/// before it (Brandfetch's `x-api-key-approximate-usage` beside `x-api-key-quota`):
/// what of the family's budget is spent. Named by its shape alone, it stands only beside
/// a limit a rate-limit word names under the same stem ([`Group::stands`]): a
/// `X-Disk-Usage` next to a `X-Disk-Limit` is no budget of calls.
fn used_by_shape(tokens: &[&str]) -> Option<Name> {
    let [family @ .., last] = tokens else {
        return None;
    };
    if !matches!(*last, "usage" | "used") {
        return None;
    }
    let family = match family {
        [
            stem @ ..,
            "approximate" | "approx" | "estimated" | "estimate",
        ] => stem,
        stem => stem,
    };
    // A count of requests in flight is a concurrency budget's ([`concurrency`]).
    let in_flight = |t: &&str| matches!(*t, "concurrent" | "concurrency");
    if family.is_empty() || family.iter().any(|t| part_of(t).is_some() || in_flight(t)) {
        return None;
    }
    Some(Name {
        family: family.join("-"),
        policy: String::new(),
        part: Part::Used,
        unit: None,
        by_shape_alone: true,
        needs_named_limit: true,
    })
}

/// A concurrency budget said with its own words (APIFreaks' `X-Concurrent-Threads: 5`
/// beside `X-Concurrent-Threads-Active: 2`): a name holding `concurrent` or
/// `concurrency` is the limit when nothing follows it but what is counted (`threads`,
/// `requests`), and what is in flight when it ends in `active`, `running`, `inflight`,
/// `current` or `used`. Requests in flight are spent capacity, so limit less active is
/// what is left. Read by its shape alone: a reply must carry the limit and a count
/// beside it, so a lone `X-Concurrent-Requests` (a setting echoed back) says nothing.
fn concurrency(tokens: &[&str]) -> Option<Name> {
    let tokens = match tokens {
        ["x", rest @ ..] => rest,
        rest => rest,
    };
    let at = tokens.iter().position(|t| t.starts_with("concurren"))?;
    if let Some(name) = part_before_concurrency(tokens, at) {
        return Some(name);
    }
    let (part, family) = match tokens.split_last()? {
        (last, head) if at < head.len() => match *last {
            "active" | "running" | "inflight" | "current" | "used" | "inuse" => (Part::Used, head),
            "limit" | "max" | "maximum" => (Part::Limit, head),
            "remaining" | "available" | "left" | "free" => (Part::Remaining, head),
            t if is_counted_noun(t) => (Part::Limit, tokens),
            _ => return None,
        },
        // The word itself last: `X-Concurrency`.
        _ => (Part::Limit, tokens),
    };
    // Only what is counted may sit between the word and the part: `concurrent-threads`,
    // not `concurrent-user-session-timeout-max`.
    if !family[at + 1..].iter().all(|t| is_counted_noun(t)) {
        return None;
    }
    // The family ends at the word, as when a counted noun is read as the rate-limit
    // word (`X-Concurrent-Requests-Limit`), so the fields of one budget meet.
    Some(Name {
        family: tokens[..=at].join("-"),
        policy: String::new(),
        part,
        unit: None,
        by_shape_alone: true,
        needs_named_limit: false,
    })
}

/// A concurrency budget whose part leads its name (ElevenLabs' `current-concurrent-requests`
/// beside `maximum-concurrent-requests`): one part word, the concurrency word, then only
/// what is counted. Both fields name the same family, so they meet as one budget.
fn part_before_concurrency(tokens: &[&str], at: usize) -> Option<Name> {
    let [first, word, counted @ ..] = tokens else {
        return None;
    };
    if at != 1 || counted.is_empty() || !counted.iter().all(|t| is_counted_noun(t)) {
        return None;
    }
    let part = match *first {
        "current" | "active" | "running" | "inflight" => Part::Used,
        "maximum" | "max" => Part::Limit,
        "remaining" | "available" => Part::Remaining,
        _ => return None,
    };
    Some(Name {
        family: (*word).to_owned(),
        policy: String::new(),
        part,
        unit: None,
        by_shape_alone: true,
        needs_named_limit: false,
    })
}

/// What a concurrency budget counts.
fn is_counted_noun(t: &str) -> bool {
    matches!(
        t,
        "threads"
            | "thread"
            | "requests"
            | "request"
            | "calls"
            | "call"
            | "connections"
            | "sessions"
            | "jobs"
            | "slots"
            | "tasks"
    )
}

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    let mut groups: Vec<Group> = Vec::new();
    let mut seen = 0;
    // `count:window` pairs need their `-count` companion.
    let mut pairs: Vec<Pairs> = Vec::new();
    for (name, value) in h.iter() {
        let name = name.trim();
        if claimed(name) {
            continue;
        }
        let Some(parsed) = parse_name(name) else {
            continue;
        };
        seen += 1;
        if seen > MAX_FIELDS {
            break;
        }
        let value = &value[..value.len().min(MAX_VALUE)];
        let Ok(text) = std::str::from_utf8(value) else {
            continue;
        };
        let text = text.trim();
        if matches!(parsed.part, Part::Limit | Part::Remaining)
            && let Some(per) = period_counts(text)
        {
            emit_period_counts(&per, parsed.part, out);
            continue;
        }
        if let Some(list) = count_window_pairs(text) {
            let key = format!("{}|{}", parsed.family, parsed.policy);
            pairs.push((key, list, parsed.part == Part::Used));
            continue;
        }
        let named = !parsed.policy.is_empty();
        let policy = if named {
            parsed.policy.clone()
        } else if !parsed.family.is_empty() {
            parsed.family.clone()
        } else {
            "default".to_owned()
        };
        let g = match groups
            .iter()
            .position(|g| g.family == parsed.family && g.policy == policy)
        {
            Some(i) => &mut groups[i],
            None => {
                groups.push(Group {
                    family: parsed.family.clone(),
                    policy,
                    by_shape_alone: parsed.by_shape_alone,
                    ..Group::default()
                });
                let last = groups.len() - 1;
                &mut groups[last]
            }
        };
        read_value(g, &parsed, text, now, out);
        if parsed.part == Part::Used && g.used.is_some() && g.used_field.is_none() {
            g.used_field = Some(name.to_owned());
        }
        match parsed.part {
            Part::Limit => g.limit_named |= !parsed.by_shape_alone && g.limit.is_some(),
            Part::Used => g.used_by_shape |= parsed.needs_named_limit && g.used.is_some(),
            _ => {}
        }
    }
    // A count made beside a limit a vendor module reads (`X-RateLimit-Count` beside
    // GitHub's `X-RateLimit-Limit`): the rest of the limit is what is left.
    for g in &mut groups {
        if g.limit.is_none()
            && g.remaining.is_none()
            && let (Some(used), Some(field)) = (g.used, g.used_field.as_deref())
        {
            g.limit = limit_beside(h, field).filter(|limit| used <= *limit);
        }
    }
    join::echoes(&mut groups);
    join::bare_groups(&mut groups);
    groups.retain(Group::stands);
    for g in groups {
        g.emit(out);
    }
    read_pairs(&pairs, out);
}

/// The limit sent beside a used-count field under the same stem, when a vendor module
/// claims it (`X-RateLimit-Limit` beside `X-RateLimit-Count`, `RateLimit-Limit` beside
/// `RateLimit-Used`); a limit no module claims is read with its group already.
fn limit_beside(h: &Headers<'_>, used_field: &str) -> Option<u64> {
    let cut = used_field.rfind(['-', '_'])?;
    let sibling = format!("{}limit", &used_field[..=cut]);
    if !claimed(&sibling) {
        return None;
    }
    let value = std::str::from_utf8(h.get(&sibling)?).ok()?;
    num::limit(value.trim())
}

/// Reads a field a vendor module claims by name but whose value is a `key=value` or
/// `key:value` list rather than the count the module expects (App Store Connect's
/// `X-Rate-Limit: user-hour-lim:3600;user-hour-rem:3599;`, where Zendesk sends
/// `X-Rate-Limit: 700`). Returns whether the value was such a list.
pub(crate) fn read_key_value_list(text: &str, now: DateTime<Utc>, out: &mut Collector) -> bool {
    let text = text.trim();
    if text.len() > MAX_VALUE || key_values(text).is_none() {
        return false;
    }
    let mut g = Group {
        policy: "default".to_owned(),
        ..Group::default()
    };
    let name = Name {
        family: String::new(),
        policy: String::new(),
        part: Part::Limit,
        unit: None,
        by_shape_alone: false,
        needs_named_limit: false,
    };
    read_value(&mut g, &name, text, now, out);
    g.emit(out);
    true
}

impl Group {
    /// The group's quota (one per window when its fields list several).
    /// Whether the group is a budget to report. A family named by its shape alone
    /// stands when the reply gives its size and what is left of it, or what of it is
    /// spent (the rest is then what is left); a spent count named by its shape alone
    /// needs a limit a rate-limit word names.
    fn stands(&self) -> bool {
        let spent = self.used.is_some() && (self.limit_named || !self.used_by_shape);
        !self.by_shape_alone || (self.limit.is_some() && (self.remaining.is_some() || spent))
    }

    fn emit(self, out: &mut Collector) {
        if self.lists.is_list() {
            for q in self.listed() {
                out.quota(q);
            }
            return;
        }
        // A budget told only by what was used and what is left (`api-credits-used: 7`
        // beside `api-credits-left: 1`) is as large as both together.
        let limit = self
            .limit
            .or_else(|| self.used?.checked_add(self.remaining?));
        let remaining = self
            .remaining
            .or_else(|| Some(limit?.saturating_sub(self.used?)));
        // A reply whose own request opened a new window (one unit of the budget used)
        // sees that window's whole length as its reset.
        let opened_window = matches!(
            (limit, remaining),
            (Some(limit), Some(left)) if limit >= 2 && left == limit - 1
        );
        let reset_after = match self.bare_reset {
            Some(bare) if opened_window => reset::opening_countdown(bare).or(self.reset),
            _ => self.reset,
        };
        out.quota(Quota {
            limit,
            remaining,
            reset_after,
            window: self.window,
            ..Quota::new(self.policy)
        });
    }

    /// One quota per listed window; fields given once belong to the first.
    fn listed(self) -> Vec<Quota> {
        let mut lists = self.lists;
        let one = |v: Option<u64>| v.into_iter().collect::<Vec<u64>>();
        if lists.limit.is_empty() {
            lists.limit = one(self.limit);
        }
        if lists.remaining.is_empty() {
            lists.remaining = one(self.remaining);
        }
        if lists.used.is_empty() {
            lists.used = one(self.used);
        }
        // A `key=value` list of several windows gives each its own reset and window.
        if lists.reset.is_empty() {
            lists.reset = vec![self.reset];
        }
        if lists.window.is_empty() {
            lists.window = vec![self.window];
        }
        lists.quotas(&self.policy)
    }
}

/// Reads one value into its group.
fn read_value(g: &mut Group, name: &Name, text: &str, now: DateTime<Utc>, out: &mut Collector) {
    if let Some(kv) = key_values(text) {
        let runs = windows_of(&kv);
        read_members(g, runs.first().copied().unwrap_or_default(), now, out);
        if runs.len() > 1 {
            list_windows(g, &runs, now, out);
        }
        return;
    }
    match name.part {
        Part::Limit | Part::Remaining | Part::Used => {
            // A count after its policy's name (`name=rate-limit,100;`).
            let text = crate::named_count::strip(text);
            if let Some((used, limit)) = used_of_limit(text) {
                g.limit = g.limit.or(Some(limit));
                g.used = g.used.or(Some(used));
                return;
            }
            let Some(n) = leading_count(text) else {
                // A limit that is its window's length (`1d`) says the period of the
                // counts beside it.
                if name.part == Part::Limit
                    && let Some(w) = crate::per_window::length(text)
                {
                    g.window = g.window.or(Some(w));
                }
                return;
            };
            // A limit with a fraction is a rate (Amazon's `0.5000` requests a second),
            // not a count of calls: reading it as one would say the limit is 0.
            if name.part == Part::Limit
                && text.split([',', ';', ' ']).next().is_some_and(|first| {
                    num::limit(first.trim()).is_none() && crate::per_window::read(first).is_none()
                })
            {
                return;
            }
            if let Some(list) = window_list::counts(text).filter(|l| l.len() > 1) {
                let slot = match name.part {
                    Part::Limit => &mut g.lists.limit,
                    Part::Remaining => &mut g.lists.remaining,
                    _ => &mut g.lists.used,
                };
                if slot.is_empty() {
                    *slot = list;
                }
            }
            match name.part {
                Part::Limit => {
                    g.limit = g.limit.or(Some(n));
                    g.window = g.window.or_else(|| inline_window(text, n));
                }
                Part::Remaining => g.remaining = g.remaining.or(Some(n)),
                _ => g.used = g.used.or(Some(n)),
            }
        }
        Part::Reset => {
            if g.reset.is_none() && name.unit.is_none() {
                g.bare_reset = num::parse_u64(text);
            }
            g.reset = g
                .reset
                .or_else(|| duration(text, name.unit, now, reset::MAX_RESET));
        }
        Part::Window => {
            g.window = g
                .window
                .or_else(|| duration(text, name.unit, now, reset::MAX_RESET))
                .or_else(|| period_word(text));
        }
        Part::Retry => {
            if let Some(d) = duration(text, name.unit, now, MAX_WAIT) {
                out.wait(d);
            }
        }
    }
}

/// Counts per period in one `key=value` list, as Upbit's `Remaining-Req: group=default;
/// min=1800; sec=29` sends what is left this minute and this second: each period key
/// (`sec`, `min`, `hour`, `day` and their spellings) with its count, and the label of
/// the one other key with a word for a value (`group=default`), which names the
/// policy. `None` unless every member is one of the two and a period is among them.
fn period_counts(text: &str) -> Option<PeriodCounts<'_>> {
    if !text.contains('=') {
        return None;
    }
    let mut out = PeriodCounts::default();
    for member in text.split([';', ',']).take(16) {
        let member = member.trim();
        if member.is_empty() {
            continue;
        }
        let (k, v) = member.split_once('=')?;
        let (k, v) = (k.trim(), v.trim());
        match num::period_seconds(&k.to_ascii_lowercase()) {
            Some(window) => out.counts.push((k, window, num::parse_u64(v)?)),
            None if out.label.is_none()
                && !v.is_empty()
                && v.len() <= 40
                && v.bytes()
                    .all(|b| b.is_ascii_alphabetic() || b == b'-' || b == b'_') =>
            {
                out.label = Some(v);
            }
            None => return None,
        }
    }
    (!out.counts.is_empty()).then_some(out)
}

#[derive(Default)]
struct PeriodCounts<'a> {
    label: Option<&'a str>,
    /// The key as sent, its window in seconds, and the count.
    counts: Vec<(&'a str, u64, u64)>,
}

/// One quota per period, the count being the field's part.
fn emit_period_counts(per: &PeriodCounts<'_>, part: Part, out: &mut Collector) {
    let label = per.label.unwrap_or("default");
    for (key, window, count) in &per.counts {
        let (limit, remaining) = match part {
            Part::Limit => (Some(*count), None),
            _ => (None, Some(*count)),
        };
        out.quota(Quota {
            limit,
            remaining,
            window: Some(Duration::from_secs(*window)),
            ..Quota::new(format!("{label}-{key}"))
        });
    }
}

/// `count:window` pairs (`20:1,100:120`): one quota per window; the `-count` field
/// says how many were used.
fn read_pairs(pairs: &[Pairs], out: &mut Collector) {
    for (key, limits, is_count) in pairs {
        if *is_count {
            continue;
        }
        let used = pairs
            .iter()
            .find(|(k, _, c)| *c && k == key)
            .map(|(_, l, _)| l.as_slice())
            .unwrap_or_default();
        let family = key.split('|').next().unwrap_or("");
        for (limit, window) in limits {
            let used_now = used.iter().find(|(_, w)| w == window).map(|(n, _)| *n);
            let name = if family.is_empty() {
                format!("{window}s")
            } else {
                format!("{family}-{window}s")
            };
            out.quota(Quota {
                limit: Some(*limit),
                remaining: used_now.map(|u| limit.saturating_sub(u)),
                window: Some(Duration::from_secs(*window).min(reset::MAX_RESET)),
                ..Quota::new(name)
            });
        }
    }
}

/// `N:W[,N:W…]` with every member a pair of integers.
fn count_window_pairs(text: &str) -> Option<Vec<(u64, u64)>> {
    if !text.contains(':') || text.contains('=') {
        return None;
    }
    text.split(',')
        .take(16)
        .map(|p| {
            let (n, w) = p.trim().split_once(':')?;
            let (n, w) = (num::parse_u64(n)?, num::parse_u64(w)?);
            (w > 0).then_some((n, w))
        })
        .collect()
}

/// Reads the members of a `key=value` list into `g`, each by the part its key names.
fn read_members(g: &mut Group, kv: &[(&str, &str)], now: DateTime<Utc>, out: &mut Collector) {
    for (k, v) in kv {
        let Some(part) = key_part(k) else {
            continue;
        };
        let sub = Name {
            family: String::new(),
            policy: String::new(),
            part,
            unit: None,
            by_shape_alone: false,
            needs_named_limit: false,
        };
        read_value(g, &sub, v, now, out);
    }
}

/// The windows a `key=value` list holds: a part's key that comes back starts the next
/// one, as Unity's `Unity-RateLimit: limit=20, remaining=19, reset=1; limit=4000,
/// remaining=3994, reset=1579` lists every window it counts. One run when no part
/// repeats.
fn windows_of<'a, 'b>(kv: &'b [(&'a str, &'a str)]) -> Vec<&'b [(&'a str, &'a str)]> {
    let mut runs = Vec::new();
    let mut start = 0;
    let mut seen: Vec<Part> = Vec::new();
    for (i, (k, _)) in kv.iter().enumerate() {
        let Some(part) = key_part(k) else {
            continue;
        };
        if seen.contains(&part) {
            runs.push(&kv[start..i]);
            start = i;
            seen.clear();
        }
        seen.push(part);
    }
    runs.push(&kv[start..]);
    runs
}

/// One quota per window of a list whose parts repeat, when every window gives the same
/// counts (a list whose windows say different things is not read as windows: its first
/// values stand alone, as before).
fn list_windows(g: &mut Group, runs: &[&[(&str, &str)]], now: DateTime<Utc>, out: &mut Collector) {
    let each: Vec<Group> = runs
        .iter()
        .map(|run| {
            let mut w = Group::default();
            read_members(&mut w, run, now, out);
            w
        })
        .collect();
    let all = |f: fn(&Group) -> Option<u64>| each.iter().map(f).collect::<Option<Vec<u64>>>();
    let none = |f: fn(&Group) -> Option<u64>| each.iter().all(|w| f(w).is_none());
    let counts = [
        (all(|w| w.limit), none(|w| w.limit)),
        (all(|w| w.remaining), none(|w| w.remaining)),
        (all(|w| w.used), none(|w| w.used)),
    ];
    // Each count is given by every window or by none of them.
    if counts.iter().any(|(every, no)| every.is_none() && !no)
        || counts.iter().all(|(every, _)| every.is_none())
    {
        return;
    }
    let [(limit, _), (remaining, _), (used, _)] = counts;
    g.lists.limit = limit.unwrap_or_default();
    g.lists.remaining = remaining.unwrap_or_default();
    g.lists.used = used.unwrap_or_default();
    g.lists.reset = each.iter().map(|w| w.reset).collect();
    g.lists.window = each.iter().map(|w| w.window).collect();
}

/// `key=value; key=value` or `key:value; key:value` (at least one key a part name).
fn key_values(text: &str) -> Option<Vec<(&str, &str)>> {
    if !(text.contains('=') || text.contains(':')) || text.starts_with('"') {
        return None;
    }
    let mut out = Vec::new();
    for member in text.split([';', ',']).take(16) {
        let member = member.trim();
        if member.is_empty() {
            continue;
        }
        let (k, v) = member.split_once('=').or_else(|| member.split_once(':'))?;
        let k = k.trim();
        if k.is_empty()
            || !k
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return None;
        }
        out.push((k, v.trim()));
    }
    let known = out.iter().any(|(k, _)| key_part(k).is_some());
    (known && !out.is_empty()).then_some(out)
}

/// The part a key of a `key=value` list names: the whole key (`limit`, `retry-after`),
/// else its last word, where keys also name their policy and abbreviate the part, as
/// App Store Connect's `X-Rate-Limit: user-hour-lim:3600;user-hour-rem:3599;` does.
fn key_part(key: &str) -> Option<Part> {
    let key = key.to_ascii_lowercase();
    part_of(&key.replace(['-', '_'], "")).or_else(|| {
        let (_, last) = key.rsplit_once(['-', '_'])?;
        match last {
            "lim" => Some(Part::Limit),
            "rem" => Some(Part::Remaining),
            _ => part_of(last),
        }
    })
}

/// `used/limit`, as Shopify and Gorgias send it.
fn used_of_limit(text: &str) -> Option<(u64, u64)> {
    let (u, l) = text.split_once('/')?;
    Some((num::parse_u64(u)?, num::parse_u64(l)?))
}

/// The leading count of a value: `42`, `42.0`, `100, 100;w=60`, `150/15m`. Negative values
/// (placeholders such as `-1`) are not counts.
pub(crate) fn leading_count(text: &str) -> Option<u64> {
    let first = text.split([',', ';', ' ']).next()?.trim();
    num::parse_u64(first)
        .or_else(|| num::parse_decimal(first).map(|(w, _)| w))
        // A count with its window (ESI's `150/15m`).
        .or_else(|| crate::per_window::read(first).map(|(count, _)| count))
}

/// The window of the inline policy (`100;w=60` or `100;window=60`) matching `limit`.
pub(crate) fn inline_window(text: &str, limit: u64) -> Option<Duration> {
    if let Some((count, window)) = text.split(',').next().and_then(crate::per_window::read)
        && count == limit
    {
        return Some(window);
    }
    for member in text.split(',').skip(1).take(16) {
        let mut parts = member.split(';');
        let Some(n) = parts.next().and_then(num::parse_u64) else {
            continue;
        };
        if n != limit {
            continue;
        }
        for p in parts {
            if let Some((k, v)) = p.split_once('=')
                && matches!(k.trim(), "w" | "window")
                && let Some(s) = num::parse_u64(v)
            {
                return Some(Duration::from_secs(s).min(reset::MAX_RESET));
            }
        }
    }
    None
}

/// A duration or instant in any unit: a number in the field's unit (seconds when
/// none), else every reset shape [`reset::parse_str`] knows.
fn duration(
    text: &str,
    unit: Option<TimeUnit>,
    now: DateTime<Utc>,
    cap: Duration,
) -> Option<Duration> {
    match unit {
        Some(unit) => unit.decimal(text, cap),
        None => reset::parse_str(text, now)
            .or_else(|| retry_after::parse(text.as_bytes(), now))
            .map(|d| d.min(cap)),
    }
}

/// A window written as the period it spans: urlscan.io's `X-Rate-Limit-Window: minute`,
/// Entur's `rate-limit-range: per-minute`. Only a period word, alone or after `per`, is
/// one; any other word says nothing of the window.
fn period_word(text: &str) -> Option<Duration> {
    let word = text.trim().trim_matches('"').as_bytes();
    // Lower-cased on the stack: a period word is short, anything longer is none.
    let mut buf = [0u8; 16];
    let lower = buf.get_mut(..word.len())?;
    lower.copy_from_slice(word);
    lower.make_ascii_lowercase();
    let word = std::str::from_utf8(lower).ok()?;
    let word = word
        .strip_prefix("per")
        .map_or(word, |w| w.trim_start_matches(['-', '_', ' ']));
    num::period_seconds(word).map(Duration::from_secs)
}

#[cfg(test)]
mod tests;
