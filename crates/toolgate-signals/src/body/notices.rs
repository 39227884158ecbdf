//! Deprecation notices a successful JSON answer carries beside its data.
//!
//! An API that cannot change its status or headers says it in the body, on a 200:
//! - Slack (<https://api.slack.com/changelog/2016-09-28-response-metadata-is-on-the-way>):
//!   a top-level `warning` and `response_metadata.warnings`, codes such as
//!   `method_deprecated` (rtm.start, 2021) beside `missing_charset`;
//! - legacy API versions that add a top-level `warning` text (CC Catalog, Sourcify,
//!   AdoptOpenJDK) or a `warnings[]` array (Firecrawl's deprecated endpoints; the
//!   `warnings` of draft-cedik-http-warning, problem details with `detail` and `title`);
//! - JSON:API-style `meta` (OPTIMADE's `meta.warnings[]`, `meta.deprecation`);
//! - a notice typed by a code inside `meta` (Foursquare v2's `meta.errorType:
//!   "deprecated"` on a 200, its words in `errorDetail`);
//! - notice objects whose words sit in `notice` and whose deadline is the date the
//!   caller must act by (NVIDIA NICo's `deprecations[]` of `{endpoint, replacedBy,
//!   takeActionBy, notice}`);
//! - the envelope's own message on a success (Etherscan's V1 endpoints: `{"status":
//!   "0", "message": "NOTOK", "result": "You are using a deprecated V1 endpoint, …"}`).
//!
//! The rule: a member whose name speaks of a warning, deprecation, notice or sunset, at
//! the top of the answer or inside `meta`, `metadata` or `response_metadata`, is a notice
//! when its text speaks of a deprecation, removal or end of life
//! ([`warning::speaks_of_retirement`]); it is passed on verbatim, and declares the called
//! resource deprecated (with the dates and successor its words give) only when its words
//! are about the API, endpoint, method or version rather than one field
//! ([`warning::what_it_says`]; codes read as words). Dates in such a notice object (`"sunset": "2026-09-30"`,
//! `"takeActionBy": "2025-09-01T00:00:00Z"`) are its end date. A `warning` inside a data
//! record is the record's, not the answer's, so only those two levels are read. The
//! top-level `message` (or `msg`, or a `result` that is a text) is read only beside an
//! envelope member (`status`, `ok`, `success`, `code`, `data`, `items`, …), beside
//! nothing but lists (Cal.com's `{"message": "…", "bookings": []}`) or alone (disease.sh's
//! deprecated v1 `/historical`, kept answering `{"message": "…"}`): otherwise the object
//! is a record (a commit's `message` beside its author and tree), and its words are its
//! own.
//!
//! Only the first and last [`super::SUCCESS_WINDOW`] bytes are looked at, and only after
//! a substring search finds one of the words (a key written in capitals is not looked
//! for): the call path pays for nothing else.
//! Where a member sits is found by scanning the window's structure from its own end of
//! the body (forward in the first window, backward in the last), so a key quoted inside
//! a string or nested in the data is not taken for a member.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::words::{Ends, Set};
use crate::walk::normalise;
use crate::warning::{self, Retirement, Said};
use crate::{Deprecation, reset};

/// Notices kept from one answer.
const MAX_NOTICES: usize = 4;
/// Characters kept of one notice.
const MAX_TEXT: usize = 300;
/// Members of the top level looked at per window.
const MAX_MEMBERS: usize = 64;
/// Items of one notice array looked at.
const MAX_ITEMS: usize = 8;
/// Backslashes looked back over to tell an escaped quote.
const MAX_ESCAPES: usize = 64;

/// Containers whose members speak about the answer, not about the data.
const CONTAINERS: [&str; 3] = ["meta", "metadata", "responsemetadata"];
/// Members of a notice object that hold its text, in order of preference.
const TEXTS: [&str; 9] = [
    "message",
    "notice",
    "detail",
    "description",
    "text",
    "title",
    "reason",
    "deprecationReason",
    "msg",
];

/// Top-level members that hold the envelope's own words to the caller.
const MESSAGES: [&str; 3] = ["message", "msg", "result"];
/// Top-level members that make an object an envelope around data rather than a record
/// (normalised names).
const ENVELOPE: [&str; 12] = [
    "status",
    "ok",
    "success",
    "code",
    "error",
    "errors",
    "data",
    "items",
    "results",
    "totalitems",
    "pagecount",
    "meta",
];
/// Words ending the name of a code-like member whose value may type the answer as a
/// deprecation notice (`errorType`, `code`, `kind`).
const CODE_NAMES: [&str; 3] = ["type", "code", "kind"];

/// What the notices in one answer said.
#[derive(Debug, Default)]
pub(super) struct Found {
    pub(super) warnings: Vec<String>,
    pub(super) deprecation: Option<Deprecation>,
}

/// Which end of the body a window starts from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum From {
    Start,
    End,
}

/// Reads the notices in the first and last windows of a successful body.
/// `seen` says which of the readers' words each window holds
/// ([`super::words::sets_in`]).
pub(super) fn read(body: &[u8], window: usize, seen: Ends, now: DateTime<Utc>) -> Found {
    let mut texts: Vec<String> = Vec::new();
    let mut retirements: Vec<Retirement> = Vec::new();
    let head_end = body.len().min(window);
    let tail_start = body.len().saturating_sub(window);
    for (range, from) in [
        (0..head_end, From::Start),
        (tail_start..body.len(), From::End),
    ] {
        // On a short body the windows overlap: the second adds nothing new.
        if from == From::End && tail_start == 0 && body.len() <= window {
            break;
        }
        let mentioned = match from {
            From::Start => seen.head,
            From::End => seen.tail,
        };
        if !mentioned.has(Set::Notice) {
            continue;
        }
        let members = top_members(body, range.clone(), from);
        // An envelope names its status or its payload, or is a message beside nothing
        // but lists (`{"message": "…", "bookings": []}`) or alone (`{"message": "…"}`,
        // the whole answer of a retired endpoint kept answering, as disease.sh's v1
        // `/historical`): a record carries more than its message.
        let opens_a_list = |at: usize| {
            body[at..range.end]
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|b| *b == b'[')
        };
        let envelope = members
            .iter()
            .any(|(name, _)| ENVELOPE.contains(&normalise(name).as_str()))
            || (members
                .iter()
                .any(|(name, _)| MESSAGES.contains(&normalise(name).as_str()))
                && members
                    .iter()
                    .filter(|(name, _)| !MESSAGES.contains(&normalise(name).as_str()))
                    .all(|(_, at)| opens_a_list(*at)));
        for (name, value_at) in members {
            let Some(value) = value_after(&body[value_at..range.end]) else {
                continue;
            };
            let n = normalise(&name);
            if CONTAINERS.contains(&n.as_str()) {
                if let Value::Object(inner) = &value {
                    if let Some(typed) = typed_notice(inner) {
                        text(&typed, now, &mut texts, &mut retirements);
                    }
                    for (k, v) in inner.iter().take(MAX_MEMBERS) {
                        let n = normalise(k);
                        if let Some(r) = dated_member(&n, v, now) {
                            retirements.push(r);
                        } else if is_notice_name(&n) {
                            collect(k, v, now, &mut texts, &mut retirements);
                        } else if let Value::Object(version) = v
                            && names_the_api_version(&n)
                        {
                            // The answering API's version, told deprecated by a flag
                            // of its own (Cohere's `"meta": {"api_version": {"version":
                            // "1", "is_deprecated": true}}`).
                            for (vk, vv) in version.iter().take(MAX_MEMBERS) {
                                if normalise(vk).contains("deprecat") {
                                    collect(vk, vv, now, &mut texts, &mut retirements);
                                }
                            }
                        }
                    }
                }
            } else if envelope
                && MESSAGES.contains(&n.as_str())
                && let Value::String(s) = &value
                // A `result` that is one word is the answer's data ("deprecated" as the
                // state asked for), a sentence is its words to the caller.
                && (n != "result" || s.trim().contains(' '))
            {
                // The envelope's own words: kept only when they speak of a retirement.
                text(s, now, &mut texts, &mut retirements);
            } else if envelope
                && n == "messages"
                && let Value::Array(items) = &value
            {
                // An envelope's list of coded messages beside its errors (Cloudflare's v4
                // `"messages": [{"code": 10000, "message": "…"}]`): the API's words to
                // the caller, kept when they speak of a retirement. An item without a
                // code (a chat's turn) is not one.
                for item in items.iter().take(MAX_ITEMS) {
                    if let Value::Object(o) = item
                        && o.contains_key("code")
                        && let Some(Value::String(s)) = o.get("message")
                    {
                        text(s, now, &mut texts, &mut retirements);
                    }
                }
            } else if is_notice_name(&n) && !value.is_boolean() {
                // A bare `"deprecated": true` at the top is the record's own property
                // (a Homebrew formula, a package the answer describes), not a word
                // about the API: only inside `meta` does a flag speak for the answer.
                collect(&name, &value, now, &mut texts, &mut retirements);
            }
        }
    }
    Found {
        warnings: texts,
        deprecation: warning::declared(&retirements),
    }
}

/// A member of the answer's metadata that describes the version of the API answering
/// (`api_version`, `version`), not of a thing in its data.
fn names_the_api_version(n: &str) -> bool {
    matches!(n, "apiversion" | "version")
}

/// A date the answer's metadata gives under a name that says what it dates (`"meta":
/// {"deprecated": true, "sunset": "2026-03-31"}`): the end, or the deprecation, of the
/// answering API, as the same member of a notice object is. Only inside `meta` and its
/// kin: at the top of an answer, or in its data, a `sunset` is the sun's.
fn dated_member(n: &str, v: &Value, now: DateTime<Utc>) -> Option<Retirement> {
    let t = v.as_str().and_then(|s| reset::parse_timestamp(s, now))?;
    if ENDS.iter().any(|w| n.contains(w)) {
        Some(Retirement {
            sunset: Some(t),
            ..Retirement::default()
        })
    } else if n.contains("deprecat") {
        Some(Retirement {
            since: Some(t),
            deprecated: t <= now,
            ..Retirement::default()
        })
    } else {
        None
    }
}

/// A notice that a code-like member of the answer's metadata types as a deprecation
/// (`"errorType": "deprecated"`), told with the words of its sibling detail or message
/// (`errorDetail`) so that the code's meaning travels with them: "deprecated: Please
/// provide an API version to avoid future errors."
fn typed_notice(inner: &Map<String, Value>) -> Option<String> {
    let code = inner.iter().take(MAX_MEMBERS).find_map(|(k, v)| {
        let n = normalise(k);
        let s = v.as_str()?;
        (CODE_NAMES.iter().any(|w| n.ends_with(w)) && normalise(s).contains("deprecat"))
            .then_some(s)
    })?;
    let detail = inner.iter().take(MAX_MEMBERS).find_map(|(k, v)| {
        let n = normalise(k);
        (n.contains("detail") || n.contains("message"))
            .then(|| v.as_str())
            .flatten()
    });
    Some(match detail {
        Some(d) => format!("{}: {}", warning::as_words(code), d.trim()),
        None => warning::as_words(code),
    })
}

/// Words in a member's name that say it dates an end.
const ENDS: [&str; 6] = [
    "sunset",
    "retire",
    "removal",
    "endoflife",
    "eol",
    "shutdown",
];

/// Member names that say only when, not what: inside a deprecation notice, its date.
const WHEN: [&str; 6] = ["at", "on", "since", "date", "effective", "effectiveat"];

/// Words in a notice object's member name that say it dates the last day the caller can
/// act (`takeActionBy`, `migrateBy`): the end, in a notice. Not read in `meta` itself,
/// where a `deadline` may be a job's.
const DEADLINES: [&str; 3] = ["actionby", "migrateby", "deadline"];

/// The cheap first pass: does the window mention any notice word at all? The stems
/// leave out their first letter, so one exact search finds `warning` and `Warnings`,
/// `deprecation` and `DeprecationNotice` (a key written in capitals is not looked for).
pub(super) fn mentions_notice(w: &[u8]) -> bool {
    static SEARCHER: std::sync::LazyLock<super::words::Searcher> =
        std::sync::LazyLock::new(|| super::words::Searcher::new(super::words::NOTICE_STEMS));
    SEARCHER.any_in(w)
}

/// Whether a member's (normalised) name speaks of a warning, deprecation, notice or
/// sunset, in English or in another language's word for a warning or a notice
/// (`avisos`, `Hinweise`, `uyarı`, whose letters beyond ASCII the normalised name has
/// lost).
pub(super) fn is_notice_name(n: &str) -> bool {
    NOTICE_NAMES.iter().any(|w| n.contains(w))
}

/// The words of [`is_notice_name`], each with its language.
const NOTICE_NAMES: [&str; 10] = [
    "warn", "deprecat", "notice", "sunset", "advisor", "aviso",   // Spanish, Portuguese
    "avvis",   // Italian
    "hinweis", // German
    "varning", // Swedish
    "uyar",    // Turkish
];

/// One notice member: a text, a list of texts or notice objects, or one notice object.
fn collect(
    name: &str,
    v: &Value,
    now: DateTime<Utc>,
    texts: &mut Vec<String>,
    retirements: &mut Vec<Retirement>,
) {
    // A notice named for a deprecation dates it with a bare word of time (Oyster HR's
    // `"meta": {"deprecation": {"at": …, "sunset": …}}`).
    let of_a_deprecation = normalise(name).contains("deprecat");
    if let Some(kind) = part_kind(name) {
        parts(kind, v, texts);
        return;
    }
    match v {
        Value::String(s) => {
            text(s, now, texts, retirements);
        }
        Value::Array(items) => {
            for item in items.iter().take(MAX_ITEMS) {
                match item {
                    Value::String(s) => {
                        text(s, now, texts, retirements);
                    }
                    Value::Object(o) => object(o, of_a_deprecation, now, texts, retirements),
                    _ => {}
                }
            }
        }
        Value::Object(o) => object(o, of_a_deprecation, now, texts, retirements),
        // `"deprecated": true` among the answer's metadata.
        Value::Bool(true) if normalise(name).contains("deprecat") => {
            retirements.push(Retirement {
                deprecated: true,
                ..Retirement::default()
            });
        }
        _ => {}
    }
}

/// The kind of request part a notice member's name lists (`deprecated_fields`,
/// `deprecatedParameters`): its items are parts of the request, not the called resource.
fn part_kind(name: &str) -> Option<&'static str> {
    let n = normalise(name);
    PART_KINDS
        .iter()
        .find(|(stem, _)| n.contains(stem))
        .map(|(_, kind)| *kind)
}

/// Stems of the names of request parts, and the word a note uses for each.
const PART_KINDS: [(&str, &str); 6] = [
    ("field", "field"),
    ("param", "parameter"),
    ("argument", "argument"),
    ("attribute", "attribute"),
    ("propert", "property"),
    ("column", "column"),
];

/// Members of a deprecated part's object naming the part, its replacement and its end.
const PART_NAMES: [&str; 4] = ["field", "name", "path", "parameter"];
const PART_SUCCESSORS: [&str; 5] = [
    "replacement",
    "replacedby",
    "useinstead",
    "successor",
    "newfield",
];

/// A list of deprecated parts of the request (`"deprecated_fields": [{"field":
/// "customer_name", "replacement": "name", "removal_date": "2025-09-01"}]`): each is told
/// to the model as a note ("deprecated field customer_name; use name (removed on
/// 2025-09-01)"), so the renamed field is known before it goes; its dates are the
/// part's, never the called resource's end.
fn parts(kind: &str, v: &Value, texts: &mut Vec<String>) {
    let items: &[Value] = match v {
        Value::Array(items) => items,
        other => std::slice::from_ref(other),
    };
    for item in items.iter().take(MAX_ITEMS) {
        let note = match item {
            Value::String(part) => format!("deprecated {kind} {part}"),
            Value::Object(o) => {
                let member = |names: &[&str]| {
                    o.iter()
                        .find(|(k, _)| names.contains(&normalise(k).as_str()))
                        .and_then(|(_, v)| v.as_str())
                };
                let Some(part) = member(&PART_NAMES) else {
                    continue;
                };
                let mut note = format!("deprecated {kind} {part}");
                if let Some(successor) = member(&PART_SUCCESSORS) {
                    note.push_str(&format!("; use {successor}"));
                }
                let end = o.iter().find_map(|(k, v)| {
                    let n = normalise(k);
                    ENDS.iter()
                        .any(|w| n.contains(w))
                        .then(|| v.as_str())
                        .flatten()
                });
                if let Some(end) = end {
                    note.push_str(&format!(" (removed on {end})"));
                }
                note
            }
            _ => continue,
        };
        let note: String = note
            .chars()
            .filter(|c| !c.is_control())
            .take(MAX_TEXT)
            .collect();
        if texts.len() < MAX_NOTICES && !texts.contains(&note) {
            texts.push(note);
        }
    }
}

/// A notice object: its text, and the end or deprecation dates its members name. In an
/// object `of_a_deprecation` (named for one), a member named only by a word of time
/// (`at`, `since`, `date`) dates the deprecation itself.
fn object(
    o: &Map<String, Value>,
    of_a_deprecation: bool,
    now: DateTime<Utc>,
    texts: &mut Vec<String>,
    retirements: &mut Vec<Retirement>,
) {
    let said = TEXTS
        .iter()
        .find_map(|k| o.get(*k)?.as_str())
        .map(|s| text(s, now, texts, retirements));
    let mut dated = Retirement::default();
    for (k, v) in o.iter().take(MAX_MEMBERS) {
        let n = normalise(k);
        let Some(t) = v.as_str().and_then(|s| reset::parse_timestamp(s, now)) else {
            if n == "deprecated" && v.as_bool() == Some(true) {
                dated.deprecated = true;
            }
            continue;
        };
        if ENDS.iter().chain(&DEADLINES).any(|w| n.contains(w)) {
            dated.sunset = dated.sunset.or(Some(t));
        } else if n.contains("deprecat") || (of_a_deprecation && WHEN.contains(&n.as_str())) {
            dated.since = dated.since.or(Some(t));
            dated.deprecated |= t <= now;
        }
    }
    // Dates count when the object's words are about the called resource, or when the
    // object has no words to say otherwise.
    let about_the_call = said.unwrap_or(true);
    if about_the_call && (dated.deprecated || dated.since.is_some() || dated.sunset.is_some()) {
        retirements.push(dated);
    }
}

/// One notice text: kept when it speaks of a retirement, and read for what it says
/// about the called resource. Returns whether it spoke of the resource (not of a part).
pub(super) fn text(
    s: &str,
    now: DateTime<Utc>,
    texts: &mut Vec<String>,
    retirements: &mut Vec<Retirement>,
) -> bool {
    let s = s.trim();
    let kept: String = s
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_TEXT)
        .collect();
    if kept.is_empty() || !warning::speaks_of_retirement(&kept) {
        return false;
    }
    if texts.len() < MAX_NOTICES && !texts.contains(&kept) {
        texts.push(kept.clone());
    }
    match warning::what_it_says(&warning::as_words(&kept), now) {
        Said::AboutTheCall(r) => {
            retirements.push(r);
            true
        }
        Said::AboutAPart => false,
        Said::Nothing => true,
    }
}

/// The JSON value that starts at `at` (after the key's colon), if it ends in the slice.
fn value_after(rest: &[u8]) -> Option<Value> {
    serde_json::Deserializer::from_slice(rest)
        .into_iter::<Value>()
        .next()?
        .ok()
}

/// Whether `i` holds a quote that delimits a string: one not escaped by an odd run of
/// backslashes before it.
fn is_quote(body: &[u8], i: usize) -> bool {
    if body[i] != b'"' {
        return false;
    }
    let run = body[..i]
        .iter()
        .rev()
        .take(MAX_ESCAPES)
        .take_while(|b| **b == b'\\')
        .count();
    run % 2 == 0
}

/// The members of the top-level object found in `range` of `body`: their names and where
/// each value starts (after the colon). The window is scanned from its end of the body,
/// where the nesting is known: forward from the body's start, backward from its end.
fn top_members(body: &[u8], range: std::ops::Range<usize>, from: From) -> Vec<(String, usize)> {
    // Every string in the window, as (open quote, close quote), with its nesting depth.
    let mut strings: Vec<(usize, usize, usize)> = Vec::new();
    let mut depth: usize = 0;
    match from {
        From::Start => {
            let mut i = range.start;
            while i < range.end {
                match body[i] {
                    b'"' => {
                        let open = i;
                        i += 1;
                        while i < range.end && !is_quote(body, i) {
                            i += 1;
                        }
                        if i >= range.end {
                            break;
                        }
                        strings.push((open, i, depth));
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                i += 1;
            }
        }
        From::End => {
            let mut i = range.end;
            while i > range.start {
                i -= 1;
                match body[i] {
                    b'"' => {
                        let close = i;
                        let mut found = false;
                        while i > range.start {
                            i -= 1;
                            if is_quote(body, i) {
                                found = true;
                                break;
                            }
                        }
                        if !found {
                            break;
                        }
                        strings.push((i, close, depth));
                    }
                    b'}' | b']' => depth += 1,
                    b'{' | b'[' => {
                        if depth == 0 {
                            break;
                        }
                        depth -= 1;
                    }
                    _ => {}
                }
            }
        }
    }
    let mut members = Vec::new();
    for (open, close, d) in strings {
        if d != 1 || members.len() >= MAX_MEMBERS {
            continue;
        }
        // A key is followed by its colon.
        let mut j = close + 1;
        while j < range.end && body[j].is_ascii_whitespace() {
            j += 1;
        }
        if j >= range.end || body[j] != b':' {
            continue;
        }
        let Ok(name) = serde_json::from_slice::<String>(&body[open..=close]) else {
            continue;
        };
        members.push((name, j + 1));
    }
    members
}

#[cfg(test)]
mod tests;
