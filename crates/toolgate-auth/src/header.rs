//! The `Authorization` header's value, read as RFC 9110 §11.4 and RFC 6750 §2.1 write
//! it: `credentials = auth-scheme [ 1*SP token68 ]`, the scheme compared without case,
//! and a bearer token from the `b64token` alphabet.
//!
//! Each way a value can be wrong gets its own answer, and none repeats what was sent: a
//! value that is not a bearer credential at all is answered as a missing one (401, no
//! `error`, RFC 6750 §3.1), a request that is not well formed `invalid_request` (400),
//! and a token that cannot be one `invalid_token` (401).

use crate::Refusal;

/// Schemes registered with IANA (HTTP Authentication Scheme Registry) that a refusal
/// may name. Anything else in the scheme's place could be a credential sent without a
/// scheme, so it is never repeated.
const KNOWN_SCHEMES: [&str; 13] = [
    "Basic",
    "Concealed",
    "Digest",
    "DPoP",
    "GNAP",
    "HOBA",
    "Mutual",
    "Negotiate",
    "NTLM",
    "OAuth",
    "PrivateToken",
    "SCRAM-SHA-256",
    "vapid",
];

/// A bearer credential read from the header.
#[derive(Debug, PartialEq, Eq)]
pub struct Presented<'a> {
    /// What follows the scheme, without the surrounding spaces.
    pub token: &'a str,
    /// Why it cannot be a bearer token, when it cannot: decided after the configured
    /// keys and shared token are compared, which RFC 6750's alphabet does not bind.
    pub malformed: Option<Refusal>,
}

/// The bearer credential in `value` (the `Authorization` header's bytes, `None` when
/// the header is absent), or why there is none.
pub fn read(value: Option<&[u8]>) -> Result<Presented<'_>, Refusal> {
    let Some(value) = value else {
        return Err(Refusal::Missing);
    };
    // Header field values are visible ASCII, spaces and tabs (RFC 9110 §5.5); anything
    // else is unreadable whatever the scheme, and is not repeated back.
    if value
        .iter()
        .any(|&b| !(b.is_ascii_graphic() || b == b' ' || b == b'\t'))
    {
        return Err(Refusal::Invalid(
            "the Authorization header holds bytes that are not printable ASCII, which no bearer token has (RFC 6750, section 2.1)",
        ));
    }
    let Ok(value) = std::str::from_utf8(value) else {
        return Err(Refusal::Missing);
    };
    let value = value.trim_matches([' ', '\t']);
    if value.is_empty() {
        return Err(Refusal::Malformed(
            "the Authorization header is empty: send `Authorization: Bearer <token>`",
        ));
    }
    let scheme_end = value.find([' ', '\t']).unwrap_or(value.len());
    let (scheme, rest) = value.split_at(scheme_end);
    if !scheme.eq_ignore_ascii_case("bearer") {
        if let Some(other) = scheme.strip_suffix(',')
            && other.eq_ignore_ascii_case("bearer")
        {
            return Err(Refusal::Malformed(
                "the Authorization header's Bearer credential holds no token",
            ));
        }
        return Err(Refusal::OtherScheme(
            KNOWN_SCHEMES
                .into_iter()
                .find(|known| known.eq_ignore_ascii_case(scheme)),
        ));
    }
    if rest.starts_with('\t') {
        return Err(Refusal::Malformed(
            "the Authorization header separates Bearer from the token with a tab; RFC 6750 (section 2.1) asks for spaces",
        ));
    }
    let token = rest.trim_matches([' ', '\t']);
    if token.is_empty() {
        return Err(Refusal::Malformed(
            "the Authorization header names the Bearer scheme but holds no token",
        ));
    }
    Ok(Presented {
        token,
        malformed: malformed(token),
    })
}

/// Why `token` is no `b64token` (RFC 6750 §2.1: `1*( ALPHA / DIGIT / "-" / "." / "_" /
/// "~" / "+" / "/" ) *"="`), if it is none.
fn malformed(token: &str) -> Option<Refusal> {
    if token.contains(',') {
        return Some(Refusal::Malformed(
            "the Authorization header carries more than one credential (comma-separated); send one bearer token",
        ));
    }
    if token.contains([' ', '\t']) {
        return Some(Refusal::Malformed(
            "the bearer token contains whitespace; send one token after `Bearer `",
        ));
    }
    let body = token.trim_end_matches('=');
    let alphabet =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '+' | '/');
    if body.is_empty() || !body.chars().all(alphabet) {
        return Some(Refusal::Invalid(
            "the bearer token has characters outside the b64token alphabet (RFC 6750, section 2.1)",
        ));
    }
    None
}

#[cfg(test)]
mod tests;
