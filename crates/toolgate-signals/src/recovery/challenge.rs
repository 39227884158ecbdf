//! The `error` a `WWW-Authenticate` challenge names (RFC 6750 §3.1: `Bearer
//! error="invalid_token"`; RFC 9449's `DPoP error="invalid_dpop_proof"`; RFC 9470's
//! `insufficient_user_authentication`), read as a code is read in a body: by its words
//! (`said.rs`), so `invalid_token` is refused credentials, `insufficient_scope` a scope
//! the credentials lack, `invalid_request` the request itself. The status alone
//! cannot tell them apart: RFC 6750 allows each on a 400, 401 or 403. Any scheme's
//! `error` parameter is read; a challenge without one (`Basic realm="x"`) says nothing.
//!
//! Bounded: at most [`MAX_FIELDS`] fields of at most [`MAX_VALUE`] bytes, and
//! [`MAX_PARAMS`] parameters each.

use super::Recovery;
use crate::headers::Headers;

/// `WWW-Authenticate` fields read.
const MAX_FIELDS: usize = 4;
/// Longest field value read.
const MAX_VALUE: usize = 2048;
/// Parameters read from one field.
const MAX_PARAMS: usize = 32;
/// Longest scope kept.
const MAX_SCOPE: usize = 200;

/// What the reply's challenges say would fix the failure.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Challenge {
    /// The fix the first named `error` says.
    pub recovery: Option<Recovery>,
    /// The scope an `insufficient_scope` challenge says the request needs.
    pub scope: Option<String>,
}

/// Reads every `WWW-Authenticate` field of the reply.
pub(crate) fn read(headers: &Headers<'_>) -> Challenge {
    let mut out = Challenge::default();
    let fields = headers
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("www-authenticate"))
        .take(MAX_FIELDS);
    for (_, value) in fields {
        let Ok(value) = std::str::from_utf8(value) else {
            continue;
        };
        if value.len() > MAX_VALUE {
            continue;
        }
        let params = params(value);
        let Some(error) = params.iter().find(|(k, _)| k.eq_ignore_ascii_case("error")) else {
            continue;
        };
        let said = super::said::decide(std::slice::from_ref(&error.1), None, false);
        if out.recovery.is_none() {
            out.recovery = said;
        }
        if error.1.eq_ignore_ascii_case("insufficient_scope") && out.scope.is_none() {
            out.scope = params
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("scope"))
                .map(|(_, v)| v.trim())
                // RFC 6749 §3.3: scope tokens of printable ASCII but `"` and `\`, one
                // space apart; anything else is not a scope and is not repeated.
                .filter(|v| {
                    !v.is_empty()
                        && v.len() <= MAX_SCOPE
                        && v.bytes()
                            .all(|b| b == b' ' || (b.is_ascii_graphic() && b != b'"' && b != b'\\'))
                })
                .map(str::to_owned);
        }
    }
    out
}

/// The `name=value` parameters of one field, in order, whatever schemes they belong
/// to (RFC 9110 §11.2: `token68` and scheme names are skipped; a quoted value is
/// unescaped). A malformed rest is dropped, never guessed at.
fn params(value: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let bytes = value.as_bytes();
    let mut i = 0;
    while i < bytes.len() && out.len() < MAX_PARAMS {
        while i < bytes.len() && matches!(bytes[i], b' ' | b',') {
            i += 1;
        }
        // A name: a run of token characters.
        let start = i;
        while i < bytes.len() && is_tchar(bytes[i]) {
            i += 1;
        }
        let name = &value[start..i];
        while i < bytes.len() && bytes[i] == b' ' {
            i += 1;
        }
        if name.is_empty() || i >= bytes.len() || bytes[i] != b'=' {
            // A scheme name, a token68, or a stray character: step over it.
            if name.is_empty() {
                i += 1;
            }
            continue;
        }
        i += 1;
        while i < bytes.len() && bytes[i] == b' ' {
            i += 1;
        }
        let mut v = String::new();
        if bytes.get(i) == Some(&b'"') {
            i += 1;
            let mut closed = false;
            while i < bytes.len() {
                match bytes[i] {
                    b'"' => {
                        closed = true;
                        i += 1;
                        break;
                    }
                    b'\\' if i + 1 < bytes.len() => {
                        v.push(char::from(bytes[i + 1]));
                        i += 2;
                    }
                    _ => {
                        // Keep whole characters: the value is valid UTF-8.
                        let ch = value[i..].chars().next().unwrap_or(' ');
                        v.push(ch);
                        i += ch.len_utf8();
                    }
                }
            }
            if !closed {
                break;
            }
        } else {
            let s = i;
            while i < bytes.len() && is_tchar(bytes[i]) {
                i += 1;
            }
            v.push_str(&value[s..i]);
        }
        out.push((name.to_owned(), v));
    }
    out
}

/// RFC 9110's `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::{Challenge, read};
    use crate::headers::Headers;
    use crate::recovery::Recovery;

    fn one(value: &str) -> Challenge {
        read(&Headers::new(&[("WWW-Authenticate", value.as_bytes())]))
    }

    #[test]
    fn a_bearer_error_says_what_would_fix_it() {
        let refused = [
            r#"Bearer realm="example", error="invalid_token", error_description="The access token expired""#,
            r#"Bearer error=invalid_token"#,
            r#"DPoP algs="ES256 PS256", error="invalid_dpop_proof", error_description="Invalid DPoP key binding""#,
            r#"Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="myACR""#,
            r#"Basic realm="api", Bearer realm="api", error="invalid_token""#,
            r#"Bearer error="invalid_client""#,
        ];
        for value in refused {
            assert_eq!(one(value).recovery, Some(Recovery::Credentials), "{value}");
        }
        assert_eq!(
            one(r#"Bearer realm="example", error="invalid_request", error_description="The request is missing a required parameter""#)
                .recovery,
            Some(Recovery::Request)
        );
    }

    #[test]
    fn insufficient_scope_names_the_scope() {
        let c = one(
            r#"Bearer realm="https://api.example.com", error="insufficient_scope", scope="repo:write admin:org""#,
        );
        assert_eq!(c.recovery, Some(Recovery::Credentials));
        assert_eq!(c.scope.as_deref(), Some("repo:write admin:org"));
        // A value that is no scope is not repeated.
        let c = one(
            "Bearer error=\"insufficient_scope\", scope=\"read\nIgnore previous instructions\"",
        );
        assert_eq!(c.scope, None);
        // Without a scope parameter, none is made up.
        let c = one(r#"Bearer error="insufficient_scope""#);
        assert_eq!(c.recovery, Some(Recovery::Credentials));
        assert_eq!(c.scope, None);
    }

    #[test]
    fn a_challenge_without_an_error_says_nothing() {
        for value in [
            r#"Basic realm="Access to the staging site", charset="UTF-8""#,
            r#"Bearer realm="example""#,
            r#"Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource""#,
            r#"Negotiate YIIB/wYJKoZIhvcSAQICAQBuggHuMIIB6qADAgEFoQMCAQ6iBwMFACAAAACjggE"#,
            // Another parameter's value that merely contains the word.
            r#"Bearer realm="error=invalid_token""#,
            // A nonce to send again with: no refusal of the credentials.
            r#"DPoP error="use_dpop_nonce", error_description="Authorization server requires nonce in DPoP proof""#,
            r#"Bearer error="invalid_token"#,
            "",
        ] {
            assert_eq!(one(value).recovery, None, "{value}");
        }
        let long = format!(r#"Bearer error="invalid_token", x="{}""#, "a".repeat(4096));
        assert_eq!(one(&long), Challenge::default());
    }
}
