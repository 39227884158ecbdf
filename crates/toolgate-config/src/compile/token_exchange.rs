//! Compiling `dependencies.<name>.token_exchange`: the issuer must be one toolgate
//! trusts, the client's secret must be set, and the dependency must not also send an
//! `Authorization` header of its own.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::Compiler;
use crate::model::*;
use crate::raw::*;

impl Compiler<'_> {
    /// The tools of dependencies called with the caller's authority: none of them may
    /// send its own `Authorization` (the exchanged token would silently replace it) or
    /// have a probe (a probe has no caller, so no token to exchange: it would fail on
    /// every run and open a probe incident that means nothing).
    pub(super) fn exchanged_tools(&mut self, tools: &BTreeMap<String, Arc<ToolSpec>>) {
        for (name, tool) in tools {
            if tool.dependency.token_exchange.is_none() {
                continue;
            }
            let dep = &tool.dependency.name;
            if let ToolKind::Http(request) = &tool.kind
                && let Some((header, _)) = request
                    .headers
                    .iter()
                    .find(|(h, _)| h == http::header::AUTHORIZATION)
            {
                self.err(
                    format!("tools.{name}.request.headers.{header}"),
                    format!(
                        "dependency `{dep}` is called with a token exchanged for the caller's, which goes in `Authorization`"
                    ),
                    &format!(
                        "remove this header, or remove `dependencies.{dep}.token_exchange` to send credentials of your own"
                    ),
                );
            }
            if tool.probe.is_some() {
                self.err(
                    format!("tools.{name}.probe"),
                    format!(
                        "a probe has no caller whose token could be exchanged, and dependency `{dep}` is called only with the caller's authority: it would fail on every run"
                    ),
                    "remove the probe, or probe a tool of a dependency that has credentials of its own",
                );
            }
        }
    }

    /// The exchange of dependency `dep` (its config at `path`), checked against `auth`.
    /// The exchanged token goes in `Authorization`, so the dependency must not send one
    /// of its own.
    pub(super) fn dependency_token_exchange(
        &mut self,
        path: &str,
        raw: RawTokenExchange,
        dep: &Dependency,
        auth: Option<&AuthConfig>,
    ) -> Option<Arc<TokenExchange>> {
        let own = dep
            .headers
            .iter()
            .any(|(name, _)| name == http::header::AUTHORIZATION);
        if own {
            self.err(
                format!("{path}.token_exchange"),
                "the dependency also sets an `Authorization` header: the exchanged token goes there",
                &format!(
                    "remove `Authorization` from {path}.headers, or remove `token_exchange` to keep the dependency's own credentials"
                ),
            );
        }
        let exchange = self.token_exchange(path, raw, auth);
        if own { None } else { exchange }
    }

    /// The exchange configured at `path`, checked against `auth`.
    pub(super) fn token_exchange(
        &mut self,
        path: &str,
        raw: RawTokenExchange,
        auth: Option<&AuthConfig>,
    ) -> Option<Arc<TokenExchange>> {
        let at = format!("{path}.token_exchange");
        let Some(auth) = auth else {
            self.err(
                &at,
                "token exchange needs callers with access tokens, and `gateway.auth` is not configured",
                "configure `gateway.auth` (resource and issuers), or remove `token_exchange` and give the dependency its own credentials in `headers`",
            );
            return None;
        };
        let mut ok = true;
        if !auth.issuers.iter().any(|i| i.issuer == raw.issuer) {
            let known: Vec<&str> = auth.issuers.iter().map(|i| i.issuer.as_str()).collect();
            self.err(
                format!("{at}.issuer"),
                format!("`{}` is not one of `gateway.auth.issuers`", raw.issuer),
                &format!(
                    "name a configured issuer exactly as written there: {}",
                    if known.is_empty() {
                        "none is configured".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
            );
            ok = false;
        }
        let token_endpoint = match &raw.token_endpoint {
            Some(text) => {
                let url = self.url(&format!("{at}.token_endpoint"), text);
                ok &= url.is_some();
                url
            }
            None => None,
        };
        let nonempty =
            |s: Option<String>| s.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        let audience = nonempty(raw.audience);
        let resource = nonempty(raw.resource);
        if let Some(r) = &resource
            && !url::Url::parse(r).is_ok_and(|u| u.fragment().is_none())
        {
            self.err(
                format!("{at}.resource"),
                format!("`{r}` is not an absolute URI without a fragment (RFC 8707)"),
                "write the upstream's resource URI, like `https://api.example.com/`, or use `audience` for a name",
            );
            ok = false;
        }
        if audience.is_none() && resource.is_none() {
            self.err(
                &at,
                "neither `audience` nor `resource` is set: the authorization server would not know which upstream the token is for",
                "set `audience` (the name the authorization server knows the upstream by) or `resource` (its URI)",
            );
            ok = false;
        }
        if raw.client_id.trim().is_empty() {
            self.err(
                format!("{at}.client_id"),
                "the client id is empty",
                "write the client id toolgate was registered with at the issuer",
            );
            ok = false;
        }
        let client_auth = match raw.client_auth.as_deref() {
            None | Some("client_secret_basic") => ClientAuth::Basic,
            Some("client_secret_post") => ClientAuth::Post,
            Some(other) => {
                self.err(
                    format!("{at}.client_auth"),
                    format!("unknown client authentication `{other}`"),
                    "use client_secret_basic (default) or client_secret_post",
                );
                ok = false;
                ClientAuth::Basic
            }
        };
        let var = raw.client_secret_env;
        let client_secret = match (self.env)(&var) {
            Some(v) if !v.is_empty() => Secret(v),
            _ => {
                self.unset_variable(
                    &format!("{at}.client_secret_env"),
                    &var,
                    &format!("export {var} with toolgate's client secret at the issuer"),
                );
                return None;
            }
        };
        ok.then(|| {
            Arc::new(TokenExchange {
                issuer: raw.issuer,
                token_endpoint,
                audience,
                resource,
                scope: nonempty(raw.scope),
                requested_token_type: nonempty(raw.requested_token_type)
                    .unwrap_or_else(|| ACCESS_TOKEN_TYPE.to_string()),
                client_id: raw.client_id,
                client_secret,
                client_auth,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::compile::compile;
    use crate::model::*;

    const AUTH: &str = "gateway:\n  auth:\n    resource: https://tools.example.com/mcp\n    issuers: [{ issuer: https://login.example.com }]\n";
    const TOOL: &str = "tools:\n  me:\n    dependency: api\n    owner: o\n    request: { path: /me }\n    contract: { version: '1.0', response_schema: { type: object } }\n";

    fn compiled(yaml: &str) -> Result<Config, String> {
        let doc = yaml_serde::from_str(yaml).unwrap();
        let env = |k: &str| (k == "TG_EXCHANGE_SECRET").then(|| "s3cret".to_string());
        compile(doc, Path::new("t.yaml"), Path::new("."), &env).map_err(|errors| {
            errors
                .iter()
                .map(|e| {
                    format!(
                        "{}: {} ({})",
                        e.path,
                        e.message,
                        e.help.clone().unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    fn with(gateway: &str, dependency: &str) -> String {
        format!(
            "{gateway}dependencies:\n  api:\n    base_url: https://api.example.com\n{dependency}{TOOL}"
        )
    }

    #[test]
    fn a_complete_exchange_compiles_with_its_defaults() {
        let config = compiled(&with(
            AUTH,
            "    token_exchange:\n      issuer: https://login.example.com\n      audience: api\n      scope: read\n      client_id: toolgate\n      client_secret_env: TG_EXCHANGE_SECRET\n",
        ))
        .unwrap();
        let x = config.dependencies["api"].token_exchange.clone().unwrap();
        assert_eq!(x.issuer, "https://login.example.com");
        assert_eq!(x.audience.as_deref(), Some("api"));
        assert_eq!(x.resource, None);
        assert_eq!(x.scope.as_deref(), Some("read"));
        assert_eq!(x.requested_token_type, ACCESS_TOKEN_TYPE);
        assert_eq!(x.client_auth, ClientAuth::Basic);
        assert_eq!(x.client_secret.0, "s3cret");
        assert!(x.token_endpoint.is_none());
    }

    #[test]
    fn a_tool_of_an_exchanged_dependency_sends_no_authorization_and_has_no_probe() {
        let exchange = "    token_exchange: { issuer: https://login.example.com, audience: api, client_id: tg, client_secret_env: TG_EXCHANGE_SECRET }\n";
        let yaml = format!(
            "{AUTH}dependencies:\n  api:\n    base_url: https://api.example.com\n{exchange}tools:\n  me:\n    dependency: api\n    owner: o\n    request: {{ path: /me, headers: {{ Authorization: Bearer mine }} }}\n    contract: {{ version: '1.0', response_schema: {{ type: object }} }}\n    probe: {{ every: 5m }}\n"
        );
        let errors = compiled(&yaml).unwrap_err();
        assert!(
            errors.contains("tools.me.request.headers.authorization: dependency `api` is called with a token exchanged for the caller's"),
            "{errors}"
        );
        assert!(
            errors.contains("tools.me.probe: a probe has no caller whose token could be exchanged"),
            "{errors}"
        );
        // The same tool of a dependency with its own credentials is fine.
        let own = yaml.replace(exchange, "");
        compiled(&own).unwrap();
    }

    #[test]
    fn each_mistake_is_reported_at_its_path() {
        let cases = [
            (
                "",
                "    token_exchange: { issuer: https://login.example.com, audience: api, client_id: tg, client_secret_env: TG_EXCHANGE_SECRET }\n",
                "dependencies.api.token_exchange: token exchange needs callers with access tokens, and `gateway.auth` is not configured",
            ),
            (
                AUTH,
                "    token_exchange: { issuer: https://other.example.com, audience: api, client_id: tg, client_secret_env: TG_EXCHANGE_SECRET }\n",
                "dependencies.api.token_exchange.issuer: `https://other.example.com` is not one of `gateway.auth.issuers` (name a configured issuer exactly as written there: https://login.example.com)",
            ),
            (
                AUTH,
                "    token_exchange: { issuer: https://login.example.com, audience: api, client_id: tg, client_secret_env: UNSET_SECRET }\n",
                "dependencies.api.token_exchange.client_secret_env",
            ),
            (
                AUTH,
                "    headers: { Authorization: Bearer x }\n    token_exchange: { issuer: https://login.example.com, audience: api, client_id: tg, client_secret_env: TG_EXCHANGE_SECRET }\n",
                "dependencies.api.token_exchange: the dependency also sets an `Authorization` header",
            ),
            (
                AUTH,
                "    token_exchange: { issuer: https://login.example.com, client_id: tg, client_secret_env: TG_EXCHANGE_SECRET }\n",
                "dependencies.api.token_exchange: neither `audience` nor `resource` is set",
            ),
            (
                AUTH,
                "    token_exchange: { issuer: https://login.example.com, resource: api, client_id: tg, client_secret_env: TG_EXCHANGE_SECRET }\n",
                "dependencies.api.token_exchange.resource: `api` is not an absolute URI",
            ),
            (
                AUTH,
                "    token_exchange: { issuer: https://login.example.com, audience: api, client_id: tg, client_secret_env: TG_EXCHANGE_SECRET, client_auth: private_key_jwt }\n",
                "dependencies.api.token_exchange.client_auth: unknown client authentication `private_key_jwt`",
            ),
            (
                AUTH,
                "    token_exchange: { issuer: https://login.example.com, audience: api, client_id: tg, client_secret_env: TG_EXCHANGE_SECRET, token_endpoint: not-a-url }\n",
                "dependencies.api.token_exchange.token_endpoint",
            ),
        ];
        for (gateway, dependency, expected) in cases {
            let errors = compiled(&with(gateway, dependency)).expect_err(expected);
            assert!(errors.contains(expected), "{expected}\n--- got:\n{errors}");
        }
    }

    const SERVER_EXCHANGE: &str = "    token_exchange: { issuer: https://login.example.com, audience: kb, client_id: tg, client_secret_env: TG_EXCHANGE_SECRET }\n";

    #[test]
    fn a_url_server_is_called_with_the_callers_authority_and_keeps_its_own_headers() {
        let yaml = format!(
            "{AUTH}mcp_servers:\n  kb:\n    url: https://kb.example.com/mcp\n    owner: o\n    headers: {{ Authorization: Bearer toolgate-own }}\n{SERVER_EXCHANGE}"
        );
        let config = compiled(&yaml).unwrap();
        let server = &config.mcp_servers["kb"];
        let x = server.dependency.token_exchange.clone().unwrap();
        assert_eq!(x.audience.as_deref(), Some("kb"));
        // Its own `Authorization` stays, for the session that lists its tools.
        let McpTransport::Http { headers, .. } = &server.transport else {
            panic!("an HTTP server");
        };
        assert!(
            headers
                .iter()
                .any(|(n, v)| n == http::header::AUTHORIZATION && v == "Bearer toolgate-own")
        );
    }

    #[test]
    fn a_server_exchange_is_refused_where_it_cannot_work() {
        let cases = [
            (
                format!(
                    "{AUTH}mcp_servers:\n  kb:\n    command: [node, kb.js]\n    owner: o\n{SERVER_EXCHANGE}"
                ),
                "mcp_servers.kb.token_exchange: a `command` server is one process serving every caller",
            ),
            (
                format!(
                    "{AUTH}mcp_servers:\n  kb:\n    url: https://kb.example.com/mcp\n    owner: o\n{SERVER_EXCHANGE}    tools:\n      search: {{ probe: {{ every: 5m }} }}\n"
                ),
                "mcp_servers.kb.tools.search.probe: a probe has no caller whose token could be exchanged",
            ),
            (
                format!(
                    "mcp_servers:\n  kb:\n    url: https://kb.example.com/mcp\n    owner: o\n{SERVER_EXCHANGE}"
                ),
                "mcp_servers.kb.token_exchange: token exchange needs callers with access tokens",
            ),
        ];
        for (yaml, expected) in cases {
            let errors = compiled(&yaml).expect_err(expected);
            assert!(errors.contains(expected), "{expected}\n--- got:\n{errors}");
        }
    }
}
