//! An upstream that echoes the token it was called with — "invalid token eyJhbGci…" in
//! an error body, a debugging endpoint that returns the request's headers — must not
//! hand the caller's exchanged token to the model, the answer or an incident. The
//! configured secrets of a dependency are scrubbed from the text toolgate repeats
//! (`explain::Secrets`); an exchanged token is per caller, so it is scrubbed here, from
//! the reply itself, before anything reads it. The dependency's own credentials (an API
//! key header, `Authorization`, a key in the base URL) are scrubbed from every reply the
//! same way: a successful JSON answer that quotes them is passed to the model whole, so
//! masking only the text toolgate repeats is not enough.

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

/// Words that mark a header or query parameter as carrying a credential.
const CREDENTIAL_WORDS: [&str; 8] = [
    "auth",
    "key",
    "token",
    "secret",
    "password",
    "signature",
    "session",
    "cookie",
];

fn names_a_credential(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    CREDENTIAL_WORDS.iter().any(|w| name.contains(w))
}

/// The configured values of `dep` that are credentials, to be scrubbed from its replies:
/// the values of headers named for one (`Authorization`, `X-API-Key`, `Cookie`, …),
/// each also without its scheme (`Bearer `, `Basic `), since an echo may quote the
/// credential alone; the base URL's password and credential-named query values; and
/// the other configured secrets (a stdio server's environment). Only these: a header
/// such as `Accept: application/json` is configuration, and scrubbing it from answers
/// would corrupt them. Values shorter than [`MIN_TOKEN_BYTES`] are left out.
#[must_use]
pub fn credentials(dep: &toolgate_config::Dependency) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (name, value) in &dep.headers {
        let Ok(value) = value.to_str() else { continue };
        if !names_a_credential(name.as_str()) {
            continue;
        }
        out.push(value.trim().to_owned());
        if let Some((_, bare)) = value.trim().split_once(' ') {
            out.push(bare.trim().to_owned());
        }
    }
    out.extend(dep.base_url.password().map(str::to_owned));
    out.extend(
        dep.base_url
            .query_pairs()
            .filter(|(k, _)| names_a_credential(k))
            .map(|(_, v)| v.into_owned()),
    );
    out.extend(dep.secrets.iter().map(|s| s.0.clone()));
    out.retain(|v| v.len() >= MIN_TOKEN_BYTES);
    // Longest first: "Bearer X" is replaced whole before X alone is looked for. Equal
    // values sort next to each other, so each is scrubbed once.
    out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    out.dedup();
    out
}

/// `text` with every occurrence of `token` replaced by [`REDACTED`].
pub fn scrub_text(text: &str, token: &str) -> String {
    if token.len() < MIN_TOKEN_BYTES || !text.contains(token) {
        return text.to_owned();
    }
    text.replace(token, REDACTED)
}

/// Every string in `value`, object keys included, with each of `secrets` replaced by
/// [`REDACTED`]: for what a fronted MCP server sends as JSON rather than as a result's
/// bytes (its notifications and questions during a call, its answers to passed-through
/// requests). Walked with a stack, not recursion: the value came from an upstream.
pub fn scrub_value(value: &mut serde_json::Value, secrets: &[&str]) {
    use serde_json::Value;
    let secrets: Vec<&str> = secrets
        .iter()
        .copied()
        .filter(|s| s.len() >= MIN_TOKEN_BYTES)
        .collect();
    if secrets.is_empty() {
        return;
    }
    let clean = |text: &str| {
        secrets
            .iter()
            .fold(text.to_owned(), |text, secret| scrub_text(&text, secret))
    };
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(text) if secrets.iter().any(|s| text.contains(s)) => {
                *text = clean(text);
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(members) => {
                if members
                    .keys()
                    .any(|k| secrets.iter().any(|s| k.contains(s)))
                {
                    let old = std::mem::take(members);
                    for (k, v) in old {
                        members.insert(clean(&k), v);
                    }
                }
                stack.extend(members.values_mut());
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
