//! `Link` header parsing (RFC 8288 §3), enough to find deprecation-related relations.
//!
//! Handles several links per field and several fields, quoted and unquoted `rel`, rel
//! lists (`rel="deprecation successor-version"`), commas and semicolons inside quoted
//! strings and inside `<...>`. Per RFC 8288 §3.3 only the first `rel` parameter of a link
//! counts and relation types compare case-insensitively. Malformed links are skipped, the
//! rest of the field is still read. Used by [`crate::deprecation`].

use crate::Headers;

/// One link: its target and its relation types (lower-cased).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The URI reference between `<` and `>` (or sent bare, see [`parse`]), unresolved.
    pub target: String,
    /// Relation types from the first `rel` parameter, lower-cased.
    pub rels: Vec<String>,
}

impl Link {
    /// Whether this link has relation type `rel` (case-insensitive).
    #[must_use]
    pub fn has_rel(&self, rel: &str) -> bool {
        self.rels.iter().any(|r| r.eq_ignore_ascii_case(rel))
    }
}

/// Every link in every `Link` field, in order.
#[must_use]
pub fn from_headers(headers: &Headers<'_>) -> Vec<Link> {
    headers
        .get_all("link")
        .flat_map(|v| parse(&String::from_utf8_lossy(v)))
        .collect()
}

/// Parses one `Link` field value. A member whose target lacks its `<>` is read when the
/// target is an http(s) URL or an absolute path followed by `;` and its parameters.
///
/// ```
/// let links = toolgate_signals::link::parse(
///     r#"<https://a.example/v2>; rel="successor-version", <https://a.example/d>; rel=deprecation"#,
/// );
/// assert_eq!(links[0].target, "https://a.example/v2");
/// assert!(links[1].has_rel("Deprecation"));
/// ```
#[must_use]
pub fn parse(value: &str) -> Vec<Link> {
    let mut out = Vec::new();
    let mut rest = value;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if rest.is_empty() {
            return out;
        }
        match rest
            .strip_prefix('<')
            .and_then(|r| r.split_once('>'))
            .or_else(|| bare_target(rest))
        {
            Some((target, after)) => {
                let (rels, tail) = params(after);
                out.push(Link {
                    target: target.trim().to_owned(),
                    rels,
                });
                rest = tail;
            }
            // Not a link: skip to the next top-level comma.
            None => rest = skip_to_comma(rest),
        }
    }
}

/// A target sent without its `<>`, as Microsoft Graph's deprecation guidelines show it
/// (`https://docs.microsoft.com/…#2022-03-30_name ; rel="deprecation"`): an absolute
/// http(s) URL or an absolute path, up to the first `;`. Without a `;` there are no
/// parameters, so no relation worth reading; a comma or a space before the `;` means
/// the text is not one URL.
fn bare_target(s: &str) -> Option<(&str, &str)> {
    let starts = |scheme: &[u8]| {
        s.as_bytes()
            .get(..scheme.len())
            .is_some_and(|b| b.eq_ignore_ascii_case(scheme))
    };
    let urlish =
        starts(b"https://") || starts(b"http://") || (s.starts_with('/') && !s.starts_with("//"));
    if !urlish {
        return None;
    }
    let end = s.find(';')?;
    let target = s[..end].trim_end();
    if target.contains(|c: char| c == ',' || c.is_whitespace() || c == '<' || c == '>') {
        return None;
    }
    Some((target, &s[end..]))
}

/// Reads `*( OWS ";" OWS link-param )` up to the next top-level comma; returns the rel
/// list and the unread tail.
fn params(mut s: &str) -> (Vec<String>, &str) {
    let mut rels: Option<Vec<String>> = None;
    loop {
        s = s.trim_start();
        let Some(after) = s.strip_prefix(';') else {
            return (rels.unwrap_or_default(), skip_to_comma(s));
        };
        let after = after.trim_start();
        let name_len = after.find(['=', ';', ',']).unwrap_or(after.len());
        let name = after[..name_len].trim();
        let mut tail = &after[name_len..];
        let mut value = String::new();
        if let Some(v) = tail.strip_prefix('=') {
            let v = v.trim_start();
            if let Some(q) = v.strip_prefix('"') {
                let (text, t) = quoted(q);
                value = text;
                tail = t;
            } else {
                let end = v.find([';', ',']).unwrap_or(v.len());
                value = v[..end].trim().to_owned();
                tail = &v[end..];
            }
        }
        if rels.is_none() && name.eq_ignore_ascii_case("rel") {
            rels = Some(
                value
                    .split_whitespace()
                    .map(str::to_ascii_lowercase)
                    .collect(),
            );
        }
        s = tail;
    }
}

/// Reads a quoted-string body (after the opening quote): unescaped text and the tail.
pub(crate) fn quoted(s: &str) -> (String, &str) {
    let mut text = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (text, &s[i + 1..]),
            '\\' => {
                if let Some((_, e)) = chars.next() {
                    text.push(e);
                }
            }
            _ => text.push(c),
        }
    }
    (text, "")
}

/// Skips to just past the next comma that is outside quotes and angle brackets.
pub(crate) fn skip_to_comma(s: &str) -> &str {
    let (mut in_quote, mut in_angle, mut escaped) = (false, false, false);
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_quote => escaped = true,
            '"' if !in_angle => in_quote = !in_quote,
            '<' if !in_quote => in_angle = true,
            '>' if !in_quote => in_angle = false,
            ',' if !in_quote && !in_angle => return &s[i + 1..],
            _ => {}
        }
    }
    ""
}

#[cfg(test)]
mod tests;
