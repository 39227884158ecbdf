//! What a reload compares: whether a dependency, a tool or an upstream MCP server is
//! configured exactly as before, so it keeps its live state (breaker, latency baseline,
//! quota, pacer; a tool's windows; a server's connection).
//!
//! The validated model has no `PartialEq` (it holds compiled validators), so a spec is
//! compared by its `Debug` rendering, which names every setting. Secret values print as
//! `***` there, so they are compared on their own: a rotated API key is a changed
//! dependency, not a kept one. Compiled validators are left out; the schemas they are
//! compiled from are in.

use toolgate_config::{Dependency, McpServerSpec, ToolSpec};

/// A dependency as configured, secrets included, but for its `account_hold`: a kept
/// dependency takes a changed hold for its next hold
/// ([`crate::dependency::DependencyState::set_account_hold`]), since starting afresh
/// would end a hold in progress and let calls through to a refused account.
pub(crate) fn dependency(d: &Dependency) -> String {
    // Every field named, so a new one is a decision here, not an accident.
    let Dependency {
        name,
        base_url,
        headers,
        timeout,
        account_hold: _,
        retry,
        flavour,
        status_page,
        version,
        secrets,
        token_exchange,
        allow_link_local,
        link_origins,
    } = d;
    let mut key = format!(
        "{name:?}|{base_url:?}|{headers:?}|{timeout:?}|{retry:?}|{flavour:?}|{status_page:?}|{version:?}|{secrets:?}|{token_exchange:?}|{allow_link_local:?}|{link_origins:?}"
    );
    for (name, value) in &d.headers {
        key.push('\n');
        key.push_str(name.as_str());
        key.push('=');
        key.push_str(&String::from_utf8_lossy(value.as_bytes()));
    }
    for secret in &d.secrets {
        key.push('\n');
        key.push_str(&secret.0);
    }
    // A rotated client secret of the token exchange is a changed dependency too.
    if let Some(x) = &d.token_exchange {
        key.push('\n');
        key.push_str(&x.client_secret.0);
    }
    key
}

/// A tool as configured, its dependency included (a tool whose dependency changed is
/// changed too).
pub(crate) fn tool(t: &ToolSpec) -> String {
    let c = &t.contract;
    format!(
        "{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{}",
        t.name,
        t.owner,
        t.description,
        t.title,
        t.kind,
        t.annotations,
        t.input_schema,
        c.version,
        c.output_schema,
        // The output schema names shared components without their content.
        c.response.shared_identity(),
        c.wraps_result,
        c.advertised,
        c.origin,
        c.on_drift,
        c.learn,
        (&t.probe, &t.successor),
        t.deadline,
        (t.notes, t.notes_member),
        dependency(&t.dependency),
    )
}

/// An upstream MCP server as configured, its dependency (timeouts, headers, the
/// environment of a stdio server) included.
pub(crate) fn mcp_server(s: &McpServerSpec) -> String {
    format!("{s:?}|{}", dependency(&s.dependency))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    fn parse(yaml: &str) -> toolgate_config::Config {
        crate::fixtures::config(yaml)
    }

    fn config(timeout: &str, key: &str) -> toolgate_config::Config {
        let yaml = format!(
            "dependencies:\n  api:\n    base_url: \"http://127.0.0.1:9\"\n    timeout: {timeout}\n    headers: {{ X-Key: \"{key}\" }}\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: {{ path: /s }}\n    contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n"
        );
        parse(&yaml)
    }

    #[test]
    fn equal_configs_have_equal_keys_and_a_changed_setting_or_secret_does_not() {
        let a = config("5s", "one");
        let b = config("5s", "one");
        assert_eq!(
            super::dependency(&a.dependencies["api"]),
            super::dependency(&b.dependencies["api"])
        );
        assert_eq!(super::tool(&a.tools["t"]), super::tool(&b.tools["t"]));
        let slower = config("9s", "one");
        assert_eq!(slower.dependencies["api"].timeout, Duration::from_secs(9));
        assert_ne!(
            super::dependency(&a.dependencies["api"]),
            super::dependency(&slower.dependencies["api"])
        );
        assert_ne!(super::tool(&a.tools["t"]), super::tool(&slower.tools["t"]));
        let rotated = config("5s", "two");
        assert_ne!(
            super::dependency(&a.dependencies["api"]),
            super::dependency(&rotated.dependencies["api"])
        );
    }

    fn shared(tag: &str, other: &str) -> toolgate_config::Config {
        let yaml = format!(
            "dependencies:\n  api: {{ base_url: \"http://127.0.0.1:9\" }}\nschemas:\n  api:\n    item: {{ type: object, properties: {{ tag: {{ $ref: \"toolgate:schemas/api/tag\" }} }} }}\n    tag: {{ type: {tag} }}\n    other: {{ type: {other} }}\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: {{ path: /s }}\n    contract: {{ version: \"1.0\", response_schema: {{ $ref: \"toolgate:schemas/api/item\" }} }}\n"
        );
        parse(&yaml)
    }

    #[test]
    fn a_tool_changes_with_the_shared_components_its_contract_reaches_and_only_those() {
        let a = shared("string", "string");
        assert_eq!(
            super::tool(&a.tools["t"]),
            super::tool(&shared("string", "string").tools["t"])
        );
        // The tool's own text is unchanged, but a component it reaches is not.
        assert_ne!(
            super::tool(&a.tools["t"]),
            super::tool(&shared("integer", "string").tools["t"])
        );
        assert_eq!(
            super::tool(&a.tools["t"]),
            super::tool(&shared("string", "integer").tools["t"])
        );
    }
}
