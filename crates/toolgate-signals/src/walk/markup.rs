//! Error bodies in XML: each element holding text is read as the JSON field of its
//! name would be ([`super::field`]), so a SOAP fault's `<ErrorCode>CallRateExceeded
//! </ErrorCode>` (Microsoft Advertising's code 117) and `<faultstring>`, an S3-style
//! `<Code>SlowDown</Code>` or a `<RetryAfter>30</RetryAfter>` say what the same names
//! say in JSON. Namespace prefixes are dropped (`s:Fault`, `h:TrackingId`).
//!
//! HTML pages are not read as fields. Their title and headings are read as a message
//! is ([`page_headings`]): they state the failure in a line, and a throttle stated there
//! is one whatever the status ("403.502 - Forbidden: Too many requests from the same
//! client IP; Dynamic IP Restriction Maximum request rate limit reached.", a web server's
//! answer to a client over its request rate). The rest of a page's text is for people.
//! What a page's text says of time is kept, though, as a message's is: an edge or hosting
//! page that blocks for a while often states the wait nowhere else ("a temporary block
//! has been applied which will be automatically lifted after 10 seconds", OS Cloud's
//! error 1015 page). It is kept as a wait in words ([`Walked::text_wait`]), which counts
//! only on a reply that says it is throttled; a page's running text never decides that it is.
//! A wait the page tells the caller to keep ("lifted automatically by waiting 10
//! minutes", SEC.gov's traffic page) is an instruction, as in a message
//! ([`Walked::told_wait`]): it says what mends the refusal, throttled or not.
//! Scripts and styles are code, not text. Work is bounded: at most [`MAX_TAGS`] tags are
//! looked at, and texts longer than [`super::MAX_MESSAGE`] bytes are skipped.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::{MAX_MESSAGE, Walked, field};

/// Tags (opening, closing or other) looked at per body.
const MAX_TAGS: usize = 256;

/// Reads the text elements of an XML body into `out`, and the waits an HTML page states
/// in its text; nothing for any other text.
pub(super) fn read(text: &str, now: DateTime<Utc>, out: &mut Walked) {
    let text = text.trim_start();
    if !text.starts_with('<') {
        return;
    }
    if is_html(text) {
        page_waits(text, now, out);
        // A page's title and headings state the failure in a line, as a message does:
        // "403.502 - Forbidden: Too many requests from the same client IP" is a throttle
        // whatever its status. Its running text is not read for that.
        for line in page_headings(text) {
            field("message", &Value::String(line.to_owned()), now, out);
        }
        return;
    }
    for (local, value) in elements(text, MAX_TAGS) {
        if is_fault_type(local) {
            // A SOAP fault's detail names its type by an element (NetSuite's
            // `<platformFaults:exceededConcurrentRequestLimitFault>`): the name is the
            // fault's code, as `ErrorCode` would hold it.
            field("type", &Value::String(local.to_owned()), now, out);
        }
        if local.is_empty() || value.is_empty() || value.len() > MAX_MESSAGE {
            continue;
        }
        field(local, &Value::String(value.to_owned()), now, out);
    }
}

/// The tags of an XML text that open an element, at most `max_tags` tags read (closing
/// tags, declarations and comments counted but skipped): each one as written between `<`
/// and `>`, and its text up to the next tag, trimmed.
fn opening_tags(text: &str, max_tags: usize) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = text;
    let mut tags = 0;
    std::iter::from_fn(move || {
        while tags < max_tags {
            tags += 1;
            let open = rest.find('<')?;
            let after = &rest[open + 1..];
            let close = after.find('>')?;
            let tag = &after[..close];
            rest = &after[close + 1..];
            if tag.starts_with(['/', '?', '!']) {
                continue;
            }
            let end = rest.find('<').unwrap_or(rest.len());
            return Some((tag, rest[..end].trim()));
        }
        None
    })
}

/// The elements of an XML text, at most `max_tags` tags read: each opening tag's local
/// name (its namespace prefix dropped) and its text up to the next tag, trimmed. Empty
/// elements hold no text and are skipped.
pub(crate) fn elements(text: &str, max_tags: usize) -> impl Iterator<Item = (&str, &str)> {
    opening_tags(text, max_tags)
        .filter(|(tag, _)| !tag.ends_with('/'))
        .map(|(tag, text)| {
            let name = tag.split_whitespace().next().unwrap_or_default();
            (name.rsplit(':').next().unwrap_or(name), text)
        })
}

/// The opening tags of an XML text, at most `max_tags` tags read, empty elements
/// (`<err code="98" msg="Invalid auth token" />`) included: each one's local name, the
/// attributes written in it ([`attributes`] reads them) and its text up to the next tag,
/// trimmed.
pub(crate) fn start_tags(text: &str, max_tags: usize) -> impl Iterator<Item = (&str, &str, &str)> {
    opening_tags(text, max_tags).map(|(tag, text)| {
        let tag = tag.strip_suffix('/').unwrap_or(tag);
        let (name, attrs) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
        (name.rsplit(':').next().unwrap_or(name), attrs, text)
    })
}

/// The attributes written in a tag, `name="value"` or `name='value'`: each one's local
/// name (its namespace prefix dropped) and its value as written. Namespace declarations
/// (`xmlns`, `xmlns:d`) are skipped; reading stops at the first attribute that is not
/// quoted.
pub(crate) fn attributes(attrs: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = attrs;
    std::iter::from_fn(move || {
        loop {
            let (name, after) = rest.split_once('=')?;
            let name = name.trim();
            let after = after.trim_start();
            let quote = after.chars().next().filter(|q| matches!(q, '"' | '\''))?;
            let (value, tail) = after[1..].split_once(quote)?;
            rest = tail;
            if name == "xmlns" || name.starts_with("xmlns:") {
                continue;
            }
            return Some((name.rsplit(':').next().unwrap_or(name), value));
        }
    })
}

/// Title and heading lines read from one page.
const MAX_HEADINGS: usize = 6;

/// The text of an HTML page's `<title>` and `<h1>`–`<h4>` headings, at most
/// [`MAX_HEADINGS`] of them among its first [`MAX_TAGS`] tags, each the text up to the
/// next tag, trimmed, and at most [`MAX_MESSAGE`] bytes (a longer one is skipped).
pub(crate) fn page_headings(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = text;
    for _ in 0..MAX_TAGS {
        if lines.len() >= MAX_HEADINGS {
            break;
        }
        let Some(open) = rest.find('<') else {
            break;
        };
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else {
            break;
        };
        let name = after[..close].split_whitespace().next().unwrap_or_default();
        rest = &after[close + 1..];
        let heading = ["title", "h1", "h2", "h3", "h4"]
            .iter()
            .any(|h| name.eq_ignore_ascii_case(h));
        if !heading {
            continue;
        }
        let end = rest.find('<').unwrap_or(rest.len());
        let line = rest[..end].trim();
        if !line.is_empty() && line.len() <= MAX_MESSAGE {
            lines.push(line);
        }
    }
    lines
}

/// The waits an HTML page's text states: each run of text between tags is read as a
/// message is for a time to come, outside scripts and styles.
fn page_waits(text: &str, now: DateTime<Utc>, out: &mut Walked) {
    let mut rest = text;
    let mut code = false;
    for _ in 0..MAX_TAGS {
        let Some(open) = rest.find('<') else {
            return;
        };
        let run = rest[..open].trim();
        if !code && !run.is_empty() && run.len() <= MAX_MESSAGE {
            out.text_wait = out
                .text_wait
                .max(crate::wait_text::wait_in(run))
                .max(crate::wait_text::wait_until(run, now));
            // A page that tells the caller to wait says what mends the refusal, as a
            // message does (SEC.gov's "lifted automatically by waiting 10 minutes").
            out.told_wait = out.told_wait.max(crate::wait_text::told_to_wait(run));
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else {
            return;
        };
        let tag = after[..close].to_ascii_lowercase();
        let name = tag.split_whitespace().next().unwrap_or_default();
        // A script's own `<` (`if (a<b)`) does not end it: only its closing tag does.
        match name {
            "script" | "style" => code = true,
            "/script" | "/style" => code = false,
            _ => {}
        }
        rest = &after[close + 1..];
    }
}

/// An element named as a fault or exception type (`…Fault`, `…Exception`), but not
/// the envelope's own `Fault`, whose name says nothing of which fault it is.
fn is_fault_type(local: &str) -> bool {
    let lower = local.to_ascii_lowercase();
    ["fault", "exception"].iter().any(|suffix| {
        lower
            .strip_suffix(suffix)
            .is_some_and(|head| head.len() >= 3 && head.bytes().all(|b| b.is_ascii_alphanumeric()))
    })
}

/// Whether the markup is an HTML page rather than an XML document.
fn is_html(text: &str) -> bool {
    let head: String = text
        .chars()
        .take(16)
        .collect::<String>()
        .to_ascii_lowercase();
    head.starts_with("<!doctype html") || head.starts_with("<html")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn walked(body: &str) -> Walked {
        let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap_or_default();
        let mut out = Walked::default();
        read(body, now, &mut out);
        out
    }

    #[test]
    fn a_throttle_code_or_message_in_any_element_is_read() {
        // A SOAP fault whose first code is a number and whose second names the throttle.
        let soap = r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault><faultcode>s:Server</faultcode><faultstring>Invalid client data.</faultstring><detail><AdApiFaultDetail><Errors><AdApiError><Code>117</Code><ErrorCode>CallRateExceeded</ErrorCode></AdApiError></Errors></AdApiFaultDetail></detail></s:Fault></s:Body></s:Envelope>"#;
        assert_eq!(walked(soap).reason.as_deref(), Some("CallRateExceeded"));
        // The throttle said only in the fault's words.
        let said = r#"<?xml version="1.0"?><soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><soap:Fault><faultstring>Too many requests, slow down</faultstring></soap:Fault></soap:Body></soap:Envelope>"#;
        assert!(walked(said).throttled_text);
        // S3's `<Code>SlowDown</Code>`, and a wait element in seconds.
        let s3 = "<Error><Code>SlowDown</Code><RetryAfter>30</RetryAfter></Error>";
        let w = walked(s3);
        assert_eq!(w.reason.as_deref(), Some("SlowDown"));
        assert_eq!(w.wait.map(|d| d.as_secs()), Some(30));
        // The fault's type said by the name of an element in its detail (NetSuite).
        let typed = r#"<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><soapenv:Fault><faultcode>soapenv:Server.userException</faultcode><faultstring>WS_REQUEST_BLOCKED</faultstring><detail><platformFaults:exceededConcurrentRequestLimitFault xmlns:platformFaults="urn:faults_2024_1.platform.webservices.netsuite.com"><platformFaults:code>WS_REQUEST_BLOCKED</platformFaults:code></platformFaults:exceededConcurrentRequestLimitFault></detail></soapenv:Fault></soapenv:Body></soapenv:Envelope>"#;
        assert_eq!(
            walked(typed).reason.as_deref(),
            Some("exceededConcurrentRequestLimitFault")
        );
        let exception = "<Error><ns:RequestLimitExceededException><Message>x</Message></ns:RequestLimitExceededException></Error>";
        assert!(walked(exception).reason.is_some());
    }

    #[test]
    fn a_wait_an_html_page_states_in_its_text_is_kept() {
        // OS Cloud's error 1015 page: the wait is in a paragraph and nowhere else.
        let oscloud = "<html><head><title>Error 1015: Rate Limited</title></head><body><p>To prevent abuse, a temporary block has been applied which will be automatically lifted after 10 seconds.</p></body></html>";
        let w = walked(oscloud);
        assert_eq!(w.text_wait, Some(Duration::from_secs(10)));
        // Its title names the throttle, as a message would.
        assert!(w.throttled_text || w.reason.is_some());
        // Another shape of the same: a doctype, nested markup, a wait in minutes and an
        // instant to wait until.
        let nested = "<!DOCTYPE html><html><body><div class=\"box\"><h2>Slow down</h2><p>You can send requests again <b>in 2 minutes</b>.</p></div></body></html>";
        assert_eq!(walked(nested).text_wait, Some(Duration::from_secs(120)));
        let until = "<html><body><p>Blocked until 2025-06-01T12:00:30Z</p></body></html>";
        assert_eq!(walked(until).text_wait, Some(Duration::from_secs(30)));
        // Scripts and styles are code: a timer in them is not a wait told to the reader.
        let script = "<html><head><script>if (a<b) { setTimeout(reload, 1000); } // retry in 5 seconds</script><style>p{transition: all 3s}</style></head><body><p>Too many requests</p></body></html>";
        assert_eq!(walked(script).text_wait, None);
        assert_eq!(walked(script).told_wait, None);
    }

    #[test]
    fn a_wait_an_html_page_tells_the_caller_to_keep_is_an_instruction() {
        // SEC.gov's traffic page, sent with a 403: waiting is what lifts the block.
        let sec = "<html><body><h1>You've Exceeded the SEC's Traffic Limit</h1><p>Your access to SEC.gov will be limited for 10 minutes.</p><p>The block will be lifted automatically by waiting 10 minutes.</p></body></html>";
        assert_eq!(walked(sec).told_wait, Some(Duration::from_secs(600)));
        // Another page telling the wait in the usual words, and one only saying when
        // something happens, which is no instruction.
        let told = "<!DOCTYPE html><html><body><p>Access suspended. Please wait 2 minutes before trying again.</p></body></html>";
        assert_eq!(walked(told).told_wait, Some(Duration::from_secs(120)));
        let when = "<html><body><p>Your link expires in 10 minutes.</p></body></html>";
        assert_eq!(walked(when).told_wait, None);
    }

    #[test]
    fn ordinary_faults_html_pages_and_hostile_markup_say_nothing() {
        let auth = r#"<s:Envelope><s:Body><s:Fault><faultcode>s:Client</faultcode><faultstring>Authentication failed.</faultstring><detail><Code>105</Code><ErrorCode>InvalidCredentials</ErrorCode></detail></s:Fault></s:Body></s:Envelope>"#;
        let w = walked(auth);
        assert!(w.reason.is_none() && !w.throttled_text && w.wait.is_none());
        // Fault types of other kinds, and a limit on a size, are no throttle.
        for typed in [
            "<detail><ns:invalidCredentialsFault><ns:code>INVALID_LOGIN</ns:code></ns:invalidCredentialsFault></detail>",
            "<detail><ns:exceededRequestSizeLimitFault><ns:code>WS_REQUEST_TOO_LARGE</ns:code></ns:exceededRequestSizeLimitFault></detail>",
            "<s:Envelope><s:Body><s:Fault><faultstring>x</faultstring></s:Fault></s:Body></s:Envelope>",
        ] {
            assert!(walked(typed).reason.is_none(), "{typed}");
        }
        // A page's running text is for people: it is not a field.
        let page = "<!DOCTYPE html><html><head><title>Sorry</title></head><body><p>Too Many Requests</p></body></html>";
        assert!(!walked(page).throttled_text);
        // A page's running text never says throttled, and states no wait without an
        // amount of time.
        let vague = "<html><body><h1>Sorry</h1><p>Rate limited. Please wait a few minutes, error 1015.</p></body></html>";
        let w = walked(vague);
        assert!(!w.throttled_text && w.reason.is_none() && w.text_wait.is_none());
        // Unclosed tags, nothing but tags, and many tags stay bounded and silent.
        for b in ["<", "<a", "<<<>>>", "<a></a>", &"<x>".repeat(100_000)] {
            let w = walked(b);
            assert!(w.reason.is_none() && !w.throttled_text, "{b:.20}");
        }
    }
}
