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
        let mut ok = self.known_issuer(&at, &raw.issuer, auth);
        let token_endpoint = match &raw.token_endpoint {
            Some(text) => {
                let url = self.url(&format!("{at}.token_endpoint"), text);
                ok &= url.is_some();
                url
            }
            None => None,
        };
        let audience = nonempty(raw.audience);
        let resource = nonempty(raw.resource);
        ok &= self.names_the_upstream(&at, audience.as_deref(), resource.as_deref());
        if raw.client_id.trim().is_empty() {
            self.err(
                format!("{at}.client_id"),
                "the client id is empty",
                "write the client id toolgate was registered with at the issuer",
            );
            ok = false;
        }
        let client_auth = self.client_auth(&at, raw.client_auth.as_deref());
        ok &= client_auth.is_some();
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
                client_auth: client_auth.unwrap_or(ClientAuth::Basic),
            })
        })
    }

    /// Whether `issuer` is one of `gateway.auth.issuers` (an error naming them if not).
    fn known_issuer(&mut self, at: &str, issuer: &str, auth: &AuthConfig) -> bool {
        if auth.issuers.iter().any(|i| i.issuer == issuer) {
            return true;
        }
        let known: Vec<&str> = auth.issuers.iter().map(|i| i.issuer.as_str()).collect();
        self.err(
            format!("{at}.issuer"),
            format!("`{issuer}` is not one of `gateway.auth.issuers`"),
            &format!(
                "name a configured issuer exactly as written there: {}",
                if known.is_empty() {
                    "none is configured".to_string()
                } else {
                    known.join(", ")
                }
            ),
        );
        false
    }

    /// Whether the exchange says which upstream the token is for: an `audience`, or a
    /// `resource` that is an absolute URI without a fragment (RFC 8707).
    fn names_the_upstream(
        &mut self,
        at: &str,
        audience: Option<&str>,
        resource: Option<&str>,
    ) -> bool {
        let mut ok = true;
        if let Some(r) = resource
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
                at,
                "neither `audience` nor `resource` is set: the authorization server would not know which upstream the token is for",
                "set `audience` (the name the authorization server knows the upstream by) or `resource` (its URI)",
            );
            ok = false;
        }
        ok
    }

    /// How toolgate authenticates at the token endpoint; `None` (an error) when unknown.
    fn client_auth(&mut self, at: &str, written: Option<&str>) -> Option<ClientAuth> {
        match written {
            None | Some("client_secret_basic") => Some(ClientAuth::Basic),
            Some("client_secret_post") => Some(ClientAuth::Post),
            Some(other) => {
                self.err(
                    format!("{at}.client_auth"),
                    format!("unknown client authentication `{other}`"),
                    "use client_secret_basic (default) or client_secret_post",
                );
                None
            }
        }
    }
}

/// A setting with its surrounding blanks trimmed; `None` when nothing is left.
fn nonempty(s: Option<String>) -> Option<String> {
    s.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests;
