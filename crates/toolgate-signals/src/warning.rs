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
//! deprecated, and the replacement it names ("…; use X", "use X instead").

use crate::link::{quoted, skip_to_comma};
use crate::{Headers, Notice};

/// Longest successor name taken from a warning text; longer ones are not names.
const MAX_SUCCESSOR: usize = 200;
/// At most this many notices per response: an upstream controls how many it sends.
const MAX_NOTICES: usize = 16;
/// Longest warning text passed on, in characters; longer texts are cut with "…", since
/// each one is shown to the model.
const MAX_TEXT: usize = 1000;

/// Every 199/299 warning, in order, without duplicate texts.
pub(crate) fn read(h: &Headers<'_>) -> Vec<Notice> {
    let mut out: Vec<Notice> = Vec::new();
    for v in h.get_all("warning") {
        for (code, text) in parse(&String::from_utf8_lossy(v)) {
            if out.len() < MAX_NOTICES && !out.iter().any(|n| n.text == text) {
                out.push(notice(code, text));
            }
        }
    }
    out
}

fn notice(code: u16, mut text: String) -> Notice {
    if let Some((cut, _)) = text.char_indices().nth(MAX_TEXT) {
        text.truncate(cut);
        text.push('…');
    }
    Notice {
        code,
        deprecation: says_deprecated(&text),
        successor: successor(&text),
        text,
    }
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
        || before.ends_with("un")
        || before.ends_with("be"))
}

/// The replacement named by "…; use X", "…, use X instead", "Please use X.".
fn successor(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let start = [
        "; use ",
        ", use ",
        ". use ",
        "please use ",
        "; instead use ",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubernetes_warning_with_commas_and_escaped_quotes_is_one_warning() {
        // https://kubernetes.io/blog/2020/09/03/warnings/ — the documented example.
        let k8s = "extensions/v1beta1 Ingress is deprecated in v1.14+, unavailable in v1.22+; use networking.k8s.io/v1 Ingress";
        let cases: Vec<(String, Vec<(u16, &str)>)> = vec![
            (format!("299 - \"{k8s}\""), vec![(299, k8s)]),
            // escaped quotes and commas inside the text, a second member after it
            (
                r#"299 - "field \"spec.x\" is deprecated, ignored, and will be dropped", 299 - "second""#.to_owned(),
                vec![(299, r#"field "spec.x" is deprecated, ignored, and will be dropped"#), (299, "second")],
            ),
            // two warnings in one field, one with a date; a caching warning dropped
            (
                r#"299 api.example "old \"v1\" API" "Sat, 01 Jan 2000 00:00:00 GMT", 110 - "Response is Stale", 199 - "misc""#.to_owned(),
                vec![(299, r#"old "v1" API"#), (199, "misc")],
            ),
            ("garbage, 299 - \"kept\"".to_owned(), vec![(299, "kept")]),
            // a malformed member whose quoted text has commas does not split the next one
            (
                r#"junk "a, 299 - b", 299 - "real""#.to_owned(),
                vec![(299, "real")],
            ),
            ("299 -\"no space before the quote\"".to_owned(), vec![(299, "no space before the quote")]),
            ("299 -".to_owned(), vec![]),
            ("299 - \"unterminated, with comma".to_owned(), vec![(299, "unterminated, with comma")]),
            ("é99 - \"x\", 299 - \"y\"".to_owned(), vec![(299, "y")]),
            ("".to_owned(), vec![]),
        ];
        for (input, want) in cases {
            let got = parse(&input);
            let got: Vec<(u16, &str)> = got.iter().map(|(c, t)| (*c, t.as_str())).collect();
            assert_eq!(got, want, "{input:?}");
        }
    }

    #[test]
    fn successor_and_deprecation_are_taken_from_the_text() {
        // (text, says deprecated, successor)
        let cases: &[(&str, bool, Option<&str>)] = &[
            // Kubernetes' documented example
            (
                "extensions/v1beta1 Ingress is deprecated in v1.14+, unavailable in v1.22+; use networking.k8s.io/v1 Ingress",
                true,
                Some("networking.k8s.io/v1 Ingress"),
            ),
            // Kubernetes' own deprecation guide: "policy/v1beta1 PodSecurityPolicy is
            // deprecated in v1.21+, unavailable in v1.25+"
            (
                "policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+, unavailable in v1.25+",
                true,
                None,
            ),
            ("v1 is deprecated, use v2 instead.", true, Some("v2")),
            (
                "This endpoint will be deprecated soon; use /v3/items",
                false,
                Some("/v3/items"),
            ),
            ("this flag is not deprecated", false, None),
            ("Please use `search_v2`.", false, Some("search_v2")),
            ("quota nearly used", false, None),
        ];
        for (text, deprecated, succ) in cases {
            let n = notice(299, (*text).to_owned());
            assert_eq!(
                (n.deprecation, n.successor.as_deref()),
                (*deprecated, *succ),
                "{text}"
            );
        }
    }

    #[test]
    fn repeated_fields_deduplicated_and_capped() {
        let fields: [(&str, &[u8]); 3] = [
            ("Warning", b"299 - \"a\""),
            ("warning", b"299 - \"b\""),
            ("Warning", b"299 - \"a\""),
        ];
        let texts: Vec<String> = read(&Headers::new(&fields))
            .into_iter()
            .map(|n| n.text)
            .collect();
        assert_eq!(texts, ["a", "b"]);
        let many: Vec<String> = (0..40).map(|i| format!("299 - \"w{i}\"")).collect();
        let fields: Vec<(&str, &[u8])> = many.iter().map(|v| ("Warning", v.as_bytes())).collect();
        assert_eq!(read(&Headers::new(&fields)).len(), MAX_NOTICES);
        let long = format!("299 - \"{}\"", "é".repeat(5000));
        let fields: [(&str, &[u8]); 1] = [("Warning", long.as_bytes())];
        let text = &read(&Headers::new(&fields))[0].text;
        assert_eq!(text.chars().count(), MAX_TEXT + 1);
        assert!(text.ends_with('…'));
    }
}
