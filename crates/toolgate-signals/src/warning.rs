//! `Warning` header texts (RFC 7234 §5.5), as Kubernetes still sends them.
//!
//! Sources: RFC 7234 §5.5 (`warn-code SP warn-agent SP warn-text [SP warn-date]`, a
//! comma-separated list whose `warn-text` is a quoted-string, so commas and `\"` inside
//! it belong to the text; obsoleted by RFC 9111 but still used) and Kubernetes API
//! warnings, <https://kubernetes.io/blog/2020/09/03/warnings/>:
//! `Warning: 299 - "extensions/v1beta1 Ingress is deprecated in v1.14+, unavailable in
//! v1.22+; use networking.k8s.io/v1 Ingress"`. Only codes 199 and 299 (miscellaneous
//! warnings, meant for humans) are kept; the 1xx caching codes are noise for an agent.
//!
//! Each kept warning becomes a [`Notice`]: its text, whether it says something is
//! deprecated, and the replacement it names ("…; use X", "use X instead"). A value with
//! no member in that form but plain words (Elasticsearch before 5.3: `Warning: The
//! [string] field is deprecated, …`) is kept whole, under 299.
//!
//! [`what_it_says`] reads such a text (and the same kind of text in vendor notice
//! fields) for what it says about the *called* resource. Upstreams write it many ways:
//! Kubernetes names the API group/version (`extensions/v1beta1 Ingress is deprecated…`),
//! Salesforce says `This API is deprecated and will be removed by Summer '22`, others
//! start with `Deprecated:` or `Deprecated API:`, or give an end date (`maintained until
//! 2015-06-02`, `will be removed on 2027-01-15`), or say its end was already reached
//! (Google's "Version v2.x of the … API is no longer supported", "has been retired"),
//! which is deprecated too. A text about one field, parameter or argument of the request
//! (`The query parameter 'page' is deprecated; use 'cursor'`) says nothing about the
//! resource and stays a note. A notice written in another language is read for the
//! same meanings by its own words (`warning/languages.rs`), and a coded warn-text (`300,
//! Deprecation, <link>, <date>`, api-service-warnings' draft) by its title and date.

use chrono::{DateTime, Utc};

use crate::link::{quoted, skip_to_comma};
use crate::{Headers, Notice, reset};

/// Longest successor name taken from a warning text; longer ones are not names.
const MAX_SUCCESSOR: usize = 200;
/// At most this many notices per response: an upstream controls how many it sends.
pub(crate) const MAX_NOTICES: usize = 16;
/// Longest warning text passed on, in characters; longer texts are cut with "…", since
/// each one is shown to the model.
const MAX_TEXT: usize = 1000;

/// The fields that carry warnings: `Warning`, and `X-Warning`, its spelling from before
/// RFC 6648 retired the `X-` prefix (Indico's API sends its deprecation notices there),
/// read the same way.
pub(crate) const WARNING_FIELDS: [&str; 2] = ["warning", "x-warning"];

/// Every 199/299 warning, in order, without duplicate texts. A value with no member in
/// the RFC's form that is plainly words (Elasticsearch before 5.3 sent `Warning: The
/// [string] field is deprecated, …` with no code) is still a notice meant for a human, and
/// is kept whole under 299, the code for such persistent warnings.
pub(crate) fn read(h: &Headers<'_>) -> Vec<Notice> {
    let mut out: Vec<Notice> = Vec::new();
    let values = WARNING_FIELDS.iter().flat_map(|name| h.get_all(name));
    for v in values {
        let value = String::from_utf8_lossy(v);
        let mut members = parse(&value);
        if members.is_empty()
            && let Some(text) = bare_text(&value)
        {
            members.push((299, text));
        }
        for (code, text) in members {
            if out.len() < MAX_NOTICES && !out.iter().any(|n| n.text == text) {
                out.push(notice(code, text));
            }
        }
    }
    out
}

/// A `Warning` value that is words rather than `code agent "text"`: it does not open with
/// a three-digit code, and it has letters and spaces (a lone token is not a notice).
fn bare_text(value: &str) -> Option<String> {
    let text = value.trim().trim_matches('"').trim();
    let coded = text.len() >= 3 && text.as_bytes()[..3].iter().all(u8::is_ascii_digit);
    let words = text.contains(char::is_whitespace) && text.contains(char::is_alphabetic);
    (!coded && words).then(|| text.to_owned())
}

/// A notice a body carries (a GraphQL answer's `extensions.warnings`, a JSON answer's
/// `notices`): words meant for a human like a `Warning` text, so read the same way, under
/// 299, the code for such persistent warnings. Where a notice travelled does not change
/// what it says.
pub(crate) fn body_notice(text: &str) -> Notice {
    notice(299, text.to_owned())
}

fn notice(code: u16, mut text: String) -> Notice {
    if let Some((cut, _)) = text.char_indices().nth(MAX_TEXT) {
        text.truncate(cut);
        text.push('…');
    }
    Notice {
        code,
        deprecation: says_deprecated(&text)
            || says_ended(&text)
            || announces_dated_end(&text)
            || replaced_by(&text).is_some()
            || languages::says_deprecated(&text),
        successor: successor(&text).or_else(|| replaced_by(&text)),
        text,
    }
}

/// Phrases saying the subject was taken over by a successor named right after them.
/// "Was replaced by" is not among them: APIs say so of a value swapped for a default.
const REPLACED_PHRASES: [&str; 6] = [
    "has been replaced by ",
    "is replaced by ",
    "is being replaced by ",
    "has been superseded by ",
    "is superseded by ",
    "was superseded by ",
];

/// The successor a text names when it says its subject was replaced ("Replaced by
/// Query.items_page since 2023-10", monday.com's GraphQL warnings; "v1 has been
/// superseded by v2"): replaced is deprecated, whatever word it uses. A text opening with
/// "Replaced by"/"Superseded by" has no other subject than what the warning is about.
fn replaced_by(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let start = ["replaced by ", "superseded by "]
        .iter()
        .find(|p| lower.starts_with(**p))
        .map(|p| p.len())
        .or_else(|| {
            REPLACED_PHRASES
                .iter()
                .find_map(|p| lower.find(p).map(|at| at + p.len()))
        })?;
    // The name is the first word after the phrase, before any "since …" or clause.
    let name = text.get(start..)?.split_whitespace().next()?;
    let name = name.trim_end_matches(['.', ',', ';', ':', ')']);
    let name = name.trim_matches(['"', '\'', '`']);
    (!name.is_empty() && name.len() <= MAX_SUCCESSOR).then(|| name.to_owned())
}

/// The text says its subject already reached its end ("is retired", "is no longer
/// supported"): deprecated too, as [`what_it_says`] reads it of the called resource.
fn says_ended(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    ENDED_PHRASES.iter().any(|p| lower.contains(p))
}

/// The text announces an end with its date ("To-Dos will be disabled on Jan. 31, 2022",
/// "will stop working on 2026-03-01"): a retirement scheduled, which is what a
/// deprecation is, whatever word it uses. Without a date it is only a warning. A date
/// relative to the reading ("in 30 days", "tomorrow") dates it too, whenever it is read.
fn announces_dated_end(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    END_PHRASES.iter().any(|phrase| {
        lower.find(phrase).is_some_and(|at| {
            date_after(&text[at + phrase.len()..], DateTime::<Utc>::UNIX_EPOCH).is_some()
        })
    })
}

/// Parses one `Warning` field value into `(code, text)` for its 199/299 members.
fn parse(value: &str) -> Vec<(u16, String)> {
    let mut out = Vec::new();
    let mut rest = value;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if rest.is_empty() {
            return out;
        }
        let bytes = rest.as_bytes();
        let well_formed =
            bytes.len() > 3 && bytes[..3].iter().all(u8::is_ascii_digit) && bytes[3] == b' ';
        if !well_formed {
            // Quote-aware, so a malformed member's quoted commas do not split it.
            rest = skip_to_comma(rest);
            continue;
        }
        let code: u16 = rest[..3].parse().unwrap_or(0);
        let after_code = rest[4..].trim_start();
        let agent_end = after_code
            .find(|c: char| c.is_whitespace() || c == '"')
            .unwrap_or(after_code.len());
        let Some(text_start) = after_code[agent_end..].trim_start().strip_prefix('"') else {
            rest = skip_to_comma(after_code);
            continue;
        };
        let (text, mut tail) = quoted(text_start);
        // Optional warn-date: a second quoted string.
        if let Some(date) = tail.trim_start().strip_prefix('"') {
            tail = quoted(date).1;
        }
        let text = text.trim();
        if matches!(code, 199 | 299) && !text.is_empty() {
            out.push((code, text.to_owned()));
        }
        rest = tail;
    }
}

/// Whether the text says something *is* deprecated (not "will be", not "not").
fn says_deprecated(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    let Some(i) = t.find("deprecated") else {
        return false;
    };
    let before = t[..i].trim_end();
    !(before.ends_with("will be")
        || before.ends_with("not")
        || before.ends_with("no longer")
        || before.ends_with("un")
        || before.ends_with("be"))
}

/// The replacement named by "…; use X", "…, use X instead", "Please use X.",
/// "Deprecated API: use X", "Please migrate to X".
fn successor(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let start = [
        "; use ",
        ", use ",
        ". use ",
        ": use ",
        "please use ",
        "; instead use ",
        "migrate to ",
    ]
    .iter()
    .filter_map(|m| lower.rfind(m).map(|i| i + m.len()))
    .max()
    .or_else(|| lower.starts_with("use ").then_some(4))?;
    let mut s = text.get(start..)?.trim();
    // The name ends at the next sentence or clause.
    if let Some(end) = s.find([';', '\n']) {
        s = &s[..end];
    }
    if let Some(end) = s.find(". ") {
        s = &s[..end];
    }
    let s = s.trim_end_matches(['.', ' ', ')']);
    let s = strip_suffix_ci(s, " instead").trim();
    let s = s.trim_matches(['"', '\'', '`']).trim();
    (!s.is_empty() && s.len() <= MAX_SUCCESSOR).then(|| s.to_owned())
}

fn strip_suffix_ci<'a>(s: &'a str, suffix: &str) -> &'a str {
    let n = s.len().saturating_sub(suffix.len());
    match s.get(n..) {
        Some(tail) if tail.eq_ignore_ascii_case(suffix) => &s[..n],
        _ => s,
    }
}

/// Longest text examined by [`what_it_says`]; the statement is in its first sentences.
const MAX_READ: usize = 1000;
/// Longest documentation URL taken from a text.
const MAX_INFO: usize = 200;

/// What a notice's words say about the resource that was called.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Retirement {
    /// It is deprecated now.
    pub(crate) deprecated: bool,
    /// The date it was, or will be, deprecated.
    pub(crate) since: Option<DateTime<Utc>>,
    /// The date it stops: "will be removed on …", "maintained until …".
    pub(crate) sunset: Option<DateTime<Utc>>,
    /// The replacement named ("use X", "please migrate to X"); never an absolute URL,
    /// since free text is where a planted link hides and `Link` is the field meant for it.
    pub(crate) successor: Option<String>,
    /// The documentation pointed at ("see https://…").
    pub(crate) info: Option<String>,
}

/// Whom a notice's words are about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Said {
    /// No deprecation or end date of anything the text names.
    Nothing,
    /// Only a part of the request (a field, parameter, argument, property) is deprecated
    /// or going away: a note for the model, not a state of the tool.
    AboutAPart,
    /// The called resource itself.
    AboutTheCall(Retirement),
}

/// What `text` says about the called resource: deprecated now or from a date, an end
/// date, a successor. A statement counts when its subject is the called thing — no named
/// subject ("Deprecated: …", "is deprecated"), "this API/endpoint/route/path/version/
/// resource", a path, or an API version token (`extensions/v1beta1`, `v1`) — and never
/// when it is a field, parameter, argument or property. "Will be removed on <date>" alone
/// is an end date, not a deprecation; "is no longer supported" is an end already reached,
/// which is deprecated too.
pub(crate) fn what_it_says(text: &str, now: DateTime<Utc>) -> Said {
    let text = match text.char_indices().nth(MAX_READ) {
        Some((cut, _)) => &text[..cut],
        None => text,
    };
    if let Some(r) = coded_notice(text, now) {
        return Said::AboutTheCall(r);
    }
    // ASCII lower-casing keeps every byte offset, so ranges found in `lower` slice `text`.
    let lower = text.to_ascii_lowercase();
    let mut r = Retirement::default();
    let (mut about_call, mut about_part) = (false, false);
    for (start, end) in clauses(&lower) {
        let clause = &lower[start..end];
        let original = &text[start..end];
        if let Some((at, end, form)) = deprecation_form(clause) {
            match subject(clause, at, end) {
                Subject::Part => about_part = true,
                Subject::Other => {}
                Subject::Call => {
                    let date = date_after(&original[end..], now);
                    match (form, date) {
                        (Form::Now | Form::Ended, None) => {
                            about_call = true;
                            r.deprecated = true;
                        }
                        (Form::Ended, Some(t)) => {
                            about_call = true;
                            r.deprecated = true;
                            r.sunset = Some(r.sunset.map_or(t, |s| s.min(t)));
                        }
                        (Form::Now | Form::Future, Some(t)) => {
                            about_call = true;
                            r.since = Some(r.since.map_or(t, |s| s.min(t)));
                            r.deprecated |= t <= now;
                        }
                        // "will be deprecated" with no date: nothing to hold on to.
                        (Form::Future, None) => {}
                    }
                }
            }
        }
        for phrase in END_PHRASES {
            let Some(at) = clause.find(phrase) else {
                continue;
            };
            let end = at + phrase.len();
            match subject(clause, at, end) {
                Subject::Part => about_part = true,
                Subject::Other => {}
                Subject::Call => {
                    if let Some(t) = date_after(&original[end..], now) {
                        about_call = true;
                        r.sunset = Some(r.sunset.map_or(t, |s| s.min(t)));
                    }
                }
            }
        }
    }
    if about_call {
        if r.sunset.is_none() {
            r.sunset = act_by(&lower, text, now);
        }
        r.successor = successor(text).filter(|s| !is_absolute_url(s));
        r.info = info_link(text, &lower);
        return Said::AboutTheCall(r);
    }
    if about_part {
        return Said::AboutAPart;
    }
    // No English statement: the same meanings in another language's words.
    languages::what_it_says(text, now).unwrap_or(Said::Nothing)
}

/// Whether `text` says the called resource (an endpoint, an API version, a model) has
/// reached its end: deprecated now, or past the end date it names ("This endpoint has
/// been sunset", "API v1 was decommissioned on December 31, 2024", "API version 1.0.0
/// is no longer supported"). Words about one field or parameter ("The 'not_in' query
/// parameter is deprecated") and an end still to come say no.
pub(crate) fn says_the_call_ended(text: &str, now: DateTime<Utc>) -> bool {
    match what_it_says(text, now) {
        Said::AboutTheCall(r) => r.deprecated || r.sunset.is_some_and(|end| end <= now),
        Said::AboutAPart | Said::Nothing => false,
    }
}

/// Verbs asking the caller to move off the called resource.
const ACT_WORDS: [&str; 5] = [
    "migrate",
    "upgrade",
    "switch to",
    "move to",
    "transition to",
];

/// The last day a deprecated resource's notice asks the caller to move off it ("Please
/// upgrade to v3 by 2025-09-01", "migrate before 1 March 2026"): its end, as a notice
/// object's `takeActionBy` is.
fn act_by(lower: &str, text: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    clauses(lower).into_iter().find_map(|(start, end)| {
        let clause = &lower[start..end];
        let act = ACT_WORDS.iter().find_map(|w| clause.find(w))?;
        [" by ", " before "].iter().find_map(|lead| {
            let at = clause[act..].find(lead)? + act + lead.len();
            date_after(&text[start + at..end], now)
        })
    })
}

/// The warning titles of a coded notice that declare a deprecation.
const CODED_TITLES: [&str; 4] = [
    "deprecated",
    "deprecation",
    "pending deprecation",
    "scheduled deprecation",
];

/// A warn-text written as fields, a code, a title, a link and a date, as
/// api-service-warnings' draft of the `Warning` field has it (`300, Deprecation,
/// https://…/300.json, 2017-12-12T23:28:18.508Z`; 310 Pending and 320 Scheduled
/// Deprecation): a deprecation title dates the deprecation, past or ahead. Other titles
/// ("New Version Available", "Maintenance") declare nothing.
fn coded_notice(text: &str, now: DateTime<Utc>) -> Option<Retirement> {
    let fields: Vec<&str> = text.splitn(5, ',').map(str::trim).collect();
    let [code, title, link, date] = fields.as_slice() else {
        return None;
    };
    let coded = code.len() == 3 && code.bytes().all(|b| b.is_ascii_digit());
    if !coded || !CODED_TITLES.contains(&title.to_ascii_lowercase().as_str()) {
        return None;
    }
    let since = reset::parse_timestamp(date, now)?;
    Some(Retirement {
        deprecated: since <= now,
        since: Some(since),
        info: (is_absolute_url(link) && link.len() <= MAX_INFO).then(|| (*link).to_owned()),
        ..Retirement::default()
    })
}

/// Sentences and clauses: split at `. `, `; `, `! `, `? ` and line breaks, so a period
/// inside `v1.14+` or a URL does not end one.
fn clauses(lower: &str) -> Vec<(usize, usize)> {
    let bytes = lower.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let ends = match b {
            b'\n' | b'\r' => true,
            b'.' | b';' | b'!' | b'?' => bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace),
            _ => false,
        };
        if ends {
            if i > start {
                out.push((start, i));
            }
            start = i + 1;
        }
    }
    if start < bytes.len() {
        out.push((start, bytes.len()));
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// "is deprecated", "Deprecated:", "deprecated since …".
    Now,
    /// "will be deprecated on …", "scheduled for deprecation on …".
    Future,
    /// "is no longer supported", "has been retired": past its end, so deprecated too; a
    /// date after it is the end date.
    Ended,
}

/// Phrases saying the subject has already reached its end. "Has been removed" and "is no
/// longer available" are not among them: APIs say so of one deleted record too.
const ENDED_PHRASES: [&str; 13] = [
    "no longer supported",
    "is retired",
    "has been retired",
    "was retired",
    "has been sunset",
    "has been sunsetted",
    "was sunset",
    "has been decommissioned",
    "was decommissioned",
    "was discontinued",
    "has been discontinued",
    "has reached end of life",
    "has reached its end of life",
];

/// Phrases announcing a deprecation still to come.
const FUTURE_PHRASES: [&str; 6] = [
    "will be deprecated",
    "to be deprecated",
    "scheduled for deprecation",
    "planned for deprecation",
    "slated for deprecation",
    "marked for deprecation",
];

/// Where a clause says something is (or will be) deprecated: the statement's start and
/// end, and its form.
fn deprecation_form(clause: &str) -> Option<(usize, usize, Form)> {
    if let Some((at, p)) = FUTURE_PHRASES
        .iter()
        .find_map(|p| clause.find(p).map(|at| (at, p)))
    {
        return Some((at, at + p.len(), Form::Future));
    }
    if says_deprecated(clause) {
        let word = "deprecated";
        return clause.find(word).map(|at| (at, at + word.len(), Form::Now));
    }
    ENDED_PHRASES
        .iter()
        .find_map(|p| clause.find(p).map(|at| (at, at + p.len(), Form::Ended)))
}

/// Phrases that announce the end of what they follow, each followed by its date.
const END_PHRASES: [&str; 22] = [
    "will be removed",
    // "api-version 2020-06-01 will no longer function after 2026-01-31".
    "will no longer function",
    // "This endpoint is deprecated; removal scheduled for 2026-01-15".
    "removal scheduled for",
    "scheduled for removal",
    // "/v1/shipments is sunset on 2025-09-30", "v2 sunsets on …".
    "is sunset",
    "sunsets",
    "will no longer be supported",
    "will be retired",
    "will be unavailable",
    "will become unavailable",
    "will be shut down",
    "will be shutdown",
    "will be discontinued",
    "will be decommissioned",
    "will be sunset",
    "will be turned off",
    "will stop working",
    "will no longer be available",
    "will be disabled",
    "maintained until",
    "supported until",
    "available until",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Subject {
    /// The called API, endpoint, path or version, or no named subject.
    Call,
    /// A field, parameter, argument or property of the request.
    Part,
    /// Something named that may or may not be the called resource.
    Other,
}

/// Words naming a part of a request rather than the resource.
const PART_WORDS: &[&str] = &[
    "field",
    "fields",
    "parameter",
    "parameters",
    "param",
    "params",
    "argument",
    "arguments",
    "arg",
    "args",
    "property",
    "properties",
    "attribute",
    "attributes",
    "option",
    "options",
    "header",
    "headers",
    "value",
    "values",
    "enum",
    "input",
    "key",
    "keys",
    "column",
    "columns",
    "flag",
    "flags",
    "setting",
    "settings",
    "variable",
    "directive",
];

/// Words naming the called resource.
const CALL_WORDS: &[&str] = &[
    "api",
    "apis",
    "endpoint",
    "endpoints",
    "route",
    "path",
    "version",
    "resource",
    "operation",
    "method",
    "service",
    "url",
    "uri",
    // An AI API serves the model a call names: "The model `text-davinci-003` has been
    // deprecated" (OpenAI's refusal of a shut-down model) is about the call.
    "model",
    "models",
];

/// Words that name nothing: with only these before the verb, the subject is the call.
const NO_SUBJECT: &[&str] = &[
    "this",
    "it",
    "the",
    "is",
    "are",
    "was",
    "has",
    "have",
    "been",
    "now",
    "and",
    "also",
    "officially",
    "marked",
    "as",
    "being",
    "currently",
    "deprecated",
    "old",
    "call",
];

/// Words that, right after a statement with nothing before it, name nothing
/// ("Deprecated since …", "Will be removed on …"), unlike "Deprecated field `x`".
const LEAD_INS: &[&str] = &[
    "since",
    "on",
    "by",
    "as",
    "from",
    "and",
    "in",
    "starting",
    "effective",
    "after",
    "until",
    "soon",
    "today",
    "now",
    "for",
];

/// Who the statement between `at` and `end` in `clause` is about.
fn subject(clause: &str, at: usize, end: usize) -> Subject {
    let words = |s: &str| -> Vec<String> {
        s.split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '/')
                    .to_owned()
            })
            .filter(|w| !w.is_empty())
            .collect()
    };
    let before = words(&clause[..at]);
    if before.is_empty() {
        // "Deprecated: see …", "Deprecated API: use …", "Deprecated field 'x' …".
        let rest = &clause[end..];
        if rest.trim_start().starts_with(':') || rest.trim().is_empty() {
            return Subject::Call;
        }
        return match words(rest).first().map(String::as_str) {
            Some(w) if PART_WORDS.contains(&w) => Subject::Part,
            Some(w) if CALL_WORDS.contains(&w) || LEAD_INS.contains(&w) => Subject::Call,
            // A date right after it ("supported until 2025-10-01", the clause after
            // "Deprecated API version 2023-10;") names nothing else.
            Some(w) if w.starts_with(|c: char| c.is_ascii_digit()) => Subject::Call,
            _ => Subject::Other,
        };
    }
    if before.iter().any(|w| PART_WORDS.contains(&w.as_str())) {
        return Subject::Part;
    }
    // Used as an adjective of the call: "You are using a deprecated V1 endpoint",
    // "calls a deprecated API version" (a version token may stand between).
    let after = words(&clause[end..]);
    let attributive = after
        .iter()
        .take(2)
        .take_while(|w| !PART_WORDS.contains(&w.as_str()))
        .any(|w| CALL_WORDS.contains(&w.as_str()));
    if attributive {
        return Subject::Call;
    }
    // A hyphenated name counts by its parts ("api-version 2020-06-01 will …").
    let names_the_call = |w: &String| {
        CALL_WORDS.contains(&w.as_str())
            || w.starts_with('/')
            || w.split(['/', '-'])
                .any(|p| version_token(p) || CALL_WORDS.contains(&p))
    };
    if before.iter().any(names_the_call) || before.iter().all(|w| NO_SUBJECT.contains(&w.as_str()))
    {
        return Subject::Call;
    }
    Subject::Other
}

/// `v1`, `v2beta1`, `v1alpha`: an API version, as in `extensions/v1beta1`.
fn version_token(w: &str) -> bool {
    let Some(rest) = w.strip_prefix('v') else {
        return false;
    };
    rest.starts_with(|c: char| c.is_ascii_digit())
        && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.')
}

/// Words that may stand between a statement and its date.
const DATE_LEADS: [&str; 10] = [
    "on or after",
    "on",
    "by",
    "after",
    "as of",
    "from",
    "since",
    "starting",
    "effective",
    "at",
];

/// The date that opens `s` once a lead word (`on`, `by`, `as of`) is skipped: an ISO
/// date or any form [`reset::parse_timestamp`] reads, up to six words long.
fn date_after(s: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let mut s = s.trim_start();
    for lead in DATE_LEADS {
        let Some(head) = s.get(..lead.len()) else {
            continue;
        };
        let boundary = s[lead.len()..].starts_with(char::is_whitespace);
        if head.eq_ignore_ascii_case(lead) && boundary {
            s = s[lead.len()..].trim_start();
            break;
        }
    }
    // Ends of the first six words, longest first: a full HTTP-date has six.
    let ends: Vec<usize> = s
        .char_indices()
        .filter(|(_, c)| c.is_whitespace())
        .map(|(i, _)| i)
        .chain(std::iter::once(s.len()))
        .take(6)
        .collect();
    ends.iter()
        .rev()
        .find_map(|&end| {
            let candidate = s[..end].trim_end_matches(['.', ',', ';', ')', '"', '\'']);
            reset::parse_timestamp(candidate, now)
        })
        // "will be removed in 30 days", "… tomorrow", "… at the end of the quarter".
        .or_else(|| crate::calendar::relative_day(s, now))
}

/// Stems of the words that say something is going away. A notice in a response body is
/// passed on only when it has one: a body's `warnings` also carry unrelated advice
/// (`missing_charset`, "Street name too long").
const RETIREMENT_WORDS: [&str; 12] = [
    "deprecat",
    "sunset",
    "retire",
    "retiring",
    "remov",
    "decommission",
    "discontinu",
    "end of life",
    "end-of-life",
    "no longer",
    "shut down",
    "obsolete",
];

/// Whether a text speaks of a deprecation, removal or end of life.
pub(crate) fn speaks_of_retirement(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    RETIREMENT_WORDS.iter().any(|w| lower.contains(w)) || languages::speaks_of_retirement(text)
}

/// A code token read as words: `method_deprecated` → "method deprecated",
/// `DeprecatedEndpoint` → "deprecated endpoint". Text that already has spaces is itself.
pub(crate) fn as_words(text: &str) -> String {
    if text.contains(char::is_whitespace) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut prev_lower = false;
    for c in text.chars().take(MAX_READ) {
        if !c.is_alphanumeric() {
            out.push(' ');
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            out.push(' ');
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        out.extend(c.to_lowercase());
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What texts said about the called resource, as one deprecation: deprecated if any says
/// so, the earliest deprecation date, the first end date, successor and documentation
/// link. `None` when none declared anything.
pub(crate) fn declared(texts: &[Retirement]) -> Option<crate::Deprecation> {
    let mut d = crate::Deprecation::default();
    for r in texts {
        d.deprecated |= r.deprecated;
        if let Some(t) = r.since {
            d.since = Some(d.since.map_or(t, |s| s.min(t)));
        }
        d.sunset = d.sunset.or(r.sunset);
        d.successor = d.successor.take().or_else(|| r.successor.clone());
        d.info = d.info.take().or_else(|| r.info.clone());
    }
    (d.deprecated || d.since.is_some() || d.sunset.is_some()).then_some(d)
}

pub(crate) fn is_absolute_url(s: &str) -> bool {
    let lower = s.get(..8).map(str::to_ascii_lowercase).unwrap_or_default();
    lower.starts_with("https://") || lower.starts_with("http://")
}

/// The http(s) URL after "see " ("Please see https://… for details").
fn info_link(text: &str, lower: &str) -> Option<String> {
    let at = lower.find("see http")? + "see ".len();
    let url = text[at..]
        .split(char::is_whitespace)
        .next()?
        .trim_end_matches(['.', ',', ';', ')', '"', '\'']);
    (is_absolute_url(url) && url.len() <= MAX_INFO).then(|| url.to_owned())
}

mod languages;

#[cfg(test)]
mod tests;
