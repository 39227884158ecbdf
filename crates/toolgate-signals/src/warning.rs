//! `Warning` header texts (RFC 7234 §5.5), as Kubernetes still sends them.
//!
//! Sources: RFC 7234 §5.5 (`warn-code SP warn-agent SP warn-text [SP warn-date]`, a
//! comma-separated list; obsoleted by RFC 9111 but still used) and Kubernetes API
//! warnings, <https://kubernetes.io/blog/2020/09/03/warnings/>:
//! `Warning: 299 - "extensions/v1beta1 Ingress is deprecated in v1.14+, unavailable in
//! v1.22+; use networking.k8s.io/v1 Ingress"`. Only codes 199 and 299 (miscellaneous
//! warnings, meant for humans) are kept; the 1xx caching codes are noise for an agent.

use crate::Headers;
use crate::link::quoted;

/// The texts of every 199/299 warning, in order, without duplicates.
pub(crate) fn read(h: &Headers<'_>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in h.get_all("warning") {
        for text in parse(&String::from_utf8_lossy(v)) {
            if !out.contains(&text) {
                out.push(text);
            }
        }
    }
    out
}

/// Parses one `Warning` field value into the texts of its 199/299 members.
fn parse(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = value;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if rest.is_empty() {
            return out;
        }
        let code = rest.get(..3).unwrap_or("");
        let after_code = rest.get(3..).unwrap_or("");
        let well_formed = code.bytes().all(|b| b.is_ascii_digit()) && after_code.starts_with(' ');
        if !well_formed {
            rest = after_next_comma(rest);
            continue;
        }
        let after_code = after_code.trim_start();
        let agent_end = after_code
            .find(char::is_whitespace)
            .unwrap_or(after_code.len());
        let Some(text_start) = after_code[agent_end..].trim_start().strip_prefix('"') else {
            rest = after_next_comma(after_code);
            continue;
        };
        let (text, mut tail) = quoted(text_start);
        // Optional warn-date: a second quoted string.
        if let Some(date) = tail.trim_start().strip_prefix('"') {
            tail = quoted(date).1;
        }
        if matches!(code, "199" | "299") && !text.trim().is_empty() {
            out.push(text.trim().to_owned());
        }
        rest = tail;
    }
}

fn after_next_comma(s: &str) -> &str {
    s.split_once(',').map_or("", |(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        let k8s = "extensions/v1beta1 Ingress is deprecated in v1.14+, unavailable in v1.22+; use networking.k8s.io/v1 Ingress";
        let cases: Vec<(String, Vec<&str>)> = vec![
            (format!("299 - \"{k8s}\""), vec![k8s]),
            // two warnings in one field, one with a date; a caching warning dropped
            (
                r#"299 api.example "old \"v1\" API" "Sat, 01 Jan 2000 00:00:00 GMT", 110 - "Response is Stale", 199 - "misc""#.to_owned(),
                vec![r#"old "v1" API"#, "misc"],
            ),
            ("garbage, 299 - \"kept\"".to_owned(), vec!["kept"]),
            ("299 -".to_owned(), vec![]),
            ("299 - \"unterminated".to_owned(), vec!["unterminated"]),
            ("".to_owned(), vec![]),
        ];
        for (input, want) in cases {
            assert_eq!(parse(&input), want, "{input:?}");
        }
    }

    #[test]
    fn repeated_fields_deduplicated() {
        let fields: [(&str, &[u8]); 3] = [
            ("Warning", b"299 - \"a\""),
            ("warning", b"299 - \"b\""),
            ("Warning", b"299 - \"a\""),
        ];
        assert_eq!(read(&Headers::new(&fields)), ["a", "b"]);
    }
}
