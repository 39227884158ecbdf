//! Upstream text made fit to repeat: an excerpt of a body on one line, a header value
//! or a link, without controls, invisible characters or secrets, and quoted when it
//! sits inside one of toolgate's sentences. Apart from the sentences themselves: notes,
//! `_meta` and the upstream kinds repeat upstream text through it too.

use super::secrets::Secrets;

/// What [`excerpt`] says of a body that is not text, after its length: toolgate's words,
/// never quoted as the upstream's.
pub(super) const NON_TEXT: &str = " bytes of non-text";

pub(super) fn is_non_text(excerpt: &str) -> bool {
    excerpt
        .strip_suffix(NON_TEXT)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// How much of a body is read for an excerpt (plus the longest secret, so a secret
/// crossing this point is still seen whole).
const EXCERPT_WINDOW: usize = 4096;
/// Characters of upstream text shown.
const EXCERPT_CHARS: usize = 200;

/// The first 200 characters of a body, on one line, for messages, with every secret
/// in `secrets` replaced by `[redacted]` and control characters removed; a body that
/// is not text is "N bytes of non-text".
pub fn excerpt(body: &[u8], secrets: &Secrets) -> String {
    let window = &body[..body.len().min(EXCERPT_WINDOW + secrets.longest())];
    if !looks_like_text(window) {
        return format!("{}{NON_TEXT}", body.len());
    }
    let text = String::from_utf8_lossy(window);
    // Controls and invisible formatting characters (bidi overrides, zero-width) go:
    // they can hide or reorder what the model and an operator read.
    let visible = visible(&text);
    let mut scrubbed = secrets.scrub(&visible);
    if window.len() < body.len() {
        secrets.drop_partial_tail(&mut scrubbed);
    }
    let one_line: String = scrubbed.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = one_line.chars().take(EXCERPT_CHARS).collect();
    if one_line.chars().count() > EXCERPT_CHARS || window.len() < body.len() {
        out.push('…');
    }
    out
}

/// `text` as a reader sees it, without what could hide or restyle words: whitespace
/// becomes a space; terminal escape sequences (`ESC [ 31 m`, `ESC ] … BEL`) go whole,
/// not just their ESC, which would leave `[31m` behind; other controls and invisible
/// formatting characters (bidi overrides, zero-width, tag characters) go.
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            match chars.peek() {
                // CSI: parameters and intermediates up to a final byte in @..~.
                Some('[') => {
                    chars.next();
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC: up to BEL or ST (ESC \\).
                Some(']') => {
                    chars.next();
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {}
            }
            continue;
        }
        if c.is_whitespace() {
            out.push(' ');
        } else if !c.is_control() && !toolgate_contract::is_invisible(c) {
            out.push(c);
        }
    }
    out
}

/// Upstream text repeated in a note or `_meta` (a `Warning`, a deprecation link): on
/// one line, without controls, secrets scrubbed, at most `max` characters.
pub fn upstream_text(text: &str, secrets: &Secrets, max: usize) -> String {
    let visible = visible(text);
    let scrubbed = secrets.scrub(&visible);
    let mut out: String = scrubbed.chars().take(max).collect();
    if scrubbed.chars().count() > max {
        out.push('…');
    }
    out
}

/// Upstream-written text inside one of toolgate's sentences: a JSON string, so that it
/// reads as a quotation and nothing in it — a `"`, a line break, "toolgate: …" — can end
/// the quotation and go on in toolgate's voice. The text is cleaned first
/// ([`excerpt`], [`upstream_text`]); quoting only frames it.
#[must_use]
pub fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// A successor, deprecation or redirect link worth repeating: URL-ish (absolute http(s)
/// or a path), at most 200 characters, with nothing a URL cannot hold. Anything else — a
/// 20 KB header value, prose, a secret — is not a link and is dropped. What the
/// upstream wrote besides where the link points is dropped too: credentials in its
/// userinfo (`https://user:pass@host/`), and its query and fragment, which carry
/// what a link's owner hands out, not where it leads (an OAuth `code`, a signed URL's
/// `X-Amz-Signature`, a login `token`).
pub fn link(value: &str, secrets: &Secrets) -> Option<String> {
    const MAX_LINK: usize = 200;
    let v = value.trim();
    let urlish = v.starts_with("https://") || v.starts_with("http://") || v.starts_with('/');
    let clean = v
        .chars()
        .all(|c| c.is_ascii_graphic() && !matches!(c, '<' | '>' | '"' | '\\'));
    if !(urlish && clean && v.len() <= MAX_LINK && secrets.scrub(v) == v) {
        return None;
    }
    // Parsing encodes a few characters (`{`, `|`), which may lengthen the link.
    where_it_points(v).filter(|l| l.len() <= MAX_LINK)
}

/// `link` without userinfo, query or fragment; `None` when it does not parse as a URL.
fn where_it_points(link: &str) -> Option<String> {
    // A path (or `//host/path`) is read against a placeholder origin, which is cut off
    // again: only what the upstream wrote comes back.
    const PLACEHOLDER: &str = "http://placeholder.invalid";
    let (mut url, relative) = if link.starts_with("//") {
        (
            url::Url::parse(&format!("http:{link}")).ok()?,
            Some("http:"),
        )
    } else if link.starts_with('/') {
        (
            url::Url::parse(&format!("{PLACEHOLDER}{link}")).ok()?,
            Some(PLACEHOLDER),
        )
    } else {
        (url::Url::parse(link).ok()?, None)
    };
    url.set_username("").ok()?;
    url.set_password(None).ok()?;
    url.set_query(None);
    url.set_fragment(None);
    let text = url.as_str();
    Some(match relative {
        Some(prefix) => text.strip_prefix(prefix)?.to_owned(),
        None => text.to_owned(),
    })
}

/// Text, not bytes: valid UTF-8 (a character cut at the end of the window is fine),
/// no NUL, and few control characters.
fn looks_like_text(window: &[u8]) -> bool {
    let valid = match std::str::from_utf8(window) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && window.len() - e.valid_up_to() < 4,
    };
    if !valid || window.contains(&0) {
        return false;
    }
    let controls = window
        .iter()
        .filter(|b| b.is_ascii_control() && !b.is_ascii_whitespace())
        .count();
    controls * 10 <= window.len()
}

#[cfg(test)]
mod tests;
