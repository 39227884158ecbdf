//! An upstream that echoes the token it was called with — "invalid token eyJhbGci…" in
//! an error body, a debugging endpoint that returns the request's headers — must not
//! hand the caller's exchanged token to the model, the answer or an incident. The
//! configured secrets of a dependency are scrubbed from the text toolgate repeats
//! (`explain::Secrets`); an exchanged token is per caller, so it is scrubbed here, from
//! the reply itself, before anything reads it.

use bytes::Bytes;

/// What an echoed token is replaced with: no JSON or header special characters, so a
/// JSON body stays JSON.
pub const REDACTED: &str = "[redacted]";

/// Tokens shorter than this are not scrubbed as substrings: a real access token carries
/// at least 128 bits of randomness (22 base64 characters or more), while a short string
/// also occurs in ordinary answers, and replacing it there would corrupt a result (a
/// digit run inside a number, a word inside a key) that the contract then rejects.
pub const MIN_TOKEN_BYTES: usize = 16;

/// `body` with every occurrence of `token` replaced by [`REDACTED`]; the same bytes,
/// not copied, when it has none. Linear in the body's length (a substring search,
/// not a scan per position), whatever the upstream sent.
pub fn scrub(body: Bytes, token: &str) -> Bytes {
    let token = token.as_bytes();
    if token.len() < MIN_TOKEN_BYTES {
        return body;
    }
    let finder = memchr::memmem::Finder::new(token);
    let mut hits = finder.find_iter(&body).peekable();
    if hits.peek().is_none() {
        return body;
    }
    let mut out = Vec::with_capacity(body.len());
    let mut from = 0;
    for at in hits {
        // `find_iter` does not report overlapping matches, so `at >= from`.
        out.extend_from_slice(&body[from..at]);
        out.extend_from_slice(REDACTED.as_bytes());
        from = at + token.len();
    }
    out.extend_from_slice(&body[from..]);
    Bytes::from(out)
}

/// `text` with every occurrence of `token` replaced by [`REDACTED`].
pub fn scrub_text(text: &str, token: &str) -> String {
    if token.len() < MIN_TOKEN_BYTES || !text.contains(token) {
        return text.to_owned();
    }
    text.replace(token, REDACTED)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln";

    #[test]
    fn every_echo_is_replaced_and_json_stays_json() {
        let body = format!(
            r#"{{"error":"invalid token {TOKEN}","headers":{{"Authorization":"Bearer {TOKEN}"}}}}"#
        );
        let got = scrub(Bytes::from(body), TOKEN);
        let text = std::str::from_utf8(&got).unwrap();
        assert!(!text.contains(TOKEN), "{text}");
        assert_eq!(text.matches(REDACTED).count(), 2, "{text}");
        let parsed: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(parsed["headers"]["Authorization"], "Bearer [redacted]");
    }

    #[test]
    fn a_body_without_the_token_is_passed_on_uncopied() {
        let body = Bytes::from_static(br#"{"ok":true,"token":"another-one"}"#);
        let got = scrub(body.clone(), TOKEN);
        assert_eq!(got.as_ptr(), body.as_ptr());
    }

    #[test]
    fn the_ends_of_the_body_and_back_to_back_echoes_are_replaced() {
        let body = format!("{TOKEN}{TOKEN} and {TOKEN}");
        let got = scrub(Bytes::from(body), TOKEN);
        assert_eq!(&got[..], b"[redacted][redacted] and [redacted]");
        // A prefix of the token alone is not the token.
        let half = &TOKEN[..20];
        let got = scrub(Bytes::from(half.to_string()), TOKEN);
        assert_eq!(&got[..], half.as_bytes());
    }

    #[test]
    fn a_token_too_short_to_be_random_leaves_the_answer_intact() {
        let body = Bytes::from_static(br#"{"total":123456,"id":"123456"}"#);
        assert_eq!(scrub(body.clone(), "123456"), body);
        assert_eq!(scrub_text("123456", "123456"), "123456");
    }

    #[test]
    fn text_is_scrubbed_the_same_way() {
        assert_eq!(
            scrub_text(&format!("401: {TOKEN} expired"), TOKEN),
            "401: [redacted] expired"
        );
        assert_eq!(scrub_text("nothing here", TOKEN), "nothing here");
    }
}
