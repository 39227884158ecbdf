//! Whether two OAuth 2 (or OpenID Connect) schemes carry one bearer token. Google's
//! descriptions name an implicit and an authorization-code flow of one authorization
//! server (`Oauth2`, `Oauth2c`): a token either way, sent once. Britbox's account and
//! profile tokens come from two token endpoints of one server, Zoom's server-to-server
//! and user tokens from two hosts: a token from one is refused where the other is
//! required, so each is a credential of its own.

use std::collections::BTreeSet;

use serde_json::Value;

/// Whether the bearer tokens of schemes `a` and `b` are one: they name an endpoint in
/// common; else, when at most one names a token endpoint (an implicit flow has none,
/// OpenID Connect names its discovery document), their endpoints share an origin. A
/// scheme that names no endpoint at all (`http` bearer, flows left empty) cannot be
/// told apart, and is taken for the same token, as before.
pub(super) fn one_token(a: &Value, b: &Value) -> bool {
    let (ea, eb) = (endpoints(a), endpoints(b));
    if ea.all.is_empty() || eb.all.is_empty() || !ea.all.is_disjoint(&eb.all) {
        return true;
    }
    if !ea.token.is_empty() && !eb.token.is_empty() {
        // Two token endpoints, none in common: two tokens.
        return false;
    }
    let origins = |e: &Endpoints| -> BTreeSet<String> { e.all.iter().map(|u| origin(u)).collect() };
    !origins(&ea).is_disjoint(&origins(&eb))
}

#[derive(Default)]
struct Endpoints {
    all: BTreeSet<String>,
    token: BTreeSet<String>,
}

/// The URLs a scheme names: OpenAPI 3's `flows.*.{authorizationUrl, tokenUrl,
/// refreshUrl}`, Swagger 2.0's `authorizationUrl` and `tokenUrl`, OpenID Connect's
/// `openIdConnectUrl`.
fn endpoints(scheme: &Value) -> Endpoints {
    let mut out = Endpoints::default();
    let mut add = |v: &Value, key: &str, token: bool| {
        if let Some(u) = v.get(key).and_then(Value::as_str).map(str::trim)
            && !u.is_empty()
        {
            out.all.insert(u.to_string());
            if token {
                out.token.insert(u.to_string());
            }
        }
    };
    let flows = scheme.get("flows").and_then(Value::as_object);
    for v in std::iter::once(scheme).chain(flows.into_iter().flat_map(|f| f.values())) {
        add(v, "authorizationUrl", false);
        add(v, "tokenUrl", true);
        add(v, "refreshUrl", false);
        add(v, "openIdConnectUrl", false);
    }
    out
}

/// `scheme://host[:port]` of an absolute URL, lower-case; empty for a relative one
/// (the API's own server).
fn origin(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return String::new();
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    format!("{scheme}://{host}").to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::one_token;

    fn flow(kind: &str, auth: Option<&str>, token: Option<&str>) -> serde_json::Value {
        let mut f = json!({"scopes": {}});
        if let Some(a) = auth {
            f["authorizationUrl"] = json!(a);
        }
        if let Some(t) = token {
            f["tokenUrl"] = json!(t);
        }
        json!({"type": "oauth2", "flows": {kind: f}})
    }

    #[test]
    fn flows_of_one_server_are_one_token_and_two_token_endpoints_are_two() {
        let g = "https://accounts.example.com/o/oauth2";
        let implicit = flow("implicit", Some(&format!("{g}/auth")), None);
        let code = flow(
            "authorizationCode",
            Some(&format!("{g}/auth")),
            Some(&format!("{g}/token")),
        );
        assert!(one_token(&implicit, &code));
        // Jirafe's implicit flow names another path of the same server.
        let other_path = flow(
            "implicit",
            Some("https://accounts.example.com/authorize"),
            None,
        );
        assert!(one_token(&other_path, &code));
        // OpenID Connect's discovery document on the server of the OAuth 2 endpoints.
        let oidc = json!({"type": "openIdConnect", "openIdConnectUrl": "https://accounts.example.com/.well-known/openid-configuration"});
        assert!(one_token(&oidc, &code));
        // Two token endpoints of one server (Britbox), of two hosts (Zoom).
        let account = flow("password", None, Some("/account/authorization"));
        let profile = flow("password", None, Some("/account/profile/authorization"));
        assert!(!one_token(&account, &profile));
        let s2s = flow(
            "clientCredentials",
            None,
            Some("https://api.example.com/oauth/token"),
        );
        let user = flow(
            "authorizationCode",
            Some("https://example.com/oauth/authorize"),
            Some("https://example.com/oauth/token"),
        );
        assert!(!one_token(&s2s, &user));
        // Two identity providers' sign-in pages.
        let a = flow("implicit", Some("https://login.a.example/authorize"), None);
        let b = flow("implicit", Some("https://login.b.example/authorize"), None);
        assert!(!one_token(&a, &b));
        // Nothing to tell them apart by.
        let bearer = json!({"type": "http", "scheme": "bearer"});
        assert!(one_token(&bearer, &account));
        assert!(one_token(&json!({"type": "oauth2", "flows": {}}), &s2s));
    }
}
