//! Deprecation and sunset of the called resource.
//!
//! Sources:
//! - RFC 9745 (<https://www.rfc-editor.org/rfc/rfc9745>): `Deprecation: @1688169599`, a
//!   structured-field Date (RFC 9651 §3.3.7), "the resource will be or has been
//!   deprecated" — a date in the future is allowed and means *will be* deprecated. Its
//!   drafts' older forms `Deprecation: true` and `Deprecation: <HTTP-date>` are accepted.
//!   `Link; rel="deprecation"` points at documentation (RFC 9745 §3).
//! - RFC 8594 (<https://www.rfc-editor.org/rfc/rfc8594>): `Sunset: <HTTP-date>`, "the
//!   URI is likely to become unresponsive at a specified point in the future", and
//!   `Link; rel="sunset"`. A Sunset alone does **not** say the resource is deprecated.
//! - RFC 5829 §3 (`successor-version`, `latest-version` link relations).
//! - Shopify `X-Shopify-API-Deprecated-Reason`
//!   (<https://shopify.dev/docs/api/usage/versioning#deprecation-practices>): the call used
//!   a deprecated feature; the value is a human-readable reason, passed on as a warning.
//!   Since 2025-04 the GraphQL API lists the deprecated fields the query used
//!   (`Shop.products, Shop.productVariants`;
//!   <https://shopify.dev/changelog/graphql-return-actual-deprecation-reasons>): a value
//!   naming only such schema coordinates, here or in any vendor deprecation field, is
//!   about parts of the request and stays a note.
//! - Notices as a JSON object, as Kinto's `Alert` header sends them (`{"code":
//!   "soft-eol", "message": "…", "url": "…"}`): the message is read like any notice text,
//!   a code naming an end of life or deprecation (`soft-eol`, `hard-eol`) declares the
//!   resource deprecated, and the `url` is its documentation.
//! - Advisory names: `warn`, `notice`, `advisor` and `alert`. A name that speaks of
//!   versions is read only as such a notice in words (Stripe's
//!   `Stripe-Api-Version-Upgrade-Notice`); otherwise it lists versions, none of which need
//!   be the one called. A notice in words with `key=value` parameters (`deprecated;
//!   sunset=Wed, 01 Jul 2026 00:00:00 GMT`) takes the dates its words lack from them.
//! - Older drafts' parameters, still sent: draft-dalal-deprecation-header-00's
//!   `Deprecation: version="v1"` and `version="1" date="2025-10-04"`, vendors'
//!   `X-API-Deprecation: version=v1, sunset=2027-02-21`. Any `Deprecation` value other
//!   than an explicit `false` / `?0` says the field is there, so the resource is
//!   deprecated; `date=`/`since=` give the date, `sunset=`/`until=`/`removal=` the end. A
//!   value not read in full is also handed on verbatim ([`crate::unread`]); one that
//!   looks like a date that could not be read is not taken as "deprecated now", since
//!   the date may lie ahead.
//! - Deprecation in words: a `Warning: 299` (Kubernetes: `extensions/v1beta1 Ingress is
//!   deprecated in v1.14+, unavailable in v1.22+; use networking.k8s.io/v1 Ingress`;
//!   Salesforce: `This API is deprecated and will be removed by Summer '22`), the text of
//!   a vendor deprecation field, or an advisory field (`X-API-Warn`, `Stripe-Notice`,
//!   `*-Advisory`). Words about the called resource declare it deprecated, give its end
//!   date and successor ([`crate::warning`] decides); words about one field or parameter
//!   of the request stay a note.
//!
//! - A lifecycle stage: Snyk's `snyk-version-lifecycle-stage: deprecated` (or `sunset`)
//!   says the version that answered is deprecated; `beta`, `ga` and the other stages
//!   before it say it is not. So does an API's or a version's status, stage or state
//!   (Sage Bionetworks Bridge's `Bridge-Api-Status: deprecated`).
//!
//! Dates go through [`crate::reset::parse_timestamp`], which accepts the near misses
//! servers send (`UTC` for `GMT`, as in RFC 9745's own `Sunset` example).

use chrono::{DateTime, Utc};
use sfv::{BareItem, Item, Parser};

use crate::warning::{self, Retirement, Said};
use crate::{Deprecation, Headers, Notice, link, reset};

/// What a deprecation notice means at a given instant; see [`Deprecation::stage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Deprecated now: `Deprecation: true`, `?1`, or a date at or before `now`.
    Deprecated {
        /// When it became deprecated, if a date was given.
        since: Option<DateTime<Utc>>,
    },
    /// Announced to become deprecated at a future date (RFC 9745 allows it).
    Scheduled {
        /// The announced deprecation date.
        on: DateTime<Utc>,
    },
    /// Only a `Sunset` date: not said to be deprecated, but expected to stop responding.
    SunsetOnly {
        /// The announced sunset date.
        on: DateTime<Utc>,
    },
    /// Neither a deprecation nor a sunset: only a documentation link or a withdrawn flag
    /// (`Deprecation: false`).
    Informational,
}

impl Deprecation {
    /// Whether the resource is deprecated at `now`: declared so, or a deprecation date
    /// that has arrived (a notice remembered from before the date becomes true later).
    #[must_use]
    pub fn is_deprecated_at(&self, now: DateTime<Utc>) -> bool {
        self.deprecated || self.since.is_some_and(|s| s <= now)
    }

    /// Which of the four meanings this notice has at `now`. The words told to a model
    /// must follow it: only [`Stage::Deprecated`] may be called "is deprecated".
    #[must_use]
    pub fn stage(&self, now: DateTime<Utc>) -> Stage {
        if self.is_deprecated_at(now) {
            return Stage::Deprecated { since: self.since };
        }
        match (self.since, self.sunset) {
            (Some(on), _) => Stage::Scheduled { on },
            (None, Some(on)) => Stage::SunsetOnly { on },
            (None, None) => Stage::Informational,
        }
    }
}

/// Which fields [`read`] examined: read in full, or not understood (to be handed on
/// verbatim by [`crate::unread`]); positions in the headers.
#[derive(Debug, Default)]
pub(crate) struct Fields {
    pub(crate) read: Vec<usize>,
    pub(crate) unread: Vec<usize>,
}

/// A reading under way.
#[derive(Default)]
struct Reading {
    d: Deprecation,
    /// Any evidence of a deprecation or retirement, or a documentation link.
    found: bool,
    /// What free texts said about the called resource, applied after the headers, whose
    /// dates and links are more precise.
    texts: Vec<Retirement>,
}

pub(crate) fn read(
    h: &Headers<'_>,
    now: DateTime<Utc>,
    notices: &[Notice],
    warnings: &mut Vec<String>,
    fields: &mut Fields,
) -> Option<Deprecation> {
    let mut r = Reading::default();
    for (i, (name, value)) in h.iter().enumerate() {
        match r.field(i, name.trim_ascii(), value, now, warnings) {
            Some(true) => fields.read.push(i),
            Some(false) => fields.unread.push(i),
            None => {}
        }
    }
    let Reading {
        mut d,
        mut found,
        mut texts,
    } = r;
    let links = link::from_headers(h);
    let target = |rel: &str| {
        links
            .iter()
            .find(|l| l.has_rel(rel))
            .map(|l| l.target.clone())
    };
    d.info = target("deprecation").or_else(|| target("sunset"));
    found |= d.info.is_some();
    if let Some(reason) = h
        .get_all("x-shopify-api-deprecated-reason")
        .map(|v| String::from_utf8_lossy(v).trim().to_owned())
        .find(|r| !r.is_empty())
    {
        // The GraphQL form lists the deprecated fields the query used: a note, not a
        // deprecated API.
        if !names_only_fields(&reason) {
            found = true;
            d.deprecated = true;
        }
        note(format!("deprecated: {reason}"), warnings);
    }
    // A warning counts when its words are about the called resource; one about a field
    // of the request stays a note.
    let mut unplaced_successor = None;
    for n in notices {
        match warning::what_it_says(&n.text, now) {
            Said::AboutTheCall(r) => texts.push(r),
            Said::AboutAPart => {}
            Said::Nothing if n.deprecation => {
                unplaced_successor = unplaced_successor.or(n.successor.clone())
            }
            Said::Nothing => {}
        }
    }
    for r in &texts {
        found |= r.deprecated || r.since.is_some() || r.sunset.is_some();
        d.deprecated |= r.deprecated;
        if let Some(t) = r.since {
            d.since = Some(d.since.map_or(t, |s| s.min(t)));
        }
        d.sunset = d.sunset.or(r.sunset);
    }
    if !found {
        return None;
    }
    d.successor = target("successor-version")
        .or_else(|| target("latest-version"))
        .or_else(|| texts.iter().find_map(|r| r.successor.clone()))
        // A warning naming no subject the reader knows ("Foo is deprecated; use Bar")
        // may still name the successor of a deprecation the headers declared.
        .or_else(|| d.deprecated.then_some(unplaced_successor).flatten());
    d.info = d
        .info
        .take()
        .or_else(|| texts.iter().find_map(|r| r.info.clone()));
    Some(d)
}

impl Reading {
    /// Reads one field, if it is one this reader knows: whether its value was read in
    /// full.
    fn field(
        &mut self,
        i: usize,
        name: &str,
        value: &[u8],
        now: DateTime<Utc>,
        warnings: &mut Vec<String>,
    ) -> Option<bool> {
        if name.eq_ignore_ascii_case("deprecation") {
            return Some(self.deprecation_field(value, now));
        }
        if name.eq_ignore_ascii_case("sunset") {
            return Some(self.sunset_field(value, now));
        }
        if i >= MAX_FIELDS {
            return None;
        }
        if let Some(deprecated) = lifecycle_stage(name, value) {
            if deprecated {
                self.found = true;
                self.d.deprecated = true;
            }
            return Some(true);
        }
        let kind = vendor_field(name)?;
        let Ok(v) = std::str::from_utf8(value) else {
            return Some(false);
        };
        let v = v.trim();
        if v.is_empty() {
            return Some(true);
        }
        if matches!(kind, Vendor::Deprecation | Vendor::Advisory)
            && self.json_notice_field(v, now, warnings)
        {
            return Some(true);
        }
        match kind {
            Vendor::Deprecation => Some(self.vendor_deprecation(v, now, warnings)),
            Vendor::Retirement => Some(self.vendor_retirement(v, now, warnings)),
            // A number or a token under such a name (`X-Quota-Warn-Threshold: 80`) is a
            // setting, not a notice; left to the other readers.
            Vendor::Advisory if !reads_as_words(v) => None,
            Vendor::Advisory => {
                self.vendor_advisory(v, now, warnings);
                Some(true)
            }
        }
    }

    /// The `Deprecation` field (a flag, a date or parameters): whether it was read in
    /// full.
    fn deprecation_field(&mut self, value: &[u8], now: DateTime<Utc>) -> bool {
        let Some(v) = std::str::from_utf8(value)
            .ok()
            .filter(|v| !v.trim().is_empty())
        else {
            return false;
        };
        let read = header_value(v, now);
        self.found |= declare(&mut self.d, read.as_ref(), now);
        if read.is_none() && !looks_like_date(v) {
            // Words where a flag or date belongs still say the field is there:
            // only an explicit `false` or `?0` withdraws it.
            self.found = true;
            self.d.deprecated = true;
        }
        matches!(
            read,
            Some(Value::Params { complete: true, .. } | Value::Flag(_) | Value::Date(_))
        )
    }

    /// The `Sunset` field (a date): whether it was read. A bare number there can only
    /// be an instant, never a length: an epoch in seconds or milliseconds (gateways that
    /// write every time as a Unix timestamp), as RFC 9745's `@` form is.
    fn sunset_field(&mut self, value: &[u8], now: DateTime<Utc>) -> bool {
        let t = std::str::from_utf8(value)
            .ok()
            .and_then(|v| epoch_instant(v).or_else(|| date_value(v, now)));
        if let Some(t) = t {
            self.found = true;
            self.d.sunset = self.d.sunset.or(Some(t));
        }
        t.is_some()
    }

    /// A vendor's deprecation or advisory field holding a JSON notice: its words and
    /// what it declares; whether the value was one.
    fn json_notice_field(
        &mut self,
        v: &str,
        now: DateTime<Utc>,
        warnings: &mut Vec<String>,
    ) -> bool {
        let Some((text, said, declared)) = json_notice(v, now) else {
            return false;
        };
        match said {
            Said::AboutTheCall(r) => self.texts.push(r),
            Said::AboutAPart | Said::Nothing => {}
        }
        self.texts.extend(declared);
        note(text, warnings);
        true
    }

    /// A vendor's deprecation field: a standard value, else words about the call, a
    /// part or nothing known; whether it was read in full.
    fn vendor_deprecation(
        &mut self,
        v: &str,
        now: DateTime<Utc>,
        warnings: &mut Vec<String>,
    ) -> bool {
        if let Some(read) = header_value(v, now) {
            self.found |= declare(&mut self.d, Some(&read), now);
            return !matches!(
                read,
                Value::Params {
                    complete: false,
                    ..
                }
            );
        }
        match warning::what_it_says(v, now) {
            Said::AboutTheCall(mut r) => {
                r.sunset = r.sunset.or_else(|| delimited_date(v, now));
                self.texts.push(with_parameters(r, v, now));
                note(capped(v), warnings);
            }
            Said::AboutAPart => note(capped(v), warnings),
            Said::Nothing if names_only_fields(v) => {
                note(format!("deprecated: {}", capped(v)), warnings);
            }
            // The field's name says deprecated; its words are passed on.
            Said::Nothing => {
                self.found = true;
                self.d.deprecated = true;
                self.d.sunset = self.d.sunset.or_else(|| delimited_date(v, now));
                note(format!("deprecated: {}", capped(v)), warnings);
            }
        }
        true
    }

    /// A vendor's retirement field: a date (or complete parameters), else words about
    /// the call; whether it was read.
    fn vendor_retirement(
        &mut self,
        v: &str,
        now: DateTime<Utc>,
        warnings: &mut Vec<String>,
    ) -> bool {
        let sunset = reset::parse_timestamp(v, now).or_else(|| {
            params(v, now)
                .filter(|p| p.complete)
                .and_then(|p| p.sunset.or(p.since))
        });
        if let Some(t) = sunset {
            self.found = true;
            self.d.sunset = self.d.sunset.or(Some(t));
            return true;
        }
        if let Said::AboutTheCall(r) = warning::what_it_says(v, now) {
            self.texts.push(r);
            note(capped(v), warnings);
            return true;
        }
        false
    }

    /// A vendor's advisory in words: kept when about the call, passed on as a note.
    fn vendor_advisory(&mut self, v: &str, now: DateTime<Utc>, warnings: &mut Vec<String>) {
        if let Said::AboutTheCall(r) = warning::what_it_says(v, now) {
            self.texts.push(with_parameters(r, v, now));
        }
        note(capped(v), warnings);
    }
}

/// A date standing alone between semicolons of a deprecation field's value: the
/// Microsoft REST API Guidelines' `azure-deprecating` is "a semicolon-delimited string
/// notifying the caller what is being deprecated, when it will no longer function, and a
/// URL" (`API version 2019-01-01 is deprecated;2025-12-31;https://aka.ms/…`), so the date
/// is the end.
fn delimited_date(v: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    v.split(';')
        .skip(1)
        .take(8)
        .find_map(|part| reset::parse_timestamp(part.trim(), now))
}

/// Whether an advisory field's value is words meant for a person: letters with spaces
/// between them, or letters of a script written without spaces ("このAPIは非推奨です。
/// 2025年12月31日に廃止されます。"), rather than a number or a token.
fn reads_as_words(v: &str) -> bool {
    let spaced = v.contains(char::is_whitespace) && v.contains(char::is_alphabetic);
    spaced || v.chars().any(unspaced_script)
}

/// A letter of the scripts written without spaces between words: Chinese, Japanese's
/// kana and Thai among them (CJK ideographs, kana, Hangul syllables, Thai).
fn unspaced_script(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{9fff}' | '\u{ac00}'..='\u{d7af}' | '\u{0e00}'..='\u{0e7f}')
}

/// A notice in words that also carries parameters (`deprecated; sunset=Wed, 01 Jul 2026
/// 00:00:00 GMT; docs=/docs/migration`): the dates the words did not give come from them.
fn with_parameters(mut r: Retirement, v: &str, now: DateTime<Utc>) -> Retirement {
    if let Some(p) = params(v, now) {
        r.sunset = r.sunset.or(p.sunset);
        if r.since.is_none()
            && let Some(t) = p.since
        {
            r.since = Some(t);
            r.deprecated |= t <= now;
        }
    }
    r
}

/// Applies one deprecation value to `d`; whether it declared anything. An explicit
/// negative (`false`, `?0`) declares nothing: no notice is better than a notice saying
/// "not deprecated", which would be remembered and reported as news.
fn declare(d: &mut Deprecation, value: Option<&Value>, now: DateTime<Utc>) -> bool {
    match value {
        Some(Value::Flag(true)) => d.deprecated = true,
        Some(Value::Date(t)) => {
            d.since = Some(d.since.map_or(*t, |s| s.min(*t)));
            d.deprecated |= *t <= now;
        }
        Some(Value::Params { since, sunset, .. }) => {
            match since {
                Some(t) => {
                    d.since = Some(d.since.map_or(*t, |s| s.min(*t)));
                    d.deprecated |= *t <= now;
                }
                None => d.deprecated = true,
            }
            d.sunset = d.sunset.or(*sunset);
        }
        Some(Value::Flag(false)) | None => return false,
    }
    true
}

/// Fields examined for vendor deprecation names.
const MAX_FIELDS: usize = 64;
/// Longest vendor deprecation text passed on as a warning.
const MAX_TEXT: usize = 200;
/// Longest notice value read as a JSON object.
const MAX_JSON: usize = 2048;

/// Adds a text for the model, once.
fn note(text: String, warnings: &mut Vec<String>) {
    if !warnings.contains(&text) {
        warnings.push(text);
    }
}

fn capped(v: &str) -> String {
    v.chars().take(MAX_TEXT).collect()
}

/// What a vendor field's name says it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Vendor {
    /// A deprecation flag, date or text (`X-API-Deprecated`, `X-Api-Deprecation-Date`).
    Deprecation,
    /// An end date (`X-API-Sunset`, `X-Api-Retirement-Date`, `X-End-Of-Life`).
    Retirement,
    /// A notice in words (`X-API-Warn`, `Stripe-Notice`, `X-Api-Advisory`), read like a
    /// `Warning` text.
    Advisory,
}

/// The stage a lifecycle field gives the version that answered — Snyk's
/// `snyk-version-lifecycle-stage: deprecated`, among `wip`, `experimental`, `beta`, `ga`
/// and `sunset` (<https://docs.snyk.io/snyk-api/rest-api/about-the-rest-api>): whether
/// it says deprecated (`deprecated`, or past it: `sunset`, `retired`), `Some(false)` for
/// a stage before deprecation, `None` for any other name or word. The name must speak of
/// a lifecycle ([`names_a_lifecycle`]): a `status: deprecated` may be any record's data.
fn lifecycle_stage(name: &str, value: &[u8]) -> Option<bool> {
    if name.len() > 64 || !names_a_lifecycle(name) {
        return None;
    }
    let word = std::str::from_utf8(value).ok()?.trim().to_ascii_lowercase();
    match word.as_str() {
        "deprecated" | "sunset" | "retired" | "removed" | "eol" | "end-of-life" => Some(true),
        "wip" | "experimental" | "alpha" | "beta" | "preview" | "ga" | "stable" | "released"
        | "active" | "current" => Some(false),
        _ => None,
    }
}

/// Whether a field's name speaks of a lifecycle: `lifecycle` in it, or the status, stage
/// or state of an API or a version (Sage Bionetworks Bridge's `Bridge-Api-Status:
/// deprecated`, <https://github.com/liujoshua/BridgeDocs>). A bare `X-Status` is any
/// record's, not the API's.
fn names_a_lifecycle(name: &str) -> bool {
    use crate::headers::contains_ci;
    let n = name.as_bytes();
    let ends_with =
        |end: &[u8]| n.len() >= end.len() && n[n.len() - end.len()..].eq_ignore_ascii_case(end);
    // Runs on every header: the ending is looked at before the name is searched.
    contains_ci(n, b"lifecycle")
        || ((ends_with(b"status") || ends_with(b"stage") || ends_with(b"state"))
            && (contains_ci(n, b"api") || contains_ci(n, b"version")))
}

/// A field other than the RFC ones whose name says deprecation, retirement or an
/// advisory. Names that speak of *versions* (`api-deprecated-versions`) list other
/// versions, not the one called, and are not read.
fn vendor_field(name: &str) -> Option<Vendor> {
    // Runs on every header of every response: most names carry none of the words, and
    // are let go without the copy and split below.
    const WORDS: [&str; 9] = [
        "deprecat",
        "sunset",
        "retire",
        "eol",
        "endoflife",
        "warn",
        "notice",
        "advisor",
        "alert",
    ];
    let mentions = |w: &str| crate::headers::contains_ci(name.as_bytes(), w.as_bytes());
    if !WORDS.iter().any(|w| mentions(w)) && !mentions("end-of-life") {
        return None;
    }
    let n = name.trim().to_ascii_lowercase();
    if n.len() > 64
        || matches!(
            n.as_str(),
            "deprecation"
                | "sunset"
                | "link"
                | "warning"
                | "x-warning"
                | "x-shopify-api-deprecated-reason"
        )
    {
        return None;
    }
    let tokens: Vec<&str> = n.split(['-', '_']).collect();
    let retire = tokens
        .iter()
        .any(|t| t.contains("sunset") || t.contains("retire") || *t == "eol")
        || n.contains("end-of-life")
        || n.contains("endoflife");
    let deprecation = tokens.iter().any(|t| t.contains("deprecat"));
    let advisory = tokens.iter().any(|t| {
        t.starts_with("warn")
            || t.starts_with("notice")
            || t.starts_with("advisor")
            || t.starts_with("alert")
    });
    if n.contains("version") {
        // A notice about versions is still a notice in words (Stripe's
        // `Stripe-Api-Version-Upgrade-Notice`); any other name that speaks of versions
        // lists them, and none of them need be the one called.
        return (advisory && !retire && !deprecation).then_some(Vendor::Advisory);
    }
    if retire {
        return Some(Vendor::Retirement);
    }
    if deprecation {
        return Some(Vendor::Deprecation);
    }
    advisory.then_some(Vendor::Advisory)
}

/// Whether a deprecation reason names only fields: a list of GraphQL schema coordinates
/// (`Shop.products, Shop.productVariants`, as Shopify's header lists the deprecated fields
/// a query used since 2025-04), each a type name and a member. The resource is not
/// deprecated by that; the note is kept.
fn names_only_fields(v: &str) -> bool {
    let ident = |s: &str| {
        !s.is_empty()
            && s.len() <= 100
            && s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    let coordinate = |item: &str| {
        // `Type.field(argument:)` names an argument: still a part.
        let item = item.split_once('(').map_or(item, |(head, _)| head);
        let mut segments = item.split('.');
        let first = segments.next().unwrap_or_default();
        let rest: Vec<&str> = segments.collect();
        first.starts_with(|c: char| c.is_ascii_uppercase())
            && ident(first)
            && !rest.is_empty()
            && rest.iter().all(|s| ident(s))
    };
    let items: Vec<&str> = v.split(',').map(str::trim).collect();
    items.len() <= 32 && items.iter().all(|i| coordinate(i))
}

/// What a notice field says when its value is a JSON object, as Kinto's `Alert` sends it
/// (`{"code": "soft-eol", "message": "…", "url": "…"}`; <https://docs.kinto-storage.org>,
/// API deprecation): the text for the model, what the words say about the called
/// resource, and whether the code names a retirement (`soft-eol`, `hard-eol`,
/// `deprecated`, `sunset`), which declares the resource deprecated. `None` when the value
/// is not such an object.
fn json_notice(v: &str, now: DateTime<Utc>) -> Option<(String, Said, Option<Retirement>)> {
    if !v.starts_with('{') || v.len() > MAX_JSON {
        return None;
    }
    let serde_json::Value::Object(o) = serde_json::from_str(v).ok()? else {
        return None;
    };
    let field = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| o.get(*k)?.as_str())
            .map(str::trim)
            .filter(|t| !t.is_empty())
    };
    let code = field(&["code", "type", "status"]);
    let message = field(&["message", "detail", "description", "text", "title"]);
    let url = field(&["url", "href", "link", "documentation_url"])
        .filter(|u| warning::is_absolute_url(u) && u.len() <= MAX_TEXT)
        .map(str::to_owned);
    let text = match (code, message) {
        (Some(c), Some(m)) => format!("{c}: {m}"),
        (None, Some(t)) | (Some(t), None) => t.to_owned(),
        (None, None) => return None,
    };
    let said = message.map_or(Said::Nothing, |m| warning::what_it_says(m, now));
    let retirement_code = code.is_some_and(|c| {
        let words = warning::as_words(c);
        words.split(' ').any(|w| {
            matches!(
                w,
                "eol" | "sunset" | "retired" | "deprecated" | "deprecation"
            )
        })
    });
    let declared = retirement_code.then(|| Retirement {
        deprecated: true,
        info: url,
        ..Retirement::default()
    });
    Some((capped(&text), said, declared))
}

enum Value {
    /// `true`, `?1`, `yes` (or `false`, `?0`, `no`).
    Flag(bool),
    Date(DateTime<Utc>),
    /// An older draft's parameters, `version="v1" date="2025-10-04"`.
    Params {
        since: Option<DateTime<Utc>>,
        sunset: Option<DateTime<Utc>>,
        /// Every date parameter could be read.
        complete: bool,
    },
}

/// One `Deprecation` value in any of its generations.
fn header_value(v: &str, now: DateTime<Utc>) -> Option<Value> {
    let v = v.trim();
    for (words, flag) in [
        (["true", "yes", "1", "on"], true),
        (["false", "no", "0", "off"], false),
    ] {
        if words.iter().any(|w| v.eq_ignore_ascii_case(w)) {
            return Some(Value::Flag(flag));
        }
    }
    if let Ok(item) = Parser::new(v).parse::<Item>() {
        match item.bare_item {
            BareItem::Date(date) => {
                return DateTime::from_timestamp(i64::from(date.unix_seconds()), 0)
                    .map(Value::Date);
            }
            BareItem::Boolean(b) => return Some(Value::Flag(b)),
            _ => {}
        }
    }
    reset::parse_timestamp(v, now)
        .map(Value::Date)
        .or_else(|| params(v, now).map(Value::from))
}

impl From<Params> for Value {
    fn from(p: Params) -> Self {
        Value::Params {
            since: p.since,
            sunset: p.sunset,
            complete: p.complete,
        }
    }
}

/// Whether a value that could not be read was meant as a date (`@99999999999999999999`,
/// `Sun, 31 Dez 2025 …`): it may lie in the future, so it cannot say "deprecated now".
fn looks_like_date(v: &str) -> bool {
    let v = v.trim();
    if v.starts_with(|c: char| c == '@' || c.is_ascii_digit()) {
        return true;
    }
    let first: &str = v
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or_default();
    reset::weekday(first) || reset::month(first).is_some()
}

/// Values longer than this are not parameter lists.
const MAX_PARAMS_LEN: usize = 512;
/// At most this many parameters are read.
const MAX_PARAMS: usize = 16;

/// The dates in a `key=value` list, as draft-dalal-deprecation-header-00 wrote
/// `Deprecation: version="v1" date="2025-10-04"` and vendors `version=v1,
/// sunset=2027-02-21`.
struct Params {
    since: Option<DateTime<Utc>>,
    sunset: Option<DateTime<Utc>>,
    complete: bool,
}

/// Reads `key=value` pairs separated by `;`, `,` or spaces; values may be quoted, and an
/// unquoted value runs on over words without `=` (`sunset=Sat, 16 Jan 2027 00:00:00
/// GMT`). `date`/`since` give the deprecation date, `sunset`/`until`/`removal` the end.
/// `None` when there is no `key=value` at all.
fn params(v: &str, now: DateTime<Utc>) -> Option<Params> {
    if v.len() > MAX_PARAMS_LEN || !v.contains('=') {
        return None;
    }
    // (key, value, quoted): a quoted value takes no continuation words.
    let mut pairs: Vec<(String, String, bool)> = Vec::new();
    let mut stray_words = false;
    let mut rest = v;
    while pairs.len() < MAX_PARAMS {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ';' || c == ',');
        if rest.is_empty() {
            break;
        }
        let key_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
            .unwrap_or(rest.len());
        let Some(after_eq) = rest[key_len..].strip_prefix('=').filter(|_| key_len > 0) else {
            // A word that is not a parameter continues an unquoted value. It is not
            // empty: `rest` does not start with a separator.
            let word_end = rest
                .find(|c: char| c.is_whitespace() || c == ';' || c == ',')
                .unwrap_or(rest.len());
            match pairs.last_mut() {
                Some((_, value, false)) => {
                    value.push(' ');
                    value.push_str(&rest[..word_end]);
                }
                _ => stray_words = true,
            }
            rest = &rest[word_end..];
            continue;
        };
        let key = rest[..key_len].to_ascii_lowercase().replace('_', "-");
        if let Some(q) = after_eq.strip_prefix('"') {
            let (text, tail) = link::quoted(q);
            pairs.push((key, text, true));
            rest = tail;
        } else {
            let end = after_eq
                .find(|c: char| c.is_whitespace() || c == ';' || c == ',')
                .unwrap_or(after_eq.len());
            pairs.push((key, after_eq[..end].to_owned(), false));
            rest = &after_eq[end..];
        }
    }
    if pairs.is_empty() {
        return None;
    }
    let mut p = Params {
        since: None,
        sunset: None,
        complete: !stray_words,
    };
    for (key, value, _) in &pairs {
        let slot = match key.as_str() {
            "date" | "since" | "deprecation-date" | "deprecated-since" | "deprecated-at" => {
                &mut p.since
            }
            "sunset" | "until" | "removal" | "sunset-date" | "removal-date" => &mut p.sunset,
            _ => continue,
        };
        match date_value(value, now) {
            Some(t) => *slot = slot.or(Some(t)),
            None => p.complete = false,
        }
    }
    Some(p)
}

/// A bare epoch in seconds (10 or 11 digits) or milliseconds (13 or 14), the forms a
/// Unix timestamp takes between 2001 and 5138.
fn epoch_instant(v: &str) -> Option<DateTime<Utc>> {
    let v = v.trim();
    if !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = v.parse().ok()?;
    match v.len() {
        10 | 11 => DateTime::from_timestamp(n, 0),
        13 | 14 => DateTime::from_timestamp_millis(n),
        _ => None,
    }
}

/// `@<epoch seconds>` (RFC 9745's form) or any date [`reset::parse_timestamp`] reads.
fn date_value(v: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let v = v.trim();
    if let Some(secs) = v.strip_prefix('@') {
        let secs: i64 = secs.parse().ok()?;
        return DateTime::from_timestamp(secs, 0);
    }
    reset::parse_timestamp(v, now)
}

#[cfg(test)]
mod tests;
