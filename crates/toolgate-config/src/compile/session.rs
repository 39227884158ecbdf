//! `gateway.session_key_env`, `gateway.session_key_previous_env` and
//! `gateway.session_lifetime`: the keys that seal session ids so any replica of a fleet
//! serves any session, and how long a sealed id stays valid.

use std::time::Duration;

use super::Compiler;
use crate::model::Secret;

/// A key shorter than this could be guessed offline from one sealed id.
pub(super) const MIN_SESSION_KEY_BYTES: usize = 32;
const DEFAULT_LIFETIME: Duration = Duration::from_secs(24 * 3600);
const MIN_LIFETIME: Duration = Duration::from_secs(60);
const MAX_LIFETIME: Duration = Duration::from_secs(30 * 24 * 3600);

impl Compiler<'_> {
    /// The current key, then the previous one; each read from the variable its key
    /// names, never logged.
    pub(super) fn session_keys(
        &mut self,
        current: Option<&str>,
        previous: Option<&str>,
    ) -> Vec<Secret> {
        if current.is_none() && previous.is_some() {
            self.err(
                "gateway.session_key_previous_env",
                "a previous session key without a current one",
                "set `session_key_env` to the variable holding the key that seals new session ids",
            );
            return Vec::new();
        }
        let mut keys = Vec::new();
        for (path, var) in [
            ("gateway.session_key_env", current),
            ("gateway.session_key_previous_env", previous),
        ] {
            let Some(var) = var else { continue };
            match (self.env)(var) {
                Some(v) if v.len() >= MIN_SESSION_KEY_BYTES => keys.push(Secret(v)),
                Some(v) if !v.is_empty() => self.err(
                    path,
                    format!(
                        "the key in {var} has {} bytes, fewer than {MIN_SESSION_KEY_BYTES}",
                        v.len()
                    ),
                    "use a random key of at least 32 bytes, e.g. `openssl rand -hex 32`",
                ),
                _ => self.unset_variable(
                    path,
                    var,
                    &format!(
                        "export {var} with the same random key (e.g. `openssl rand -hex 32`) on every replica"
                    ),
                ),
            }
        }
        keys
    }

    /// The lifetime of a sealed id; only meaningful with a key.
    pub(super) fn session_lifetime(&mut self, text: Option<&String>, keyed: bool) -> Duration {
        if text.is_some() && !keyed {
            self.err(
                "gateway.session_lifetime",
                "`session_lifetime` applies to sealed session ids only",
                "set `session_key_env` as well, or remove `session_lifetime` (gateway.session_idle ends unused sessions)",
            );
        }
        let errors = self.errors.len();
        let d = self.duration("gateway.session_lifetime".into(), text, DEFAULT_LIFETIME);
        if self.errors.len() == errors && !(MIN_LIFETIME..=MAX_LIFETIME).contains(&d) {
            self.err(
                "gateway.session_lifetime",
                format!("{d:?} is outside 1m..30d"),
                "a sealed id cannot be recalled before it expires, so keep it from 1m to 30d, e.g. `24h`",
            );
            return DEFAULT_LIFETIME;
        }
        d
    }

    /// Where the other replicas reach this one (`${VAR}` expanded); only with a key,
    /// which seals it into the `requestState` of the calls this replica holds.
    pub(super) fn replica_url(&mut self, text: Option<&str>, keyed: bool) -> Option<url::Url> {
        let path = "gateway.replica_url";
        let text = text?;
        if !keyed {
            self.err(
                path,
                "`replica_url` needs `session_key_env`",
                "set `session_key_env` to the key every replica shares: it seals this address into the calls' requestState",
            );
            return None;
        }
        let expanded = self.expand(path, text);
        let url = match url::Url::parse(&expanded) {
            Ok(url) => url,
            Err(e) => {
                self.err(
                    path,
                    format!("`{expanded}` is not a URL: {e}"),
                    "give the URL the other replicas reach this one's /mcp at, e.g. `http://${POD_IP}:8080/mcp`",
                );
                return None;
            }
        };
        let unfit = if !matches!(url.scheme(), "http" | "https") {
            Some("is neither http nor https")
        } else if url.host_str().is_none_or(str::is_empty) {
            Some("has no host")
        } else if !url.username().is_empty() || url.password().is_some() {
            Some("carries credentials (the caller's own are passed on)")
        } else if url.query().is_some() || url.fragment().is_some() {
            Some("has a query or fragment")
        } else {
            None
        };
        if let Some(why) = unfit {
            self.err(
                path,
                format!("`{url}` {why}"),
                "give the URL the other replicas reach this one's /mcp at, e.g. `http://${POD_IP}:8080/mcp`",
            );
            return None;
        }
        Some(url)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use crate::model::{Config, Secret};

    const TOOLS: &str = "dependencies:\n  d: {base_url: 'https://api.example.com'}\ntools:\n  t:\n    dependency: d\n    owner: o@example.com\n    description: d\n    request: {path: /x}\n    contract: {version: '1.0', response_schema: {}}\n";

    fn parse(gateway: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Config, String> {
        let text = format!("gateway:\n{gateway}{TOOLS}");
        crate::parse(Path::new("t.yaml"), &text, Path::new("."), env).map_err(|e| e.to_string())
    }

    #[test]
    fn replica_url_is_expanded_checked_and_needs_a_key() {
        let env = |k: &str| match k {
            "NEW" => Some("n".repeat(32)),
            "POD_IP" => Some("10.1.2.3".to_owned()),
            _ => None,
        };
        let c = parse(
            "  session_key_env: NEW\n  replica_url: http://${POD_IP}:8080/mcp\n",
            &env,
        )
        .unwrap();
        assert_eq!(
            c.gateway.replica_url.unwrap().as_str(),
            "http://10.1.2.3:8080/mcp"
        );
        assert_eq!(parse("", &env).unwrap().gateway.replica_url, None);
        let err = parse("  replica_url: http://10.1.2.3:8080/mcp\n", &env).unwrap_err();
        assert!(err.contains("needs `session_key_env`"), "{err}");
        for (url, why) in [
            ("ftp://10.1.2.3/mcp", "neither http nor https"),
            ("http://u:p@10.1.2.3/mcp", "credentials"),
            ("http://10.1.2.3/mcp?x=1", "query"),
            ("not a url", "is not a URL"),
            ("http://${UNSET}/mcp", "UNSET"),
        ] {
            let err = parse(
                &format!("  session_key_env: NEW\n  replica_url: '{url}'\n"),
                &env,
            )
            .unwrap_err();
            assert!(err.contains(why), "{url}: {err}");
        }
    }

    #[test]
    fn session_keys_are_read_checked_and_ordered() {
        let env = |k: &str| match k {
            "NEW" => Some("n".repeat(32)),
            "OLD" => Some("o".repeat(40)),
            "SHORT" => Some("tooshort".into()),
            _ => None,
        };
        let c = parse(
            "  session_key_env: NEW\n  session_key_previous_env: OLD\n  session_lifetime: 2h\n",
            &env,
        )
        .unwrap();
        assert_eq!(
            c.gateway.session_keys,
            vec![Secret("n".repeat(32)), Secret("o".repeat(40))]
        );
        assert_eq!(c.gateway.session_lifetime, Duration::from_secs(7200));
        let c = parse("  listen: 127.0.0.1:1\n", &env).unwrap();
        assert!(c.gateway.session_keys.is_empty());

        let err = parse("  session_key_env: SHORT\n", &env).unwrap_err();
        assert!(
            err.contains("gateway.session_key_env") && err.contains("8 bytes"),
            "{err}"
        );
        assert!(!err.contains("tooshort"), "the key is never printed: {err}");
        let err = parse("  session_key_env: MISSING\n", &env).unwrap_err();
        assert!(err.contains("MISSING is not set"), "{err}");
        let err = parse("  session_key_previous_env: OLD\n", &env).unwrap_err();
        assert!(err.contains("without a current one"), "{err}");
        let err = parse("  session_key_env: NEW\n  session_lifetime: 10s\n", &env).unwrap_err();
        assert!(err.contains("outside 1m..30d"), "{err}");
        let err = parse("  session_key_env: NEW\n  session_lifetime: 40d\n", &env).unwrap_err();
        assert!(err.contains("outside 1m..30d"), "{err}");
        let err = parse("  session_lifetime: 1h\n", &env).unwrap_err();
        assert!(err.contains("sealed session ids only"), "{err}");
    }
}
