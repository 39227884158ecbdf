//! The scopes an access token grants, asked one at a time on the call path, and the
//! challenge that tells a client which scopes a call needs (RFC 6750 §3.1, the MCP
//! authorization specification's scope challenge).
//!
//! A scope is granted only when the token names it exactly: scope tokens are
//! case-sensitive (RFC 6749 §3.3), `payments` does not grant `payments:write`, and a
//! wildcard in a token is just another name.

use std::sync::Arc;

use serde_json::{Map, Value};

/// The verified claims of the caller's access token, read for its scopes (`scope`, a
/// space-separated string, RFC 9068; or `scp`, a list or a string, as Azure AD and
/// Okta write it). Held by reference to the verified token's claims: nothing is
/// copied per request.
#[derive(Clone)]
pub struct Granted(Arc<Map<String, Value>>);

impl std::fmt::Debug for Granted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Claims name people and clients: they stay out of debug output.
        f.write_str("Granted(..)")
    }
}

impl Granted {
    pub fn new(claims: Arc<Map<String, Value>>) -> Granted {
        Granted(claims)
    }

    /// Whether the token grants `scope`: exactly the scopes [`crate::jwt::scopes`] lists.
    pub fn has(&self, scope: &str) -> bool {
        // Two spaces in a row hold no scope between them; no scope is ever named "".
        if scope.is_empty() {
            return false;
        }
        ["scope", "scp"].iter().any(|name| match self.0.get(*name) {
            Some(Value::String(s)) => s.split(' ').any(|g| g == scope),
            Some(Value::Array(items)) => items.iter().any(|v| v.as_str() == Some(scope)),
            _ => false,
        })
    }
}

/// Whether `granted` holds every scope in `needed`. A credential without scopes (an
/// agent's API key, the shared token) holds none: it can call only what needs none.
pub fn grants_all(granted: Option<&Granted>, needed: &[String]) -> bool {
    needed.is_empty() || granted.is_some_and(|g| needed.iter().all(|s| g.has(s)))
}

/// The `WWW-Authenticate` value of a 403 for a call that needs `scopes` (all of them,
/// those /mcp needs included, once each): a client that asks its authorization server
/// for exactly these can make the call, whether it adds them to what it holds or
/// replaces what it holds with them.
pub fn insufficient_scope_challenge<'a>(
    resource: Option<&str>,
    scopes: impl IntoIterator<Item = &'a str>,
) -> String {
    let mut listed: Vec<&str> = Vec::new();
    for s in scopes {
        if !listed.contains(&s) {
            listed.push(s);
        }
    }
    let mut value = format!(
        "Bearer error=\"insufficient_scope\", scope=\"{}\"",
        listed.join(" ")
    );
    if let Some(resource) = resource {
        value.push_str(&format!(
            ", resource_metadata=\"{}\"",
            crate::resource_metadata_url(resource)
        ));
    }
    value.push_str(", error_description=\"the access token lacks a scope this tool needs\"");
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn granted(claims: Value) -> Granted {
        let Value::Object(m) = claims else {
            unreachable!()
        };
        Granted::new(Arc::new(m))
    }

    fn needs(scopes: &[&str]) -> Vec<String> {
        scopes.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn a_scope_is_granted_only_by_its_exact_name() {
        let g = granted(json!({"scope": "tools:call payments Payments:write payments:write:x"}));
        assert!(g.has("payments"));
        assert!(
            !g.has("payments:write"),
            "a prefix, another case or a longer name is no grant"
        );
        assert!(!g.has("pay"));
        assert!(!g.has(""), "the empty name between two spaces is no scope");
        let g = granted(json!({"scope": "*"}));
        assert!(
            !g.has("payments:write"),
            "a wildcard in a token is just a name"
        );
    }

    #[test]
    fn scp_is_read_as_a_list_as_azure_sends_it_and_as_a_string() {
        assert!(granted(json!({"scp": ["tools:read", "payments:write"]})).has("payments:write"));
        assert!(granted(json!({"scp": "tools:read payments:write"})).has("payments:write"));
        assert!(
            !granted(json!({"scp": ["tools:read payments:write"]})).has("payments:write"),
            "one list item holding two names is one (odd) name"
        );
        assert!(!granted(json!({"scp": [1, {"payments:write": true}]})).has("payments:write"));
        assert!(!granted(json!({"scope": ["payments:write"], "x": "payments:write"})).has("x"));
    }

    #[test]
    fn has_agrees_with_the_scopes_the_token_lists() {
        for claims in [
            json!({"scope": "a  b", "scp": ["c", 2, "d"]}),
            json!({"scp": "e f"}),
            json!({"scope": 3}),
        ] {
            let Value::Object(m) = claims.clone() else {
                unreachable!()
            };
            let listed = crate::jwt::scopes(&m);
            let g = granted(claims);
            for s in &listed {
                assert!(g.has(s), "{s}");
            }
            for s in ["a b", "", "2", "x"] {
                assert_eq!(g.has(s), listed.contains(&s), "{s}");
            }
        }
    }

    #[test]
    fn a_credential_without_scopes_holds_none_but_needs_none_for_an_open_tool() {
        assert!(grants_all(None, &[]));
        assert!(!grants_all(None, &needs(&["tools:read"])));
        let g = granted(json!({"scope": "tools:read"}));
        assert!(grants_all(Some(&g), &needs(&["tools:read"])));
        assert!(!grants_all(
            Some(&g),
            &needs(&["tools:read", "payments:write"])
        ));
    }

    #[test]
    fn the_challenge_names_every_scope_the_call_needs_once_and_where_to_ask() {
        assert_eq!(
            insufficient_scope_challenge(
                Some("https://tools.example.com/mcp"),
                ["tools:call", "payments:write", "tools:call"]
            ),
            "Bearer error=\"insufficient_scope\", scope=\"tools:call payments:write\", \
             resource_metadata=\"https://tools.example.com/.well-known/oauth-protected-resource/mcp\", \
             error_description=\"the access token lacks a scope this tool needs\""
        );
    }
}
