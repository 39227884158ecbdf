//! Whether an HTML page is a sign-in page: a captive portal, a corporate proxy or a
//! single sign-on gate answering in place of the API (RFC 8952 §2: a captive portal
//! answers any request with its own page until the user signs in). What would fix the
//! call is someone signing in to that gate, so a failed call that got one is the
//! credentials', not an API that changed.
//!
//! A sign-in page asks for a password: it holds an `<input>` tag whose `type` is
//! `password`. A page that sends the caller on to an identity provider is one too
//! ([`sends_to_sign_in`]): a SAML request posted by a form (SAML Bindings §3.5, the
//! `SAMLRequest` field a single sign-on gate writes into its page) or a refresh to an
//! OAuth or OpenID Connect authorization request (`…?client_id=…&response_type=code`),
//! as a proxy or gateway answers a call whose session expired. Only a body that opens as an HTML document is looked at, and only its
//! first [`MAX_SCAN`] bytes; a password field shown as code in a page (`&lt;input
//! type="password"&gt;`) is text, not a tag.

/// Bytes of a page looked at for its password field.
const MAX_SCAN: usize = 4096;
/// Bytes of a page's opening looked at for an HTML document's mark.
const MAX_OPENING: usize = 256;
/// Bytes between a tag's `<` and its `type` attribute looked back over.
const MAX_TAG_HEAD: usize = 200;

/// Whether `body` is an HTML page with a password field among its first bytes.
#[must_use]
pub(crate) fn is_sign_in_page(body: &[u8]) -> bool {
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(body.len());
    let body = &body[start..];
    let opening = &body[..body.len().min(MAX_OPENING)];
    if body.first() != Some(&b'<') || !names_html(opening) {
        return false;
    }
    let head = &body[..body.len().min(MAX_SCAN)];
    // Attribute values are matched in any case (`TYPE=PASSWORD`).
    memchr::memchr2_iter(b'p', b'P', head).any(|at| {
        head.get(at..at + 8)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"password"))
            && is_password_type(head, at)
    }) || sends_to_sign_in(head)
}

/// Whether a page's first bytes send the caller to sign in elsewhere: an `<input>` tag
/// carrying a SAML request (`name="SAMLRequest"`), or a `<meta http-equiv="refresh">`
/// tag whose address is an authorization request (it names both `client_id=` and
/// `response_type=`). A link to a sign-in page is only a link.
fn sends_to_sign_in(head: &[u8]) -> bool {
    let lower = head.to_ascii_lowercase();
    let tag_at = |at: usize| {
        let from = at.saturating_sub(MAX_TAG_HEAD);
        lower[from..at]
            .iter()
            .rposition(|b| matches!(b, b'<' | b'>'))
            .map(|i| from + i)
            .filter(|open| lower[*open] == b'<')
    };
    let tag_end =
        |open: usize| memchr::memchr(b'>', &lower[open..]).map_or(lower.len(), |end| open + end);
    let saml_request = memchr::memmem::find_iter(&lower, b"samlrequest").any(|at| {
        let named = lower[..at].ends_with(b"name=\"")
            || lower[..at].ends_with(b"name='")
            || lower[..at].ends_with(b"name=");
        named && tag_at(at).is_some_and(|open| lower[open + 1..].starts_with(b"input"))
    });
    let refresh_to_authorize = memchr::memmem::find_iter(&lower, b"<meta").any(|open| {
        let tag = &lower[open..tag_end(open)];
        let has = |word: &[u8]| memchr::memmem::find(tag, word).is_some();
        has(b"http-equiv") && has(b"refresh") && has(b"client_id=") && has(b"response_type=")
    });
    saml_request || refresh_to_authorize
}

/// Whether the page's opening names an HTML document (`<!DOCTYPE html>`, `<html`).
fn names_html(opening: &[u8]) -> bool {
    opening
        .windows(5)
        .any(|w| w.eq_ignore_ascii_case(b"<html") || w.eq_ignore_ascii_case(b"html>"))
        || opening
            .windows(14)
            .any(|w| w.eq_ignore_ascii_case(b"<!doctype html"))
}

/// Whether the `password` at `at` is the value of a `type` attribute inside an `<input`
/// tag: `type="password"`, `type='password'`, `TYPE=password`.
fn is_password_type(head: &[u8], at: usize) -> bool {
    let before = &head[..at];
    let before = before
        .strip_suffix(b"\"")
        .or_else(|| before.strip_suffix(b"'"))
        .unwrap_or(before);
    let Some(before) = before.strip_suffix(b"=") else {
        return false;
    };
    if before.len() < 4 || !before[before.len() - 4..].eq_ignore_ascii_case(b"type") {
        return false;
    }
    // The nearest `<` or `>` before it must open an `<input` tag.
    let from = before.len().saturating_sub(MAX_TAG_HEAD);
    let Some(open) = before[from..]
        .iter()
        .rposition(|b| matches!(b, b'<' | b'>'))
        .map(|i| from + i)
    else {
        return false;
    };
    before[open] == b'<'
        && before
            .get(open + 1..open + 6)
            .is_some_and(|name| name.eq_ignore_ascii_case(b"input"))
}

#[cfg(test)]
mod tests {
    use super::is_sign_in_page;

    #[test]
    fn a_page_with_a_password_field_is_a_sign_in_page() {
        let padding = "<style>body{margin:0}</style>".repeat(20);
        for page in [
            r#"<!DOCTYPE html><html><body><form><input type="password" name="pw"></form></body></html>"#.to_owned(),
            format!("\n<html><head>{padding}</head><body><form method=post><INPUT NAME=pass TYPE=PASSWORD></form></body></html>"),
            r#"<html><body><input class="field" id="p" type='password'></body></html>"#.to_owned(),
        ] {
            assert!(is_sign_in_page(page.as_bytes()), "{page}");
        }
    }

    #[test]
    fn a_page_that_sends_the_caller_to_an_identity_provider_is_a_sign_in_page() {
        for page in [
            r#"<!DOCTYPE html><html><body onload="document.forms[0].submit()"><form method="post" action="https://idp.example.org/SAML2/SSO/POST"><input type="hidden" name="SAMLRequest" value="PHNhbWxw"/></form></body></html>"#,
            r#"<html><head><meta http-equiv="refresh" content="0;URL='https://login.example.com/authorize?client_id=abc&amp;response_type=code'"></head></html>"#,
        ] {
            assert!(is_sign_in_page(page.as_bytes()), "{page}");
        }
    }

    #[test]
    fn a_link_to_sign_in_or_a_page_naming_saml_is_not() {
        for page in [
            r#"<html><body><a href="https://login.example.com/authorize?client_id=abc&response_type=code">Sign in</a></body></html>"#,
            r#"<html><head><meta http-equiv="refresh" content="30"></head><body><p>SAMLRequest is a form field.</p></body></html>"#,
            r#"<html><body><input type="hidden" name="lang" value="en"></body></html>"#,
        ] {
            assert!(!is_sign_in_page(page.as_bytes()), "{page}");
        }
    }

    #[test]
    fn a_page_without_one_or_another_body_is_not() {
        for body in [
            // A search form, a password shown as code, a password named in words.
            r#"<!DOCTYPE html><html><body><form><input type="search" name="q"></form></body></html>"#,
            r#"<html><body><pre>&lt;input type="password"&gt;</pre></body></html>"#,
            r#"<html><body><p>Reset your password at the portal.</p></body></html>"#,
            // Not an HTML document: JSON data and XML holding the same words.
            r#"{"html":"<input type=\"password\">"}"#,
            r#"<config><field type="password"/></config>"#,
            "",
            "<",
        ] {
            assert!(!is_sign_in_page(body.as_bytes()), "{body}");
        }
    }

    #[test]
    fn only_the_first_bytes_are_read() {
        let late = format!(
            "<html><body>{}<input type=\"password\"></body></html>",
            "x".repeat(5000)
        );
        assert!(!is_sign_in_page(late.as_bytes()));
    }
}
