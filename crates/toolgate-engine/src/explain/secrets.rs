//! A tool's configured secrets, and upstream text with them scrubbed: apart because
//! every text toolgate repeats from an upstream (excerpts, notes, links) goes through
//! it.

use toolgate_config::ToolSpec;

/// Configured secret values of one tool — its dependency's header values (after
/// `${ENV}` expansion), the credentials in its base URL (query values, password) and
/// the literal parts of its own header templates — as they may come back in upstream
/// text: whole, as the credential after an auth scheme (`Bearer <token>`), and
/// percent-encoded. Built only when upstream text is about to be repeated.
#[derive(Debug, Default, Clone)]
pub struct Secrets(Vec<String>);

/// Shorter values are not scrubbed as substrings: a value of a few characters ("1",
/// "json", "v2") occurs in ordinary text, so replacing it would garble every excerpt,
/// and where the `[redacted]` marks fell would itself spell out the value.
const MIN_SECRET_CHARS: usize = 6;

impl Secrets {
    /// The secrets `tool` is configured with.
    pub fn of(tool: &ToolSpec) -> Secrets {
        let dep = &tool.dependency;
        let mut raw: Vec<String> = dep
            .headers
            .iter()
            .filter_map(|(_, v)| v.to_str().ok().map(str::to_owned))
            .collect();
        raw.extend(dep.base_url.query_pairs().map(|(_, v)| v.into_owned()));
        raw.extend(dep.base_url.password().map(str::to_owned));
        raw.extend(dep.secrets.iter().map(|s| s.0.clone()));
        for (_, template) in tool.http_request().into_iter().flat_map(|r| &r.headers) {
            for part in &template.0 {
                if let toolgate_config::template::Part::Lit(l) = part {
                    raw.push(l.clone());
                }
            }
        }
        Secrets::new(raw)
    }

    /// Secrets from plain values.
    pub fn new(values: impl IntoIterator<Item = String>) -> Secrets {
        let mut out = Vec::new();
        for value in values {
            let value = value.trim().to_owned();
            // "Bearer <token>", "Basic <b64>", "token <t>": the credential alone too;
            // and each value of a list of pairs ("api_key=<k>; session=",
            // `Digest username="u", response="<r>"`), which an upstream may echo bare.
            let mut parts: Vec<String> = Vec::new();
            for piece in value.split(|c: char| c.is_whitespace() || c == ';' || c == ',') {
                let piece = piece.trim();
                if piece.is_empty() || piece == value {
                    continue;
                }
                parts.push(piece.to_owned());
                if let Some((_, pair_value)) = piece.split_once('=') {
                    parts.push(pair_value.trim_matches('"').to_owned());
                }
            }
            let encoded: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
            out.push(value);
            out.push(encoded);
            out.extend(parts);
        }
        out.retain(|v| v.chars().count() >= MIN_SECRET_CHARS);
        // Longest first, so a token inside a longer value is not half-replaced.
        out.sort_by_key(|v| std::cmp::Reverse(v.len()));
        out.dedup();
        Secrets(out)
    }

    /// `text` with every secret replaced by `[redacted]`.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.0 {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), "[redacted]");
            }
        }
        out
    }

    /// `text` cut off mid-secret loses the partial secret at its end.
    pub(super) fn drop_partial_tail(&self, text: &mut String) {
        for secret in &self.0 {
            let cut = (1..secret.len())
                .rev()
                .filter(|k| secret.is_char_boundary(*k))
                .find(|k| text.ends_with(&secret[..*k]));
            if let Some(k) = cut {
                text.truncate(text.len() - k);
            }
        }
    }

    pub(super) fn longest(&self) -> usize {
        self.0.first().map_or(0, String::len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::excerpt;

    #[test]
    fn a_bearer_token_echoed_in_an_error_body_is_redacted_whole_and_bare() {
        let secrets = Secrets::new(["Bearer s3cr3t-T0ken.abc".to_string(), "q-key-123456".into()]);
        let body = r#"{"error":"bad","headers":{"authorization":"Bearer s3cr3t-T0ken.abc"},"echo":"s3cr3t-T0ken.abc","url":"/x?api_key=q-key-123456"}"#;
        let got = excerpt(body.as_bytes(), &secrets);
        assert!(!got.contains("s3cr3t") && !got.contains("q-key"), "{got}");
        assert_eq!(got.matches("[redacted]").count(), 3, "{got}");
    }

    #[test]
    fn each_value_of_a_cookie_or_a_list_of_pairs_is_redacted_bare() {
        let secrets = Secrets::new([
            "api_key=ck-9f8e7d6c5b4a; session=".to_string(),
            r#"Digest username="alice", response="6629fae49393a05397450978507c4ef1""#.into(),
        ]);
        let body = r#"{"error":"bad key ck-9f8e7d6c5b4a","seen":"6629fae49393a05397450978507c4ef1","user":"alice"}"#;
        let got = excerpt(body.as_bytes(), &secrets);
        assert!(
            !got.contains("ck-9f8e") && !got.contains("6629fae"),
            "{got}"
        );
        // A name of a pair, or a value too short to be a credential, stays.
        assert!(got.contains("\"user\":\"alice\""), "{got}");
    }

    #[test]
    fn a_percent_encoded_secret_is_redacted() {
        let secrets = Secrets::new(["tok+en/abc=".to_string()]);
        let got = excerpt(b"GET /x?key=tok%2Ben%2Fabc%3D failed", &secrets);
        assert_eq!(got, "GET /x?key=[redacted] failed");
    }

    #[test]
    fn short_values_are_not_scrubbed_as_substrings() {
        let secrets = Secrets::new(["json".to_string(), "v2".into()]);
        assert_eq!(
            excerpt(b"application/json v2", &secrets),
            "application/json v2"
        );
    }
}
