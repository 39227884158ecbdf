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
