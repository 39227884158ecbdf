//! Deprecation notices a successful XML answer carries beside its data.
//!
//! XML APIs report warnings in the answer rather than in headers: Acumulus puts
//! `<warnings><warning><code/><codetag/><message/></warning></warnings>` beside every
//! answer's data (<https://www.siel.nl/acumulus/API/Basic_Response/>), SOAP services a
//! `<Warning>` in the envelope's header or a `statusDetail` of type warning (NetSuite).
//! The rule is the one a JSON answer's notices follow (`body/notices.rs`): the text of
//! an element whose name speaks of a warning, deprecation, notice or sunset, or of any
//! element inside one, is a notice when it speaks of a deprecation, removal or end of
//! life, and declares the called resource deprecated only when its words are about the
//! API, endpoint, method or version. Everything else in such an element (a code, a tag,
//! "the default NL was used") stays silent.
//!
//! HTML pages are words for people, not an API's answer, and are not read. Only the
//! first and last [`super::SUCCESS_WINDOW`] bytes are looked at, after the same cheap
//! word search the JSON reader makes, and at most [`MAX_TAGS`] tags in each.

use chrono::{DateTime, Utc};

use super::notices::{self, Found};
use crate::walk::normalise;
use crate::warning::{self, Retirement};

/// Tags looked at per window.
const MAX_TAGS: usize = 256;
/// Longest text run read as a notice.
const MAX_RUN: usize = 1000;

/// The notices of a successful XML answer; `None` when the body is not XML.
pub(super) fn read(body: &[u8], window: usize, now: DateTime<Utc>) -> Option<Found> {
    let first = body.iter().position(|b| !b.is_ascii_whitespace())?;
    if body[first] != b'<' || is_html(&body[first..]) {
        return None;
    }
    let mut texts: Vec<String> = Vec::new();
    let mut retirements: Vec<Retirement> = Vec::new();
    let head_end = body.len().min(window);
    let tail_start = body.len().saturating_sub(window).max(head_end);
    for range in [0..head_end, tail_start..body.len()] {
        let w = &body[range];
        if w.is_empty() || !notices::mentions_notice(w) {
            continue;
        }
        scan(
            &String::from_utf8_lossy(w),
            now,
            &mut texts,
            &mut retirements,
        );
    }
    Some(Found {
        warnings: texts,
        deprecation: warning::declared(&retirements),
    })
}

/// Reads the text runs inside notice-named elements of `text`.
fn scan(text: &str, now: DateTime<Utc>, texts: &mut Vec<String>, out: &mut Vec<Retirement>) {
    // How many notice-named elements are open around the current point.
    let mut inside: usize = 0;
    let mut rest = text;
    for _ in 0..MAX_TAGS {
        let Some(open) = rest.find('<') else {
            return;
        };
        let run = rest[..open].trim();
        if inside > 0 && !run.is_empty() && run.len() <= MAX_RUN {
            notices::text(&unescape(run), now, texts, out);
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else {
            return;
        };
        let tag = &after[..close];
        rest = &after[close + 1..];
        // Declarations, comments and empty elements hold no text.
        if tag.starts_with(['?', '!']) || tag.ends_with('/') {
            continue;
        }
        let closing = tag.starts_with('/');
        let name = tag
            .trim_start_matches('/')
            .split_whitespace()
            .next()
            .unwrap_or_default();
        let local = name.rsplit(':').next().unwrap_or(name);
        if notices::is_notice_name(&normalise(local)) {
            inside = if closing {
                inside.saturating_sub(1)
            } else {
                inside + 1
            };
        }
    }
}

/// The five predefined entities, enough to read words.
fn unescape(run: &str) -> String {
    run.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

fn is_html(body: &[u8]) -> bool {
    let head = &body[..body.len().min(16)];
    let lower = head.to_ascii_lowercase();
    lower.starts_with(b"<!doctype html") || lower.starts_with(b"<html")
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap()
    }

    #[test]
    fn a_warning_element_about_the_call_is_a_notice() {
        // Acumulus' basic response with a deprecation among its warnings.
        let body = br#"<?xml version="1.0" encoding="UTF-8"?><myxml><invoice><invoicenumber>1</invoicenumber></invoice><warnings><warning><code>299</code><codetag>W4DEPR01</codetag><message>This API call is deprecated and will be removed on 2026-01-01. Please use version 2.</message></warning><count_warnings>1</count_warnings></warnings><status>2</status></myxml>"#;
        let f = read(body, 1024, now()).unwrap();
        assert_eq!(f.warnings.len(), 1, "{:?}", f.warnings);
        let d = f.deprecation.expect("deprecated");
        assert!(d.deprecated);
        assert_eq!(
            d.sunset,
            Some(Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap())
        );
        // A SOAP header's own warning element, with a namespace prefix.
        let soap = br#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header><ns:DeprecationNotice xmlns:ns="urn:x">Version 2019_1 of this service is deprecated; use 2024_2.</ns:DeprecationNotice></soap:Header><soap:Body><GetResponse/></soap:Body></soap:Envelope>"#;
        assert!(read(soap, 1024, now()).unwrap().deprecation.is_some());
    }

    #[test]
    fn other_words_codes_and_data_stay_silent() {
        for body in [
            // A warning about the data.
            &br#"<myxml><warnings><warning><code>403</code><message>Customer country code was not set; the default NL was used.</message></warning></warnings></myxml>"#[..],
            // Retirement words outside any notice element are the data's.
            br#"<products><product><name>Widget</name><state>This product is discontinued and will be removed on 2026-01-01</state></product></products>"#,
            // A version header, a type named Warning.
            br#"<s:Envelope><s:Header><h:ServerVersionInfo Version="V2018_01_08"/></s:Header><s:Body><b:Type>Warning</b:Type></s:Body></s:Envelope>"#,
        ] {
            let f = read(body, 1024, now()).unwrap();
            assert!(f.deprecation.is_none(), "{}", String::from_utf8_lossy(body));
            assert!(f.warnings.is_empty(), "{}", String::from_utf8_lossy(body));
        }
        // Not XML at all, or a page for people.
        assert!(read(br#"{"warning":"x"}"#, 1024, now()).is_none());
        assert!(
            read(
                b"<!DOCTYPE html><html><p class=warning>deprecated</p></html>",
                1024,
                now()
            )
            .is_none()
        );
    }

    #[test]
    fn hostile_markup_stays_bounded() {
        let deep = "<warning>".repeat(50_000) + "API deprecated";
        let f = read(deep.as_bytes(), 1024, now()).unwrap();
        assert!(f.warnings.len() <= 4);
        let unclosed = b"<warning><message>This API is deprecated";
        assert!(read(unclosed, 1024, now()).is_some());
        let cut = "<warning>Dépréciée é".as_bytes();
        assert!(read(&cut[..cut.len() - 1], 1024, now()).is_some());
    }
}
