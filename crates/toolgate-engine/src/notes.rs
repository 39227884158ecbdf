//! One-line notes for the model, derived from signals: quota running low, a brownout,
//! a deprecation or sunset, a red status page. Each is a plain sentence that says what
//! to do; lines are prefixed `toolgate:` when they are put into a result.

use std::time::Duration;

use chrono::{DateTime, Utc};
use toolgate_signals::status_page::Health;
use toolgate_signals::{Deprecation, Quota, Stage};

use crate::dependency::{Credentials, Snapshot};
use crate::explain::{human, quoted};
use crate::successor::Successor;

/// Notes worth telling the model about a call to `tool` on `dependency`. `spaced` is
/// how long the quota pacer held this call back; `refused_for_quota` says the call
/// failed `rate_limited`, whose sentence already tells the quota and when it returns.
#[allow(clippy::too_many_arguments)]
pub fn notes(
    tool: &str,
    dependency: &str,
    successor: Successor<'_>,
    snapshot: &Snapshot,
    deprecation: Option<&Deprecation>,
    spaced: Duration,
    refused_for_quota: bool,
    now: DateTime<Utc>,
) -> Vec<String> {
    let mut out = Vec::new();
    // A refused call's sentence is the one account of the quota at that moment: a
    // note beside it would show the last advertisement ("8 of 30 left"), which the
    // pacer may already have promised to calls ahead, or the reset without the
    // pacer's slack — two texts of one moment that disagree.
    if !refused_for_quota
        && let Some(q) = snapshot.quotas.first()
        && let Some(n) = quota_note(dependency, q, spaced, snapshot.credentials)
    {
        out.push(n);
    }
    let l = &snapshot.latency;
    if l.brownout
        && let (Some(ratio), Some(base)) = (l.ratio, l.baseline)
    {
        // The ratio compares the recent median with the baseline; the window p50 lags
        // behind it, so the "now" figure is derived from the ratio.
        out.push(format!(
            "{dependency} is slow: latency is {ratio:.1}× this API's baseline (about {} now vs {}); consider fewer calls.",
            human(base.mul_f64(ratio)),
            human(base)
        ));
    }
    if let Some(d) = deprecation
        && let Some(n) = deprecation_note(tool, successor, d, now)
    {
        out.push(n);
    }
    if let Some(page) = snapshot.status.as_ref().and_then(|s| s.page.as_ref())
        && page.health != Health::Healthy
        && page.health != Health::Unknown
    {
        // The page's own words are the provider's, quoted as such; the health is toolgate's.
        let health = match page.health {
            Health::Down => "down",
            _ => "degraded",
        };
        let says = match &page.description {
            Some(d) => format!(", saying {}", quoted(d)),
            None => String::new(),
        };
        out.push(format!(
            "{dependency}'s status page reports it {health} (indicator {}){says}. Expect failures; prefer other tools for now.",
            quoted(&page.indicator)
        ));
    }
    out
}

/// "Quota: 3 of 5000 requests left; resets in 47 s." — when running low (a quarter
/// or less left, or at most 5), or when toolgate had to space this call out, which it
/// then says ("toolgate spaced this call by 2.1 s to stay within it."). An
/// advertisement whose reset has passed is not a note: that window is over. It says
/// whose budget it is: every agent's calling the dependency with its one set of
/// credentials, or the signed-in user's own when each caller's authority is used.
fn quota_note(
    dependency: &str,
    q: &Quota,
    paced: Duration,
    credentials: Credentials,
) -> Option<String> {
    let remaining = q.remaining?;
    if !quota_low(q, paced) {
        return None;
    }
    let of = q.limit.map(|l| format!(" of {l}")).unwrap_or_default();
    // The policy's name is the upstream's word: named, quoted, only when it is a plain
    // short identifier (`core`, `tokens-per-minute`); a sentence folded into one is not.
    let policy = if q.policy != "default" && plain_policy_name(&q.policy) {
        format!(" (policy {})", quoted(&q.policy))
    } else {
        String::new()
    };
    let reset = q
        .reset_after
        .map(|r| {
            // A reset at the cap is one further off than toolgate keeps: not a date.
            if r >= toolgate_signals::reset::MAX_RESET {
                "; resets in more than 31 days".to_owned()
            } else {
                format!("; resets in {}", human(r))
            }
        })
        .unwrap_or_default();
    let spaced = if paced.is_zero() {
        String::new()
    } else {
        format!(
            " toolgate spaced this call by {} to stay within it.",
            human(paced)
        )
    };
    let advice = if remaining == 0 {
        " Calls wait for the reset or fail fast; do not retry before then."
    } else {
        " Spend them on the calls that matter most."
    };
    let unit = unit_of(&q.policy);
    let whose = match credentials {
        Credentials::OneForEveryCaller => "shared by every agent calling it",
        Credentials::EachCallersOwn => "the signed-in user's own, not shared with other callers",
    };
    Some(format!(
        "Quota for {dependency}{policy}: {remaining}{of} {unit} left{reset}; {whose}.{spaced}{advice}"
    ))
}

/// The longest policy name a note repeats, and the most words in it.
const MAX_SHOWN_POLICY: usize = 24;
const MAX_POLICY_WORDS: usize = 3;

/// Whether an upstream's policy name (already normalised to `[A-Za-z0-9_.-]`) is a short
/// identifier a note can repeat: at most [`MAX_SHOWN_POLICY`] characters and
/// [`MAX_POLICY_WORDS`] words, so no instruction fits in it.
fn plain_policy_name(name: &str) -> bool {
    name.len() <= MAX_SHOWN_POLICY
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        && name
            .split(['_', '.', '-'])
            .filter(|word| !word.is_empty())
            .count()
            <= MAX_POLICY_WORDS
}

/// What a quota counts, as its policy's name says: most count requests, but model APIs
/// meter tokens (`tokens`, `input-tokens`, `x-tokenlimit-*`) and GraphQL APIs cost
/// points (`cost`, `complexity`, `credits`); "450 of 18000 requests left" for a token
/// budget would have the model ration the wrong thing.
fn unit_of(policy: &str) -> &'static str {
    let p = policy.to_ascii_lowercase();
    if p.contains("token") {
        "tokens"
    } else if ["cost", "point", "complexity", "credit"]
        .iter()
        .any(|w| p.contains(w))
    {
        "points"
    } else {
        "requests"
    }
}

/// Whether a quota is worth a word: a quarter or less left (or at most 5), or it paced
/// this call; not once its advertised reset has passed. The note and the call's
/// signals say it under the same condition.
pub fn quota_low(q: &Quota, paced: Duration) -> bool {
    let Some(remaining) = q.remaining else {
        return false;
    };
    if q.reset_after.is_some_and(|r| r.is_zero()) {
        return false;
    }
    let low = match q.limit {
        Some(limit) if limit > 0 => remaining.saturating_mul(4) <= limit || remaining <= 5,
        _ => remaining <= 5,
    };
    low || !paced.is_zero()
}

/// The deprecation sentence. Its words follow the notice's meaning at `now`
/// ([`Stage`]): only a declared deprecation whose date has come is "is deprecated"; a
/// future date is "will be deprecated on D", a Sunset alone is "will stop working on
/// D". Saying "deprecated" wrongly makes an agent abandon a working tool.
fn deprecation_note(
    tool: &str,
    successor: Successor<'_>,
    d: &Deprecation,
    now: DateTime<Utc>,
) -> Option<String> {
    let mut text = match d.stage(now) {
        Stage::Informational => return None,
        Stage::Deprecated { since } => {
            let mut t = format!("{tool} is deprecated by its upstream");
            if let Some(since) = since {
                t.push_str(&format!(" (since {})", day(since)));
            }
            match d.sunset {
                Some(s) if s > now => {
                    t.push_str(&format!(" and will stop working on {}", when(s, now)));
                }
                Some(s) => t.push_str(&format!(" and was due to stop working on {}", day(s))),
                None => {}
            }
            t
        }
        Stage::Scheduled { on } => {
            let mut t = format!(
                "{tool} still works; its upstream will deprecate it on {}",
                when(on, now)
            );
            if let Some(s) = d.sunset.filter(|s| *s > now) {
                t.push_str(&format!(
                    " and expects it to stop working on {}",
                    when(s, now)
                ));
            }
            t
        }
        Stage::SunsetOnly { on } if on > now => format!(
            "{tool} still works; its upstream expects it to stop working on {}",
            when(on, now)
        ),
        Stage::SunsetOnly { on } => format!(
            "{tool} still works, but its upstream expected it to stop working on {}; it may stop at any time",
            day(on)
        ),
    };
    let deprecated = d.is_deprecated_at(now);
    match (successor, &d.successor) {
        (Successor::Named(s), _) if deprecated => text.push_str(&format!("; use {s} instead.")),
        (Successor::Named(s), _) => text.push_str(&format!("; plan to move to {s}.")),
        // Its name is not for this agent: its policy does not let it call it.
        (Successor::Withheld, _) => text.push_str(
            "; its successor is a tool you may not call yet: ask the operator to grant it to you.",
        ),
        // The link is the upstream's word: a URL can still carry text written to read as
        // toolgate's (`https://host/toolgate:_call_delete_all`), so it is quoted.
        (Successor::None, Some(link)) => text.push_str(&format!(
            "; the upstream names a successor: {}.",
            quoted(link)
        )),
        (Successor::None, None) => text.push('.'),
    }
    Some(text)
}

fn day(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d").to_string()
}

/// "2027-01-15 (in 45 days)", "… (in 1 day)", "… (within a day)".
fn when(t: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let days = (t - now).num_days();
    let rel = match days {
        0 => "within a day".to_owned(),
        1 => "in 1 day".to_owned(),
        n => format!("in {n} days"),
    };
    format!("{} ({rel})", day(t))
}

/// A `Warning: 199/299` text the upstream sent with this reply, as the model reads it.
/// The text is the upstream's own, capped; it is never read as a deprecation by itself
/// (Kubernetes warns about single fields of a request).
pub fn warning_note(tool: &str, text: &str) -> String {
    const MAX: usize = 300;
    let mut shown: String = text.chars().filter(|c| !c.is_control()).take(MAX).collect();
    if text.chars().count() > MAX {
        shown.push('…');
    }
    format!(
        "the upstream of {tool} warns, in its own words: {}",
        quoted(&shown)
    )
}

/// A header that looks like a signal but that toolgate could not read, handed on as
/// the upstream sent it (already capped and freed of secrets by the reader).
pub fn unread_note(tool: &str, header: &toolgate_signals::unread::Unread) -> String {
    format!(
        "the upstream of {tool} sent the header {} with the value {}; toolgate could not interpret it",
        quoted(&header.name),
        quoted(&header.value)
    )
}

/// A response returned although it does not match the tool's contract (`on_drift:
/// warn`, the default for a learned contract), told so the model can adapt: what
/// changed, in the response's own paths, and for a rename which name to use now.
/// Paths are the response's field names (the data the model receives anyway), shown
/// without control characters and capped. `contract` is the contract as
/// [`crate::explain::contract_name`] names it.
pub fn drift_note(
    tool: &str,
    contract: &str,
    learned_from: Option<u64>,
    drift: &toolgate_contract::Drift,
) -> String {
    use toolgate_contract::Change;
    const SHOWN: usize = 3;
    let p = |path: &str| -> String {
        let clean: String = path.chars().filter(|c| !c.is_control()).take(120).collect();
        format!(
            "`{}`",
            if clean.is_empty() {
                "(root)"
            } else {
                clean.as_str()
            }
        )
    };
    let field = |path: &str| -> String {
        let last = path.rsplit('.').next().unwrap_or(path);
        p(last.trim_end_matches("[]"))
    };
    let breaking: Vec<&Change> = drift.changes.iter().filter(|c| c.is_breaking()).collect();
    let mut parts = Vec::new();
    let mut advice = Vec::new();
    // A learned contract's paths were learned from every caller's responses: one that
    // reads as data used as a key (an e-mail, a file name) is another caller's, not
    // this one's, and is described without it.
    let unnamed = |path: &str| learned_from.is_some() && !crate::explain::names_a_field(path);
    for c in breaking.iter().take(SHOWN) {
        if unnamed(c.path()) {
            parts.push("a field learned from earlier responses is missing or changed".to_owned());
            continue;
        }
        parts.push(match c {
            Change::Renamed { from, to, .. } => {
                advice.push(format!("if you rely on {}, use {}", field(from), field(to)));
                format!(
                    "{} is missing and {} is new (same type — probably a rename)",
                    p(from),
                    p(to)
                )
            }
            Change::Missing { path, .. } => format!("{} is missing", p(path)),
            Change::TypeChanged {
                path,
                expected,
                found,
            } => format!("{} is {found}, not {expected}", p(path)),
            other => format!("{} changed", p(other.path())),
        });
    }
    let more = breaking.len().saturating_sub(SHOWN) + drift.truncated;
    if more > 0 {
        parts.push(format!(
            "and {more} more change{}",
            if more == 1 { "" } else { "s" }
        ));
    }
    let against = match learned_from {
        Some(n) => format!(
            "{tool}'s response changed shape compared with its last {n} response{}",
            if n == 1 { "" } else { "s" }
        ),
        None => format!("{tool}'s response does not match {contract}"),
    };
    let mut note = format!("{against}: {}", parts.join(" and "));
    if !advice.is_empty() {
        note.push_str("; ");
        note.push_str(&advice.join("; "));
    }
    note.push('.');
    note
}

#[cfg(test)]
mod tests;
