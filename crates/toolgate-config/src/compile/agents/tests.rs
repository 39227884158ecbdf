const TOOLS: &str = "dependencies:\n  api: { base_url: \"http://127.0.0.1:9\" }\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: { path: /x }\n    contract: { version: \"1.0\", response_schema: { type: object } }\n";

fn parsed(yaml: &str) -> Result<crate::Config, crate::ConfigErrors> {
    crate::parse(
        std::path::Path::new("t.yaml"),
        &format!("{TOOLS}{yaml}"),
        std::path::Path::new("."),
        &|_| None,
    )
}

fn errors(yaml: &str) -> String {
    match parsed(yaml) {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_valid_auth_and_agents_section_compiles() {
    let yaml = "gateway:\n  auth:\n    resource: https://tools.example.com/mcp\n    issuers: [{ issuer: https://login.example.com }]\n    scopes: [tools:call]\n    unmatched: refuse\nagents:\n  bot:\n    match: { client_id: bot, claims: { team: reporting } }\n    tools: [t]\n    quota: { calls: 60, per: 1m, concurrent: 4 }\n";
    let config = parsed(yaml).unwrap_or_else(|e| panic!("{e}"));
    let auth = config
        .gateway
        .auth
        .as_ref()
        .map(|a| (a.resource.as_str(), a.scopes.len(), a.unmatched));
    assert_eq!(
        auth,
        Some(("https://tools.example.com/mcp", 1, crate::Unmatched::Refuse))
    );
    let admin_scope = config.gateway.auth.as_ref().map(|a| a.admin_scope.as_str());
    assert_eq!(admin_scope, Some(crate::DEFAULT_ADMIN_SCOPE));
    let bot = &config.agents["bot"];
    assert!(!bot.admin, "an agent is no administrator unless it says so");
    assert!(bot.may_call("t") && !bot.may_call("other"));
    assert_eq!(
        bot.quota.map(|q| (q.calls, q.concurrent)),
        Some((Some((60, std::time::Duration::from_secs(60))), Some(4)))
    );
}

#[test]
fn an_issuers_token_lifetime_bound_is_a_sensible_duration() {
    let with = |bound: &str| {
        format!(
            "gateway:\n  auth:\n    resource: https://tools.example.com/mcp\n    issuers: [{{ issuer: https://login.example.com, max_token_lifetime: \"{bound}\" }}]\n"
        )
    };
    let bound = |bound: &str| {
        parsed(&with(bound))
            .ok()
            .and_then(|c| c.gateway.auth)
            .and_then(|a| a.issuers[0].max_token_lifetime)
    };
    assert_eq!(bound("1h"), Some(std::time::Duration::from_secs(3600)));
    assert_eq!(bound("1m"), Some(std::time::Duration::from_secs(60)));
    assert_eq!(
        bound("365d"),
        Some(std::time::Duration::from_secs(365 * 86_400))
    );
    for nonsense in ["0s", "30s", "366d", "100000d", "-1h", "forever", ""] {
        let e = errors(&with(nonsense));
        assert!(
            e.contains("gateway.auth.issuers.0.max_token_lifetime"),
            "{nonsense}: {e}"
        );
    }
    assert!(errors(&with("10s")).contains("outside 1m to 365d"));
    let unset = "gateway:\n  auth:\n    resource: https://tools.example.com/mcp\n    issuers: [{ issuer: https://login.example.com }]\n";
    let config = parsed(unset).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        config.gateway.auth.map(|a| a.issuers[0].max_token_lifetime),
        Some(None)
    );
}

#[test]
fn with_several_issuers_an_agent_names_the_issuer_of_its_tokens() {
    let yaml = "gateway:\n  auth:\n    resource: https://tools.example.com/mcp\n    issuers: [{ issuer: https://login.example.com }, { issuer: https://partner.example.net }]\nagents:\n  bot:\n    match: { issuer: https://login.example.com, sub: bot }\n  partner:\n    match: { claims: { iss: https://partner.example.net } }\n";
    let config = parsed(yaml).unwrap_or_else(|e| panic!("{e}"));
    let bot = config.agents["bot"].matches.clone().unwrap_or_default();
    let token = |iss: &str| {
        serde_json::json!({"iss": iss, "sub": "bot"})
            .as_object()
            .cloned()
            .unwrap_or_default()
    };
    assert!(bot.matches(&token("https://login.example.com")));
    assert!(
        !bot.matches(&token("https://partner.example.net")),
        "the same sub at another trusted issuer is someone else"
    );
}

#[test]
fn mistakes_are_told_in_sentences() {
    let cases = [
        (
            "gateway:\n  auth:\n    resource: https://x.example/mcp\n",
            "no issuer is configured",
        ),
        (
            "gateway:\n  auth:\n    resource: https://x.example/mcp#a\n    issuers: [{ issuer: https://l.example }]\n",
            "has a fragment",
        ),
        (
            "gateway:\n  auth:\n    resource: https://x.example/mcp\n    issuers: [{ issuer: https://l.example }]\n    unmatched: maybe\n",
            "is not `anonymous` or `refuse`",
        ),
        (
            "agents:\n  bot:\n    match: { sub: bot }\n",
            "`gateway.auth` is not configured",
        ),
        (
            "agents:\n  bot:\n    tools: [t]\n",
            "neither `match` nor `api_key_sha256`",
        ),
        (
            "agents:\n  bot:\n    api_key_sha256: my-secret-key\n",
            "is not 64 hexadecimal digits",
        ),
        (
            "agents:\n  anonymous:\n    api_key_sha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n",
            "`anonymous` is the name of callers no agent matches",
        ),
        (
            "agents:\n  a:\n    api_key_sha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n  b:\n    api_key_sha256: BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD\n",
            "agent `a` has the same API key",
        ),
        (
            "agents:\n  bot:\n    api_key_sha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n    quota: { calls: 0 }\n",
            "a quota of 0 would refuse every call",
        ),
        (
            "agents:\n  bot:\n    api_key_sha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n    quota: { per: 1m }\n",
            "names neither `calls` nor `concurrent`",
        ),
        (
            "agents:\n  bot:\n    api_key_sha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n    quto: {}\n",
            "unknown field `quto`",
        ),
        (
            "gateway:\n  auth:\n    resource: https://x.example/mcp\n    issuers: [{ issuer: https://l.example }]\n    admin_scope: \"tool gate\"\n",
            "`tool gate` is not a scope",
        ),
        (
            "gateway:\n  auth:\n    resource: https://x.example/mcp\n    issuers: [{ issuer: https://l.example, introspection: { client_id: tg, client_secret_env: TG_INTROSPECTION } }]\n",
            "environment variable TG_INTROSPECTION is not set",
        ),
        (
            "gateway:\n  auth:\n    resource: https://x.example/mcp\n    issuers: [{ issuer: https://l.example, introspection: { client_id: \" \", client_secret_env: S } }]\n",
            "the client id is empty",
        ),
        (
            "gateway:\n  auth:\n    resource: https://x.example/mcp\n    issuers: [{ issuer: https://l.example }, { issuer: https://partner.example }]\nagents:\n  bot:\n    match: { sub: bot }\n",
            "several issuers are trusted",
        ),
        (
            "gateway:\n  auth:\n    resource: https://x.example/mcp\n    issuers: [{ issuer: https://l.example }]\nagents:\n  bot:\n    match: { issuer: https://l.example/, sub: bot }\n",
            "`https://l.example/` is not one of `gateway.auth.issuers`",
        ),
    ];
    for (yaml, expected) in cases {
        let text = errors(yaml);
        assert!(text.contains(expected), "{yaml}\n---\n{text}");
    }
}

/// Several introspecting issuers, each `introspection` given as the flow map it has
/// inside `{ issuer: ..., introspection: ... }`.
fn introspecting(issuers: &[(&str, &str)]) -> String {
    let list: Vec<String> = issuers
        .iter()
        .map(|(iss, extra)| {
            format!("{{ issuer: {iss}, introspection: {{ client_id: tg, client_secret_env: S{extra} }} }}")
        })
        .collect();
    format!(
        "gateway:\n  auth:\n    resource: https://x.example/mcp\n    issuers: [{}]\n",
        list.join(", ")
    )
}

/// `yaml` parsed with the client secret `S` set.
fn parsed_with_secret(yaml: &str) -> Result<crate::Config, crate::ConfigErrors> {
    crate::parse(
        std::path::Path::new("t.yaml"),
        &format!("{TOOLS}{yaml}"),
        std::path::Path::new("."),
        &|name| (name == "S").then(|| "s3cret".to_string()),
    )
}

#[test]
fn several_introspecting_issuers_must_say_which_opaque_tokens_are_theirs() {
    let refused = [
        (
            introspecting(&[("https://a.example", ""), ("https://b.example", "")]),
            "2 introspecting issuers (https://a.example, https://b.example) do not say which opaque tokens are theirs",
        ),
        (
            introspecting(&[
                ("https://github.example", ", token_prefixes: [gh]"),
                ("https://b.example", ", token_prefixes: [gho_]"),
            ]),
            "prefix `gh` of https://github.example also matches `gho_` of https://b.example",
        ),
        (
            introspecting(&[
                ("https://a.example", ", token_prefixes: [at_]"),
                ("https://b.example", ", token_prefixes: [at_]"),
            ]),
            "prefix `at_` of https://a.example also matches `at_`",
        ),
        (
            introspecting(&[("https://a.example", ", token_prefixes: [\"gho \"]")]),
            "`gho ` cannot start a bearer token",
        ),
        (
            introspecting(&[("https://a.example", ", token_prefixes: [\"\"]")]),
            "`` cannot start a bearer token",
        ),
        (
            introspecting(&[("https://a.example", ", max_lookups_per_second: 0")]),
            "max_lookups_per_second `0` is outside 1 to 10000",
        ),
    ];
    for (yaml, expected) in refused {
        let text = parsed_with_secret(&yaml).err().map(|e| e.to_string());
        let text = text.unwrap_or_default();
        assert!(text.contains(expected), "{yaml}\n---\n{text}");
    }
    // The forms that tell every token's issuer apart, and a lone issuer as before.
    let accepted = [
        introspecting(&[
            ("https://github.example", ", token_prefixes: [gho_, ghu_]"),
            ("https://hydra.example", ", token_prefixes: [ory_at_]"),
            ("https://slack.example", ", token_prefixes: [xoxp-, xoxb-]"),
        ]),
        introspecting(&[
            ("https://github.example", ", token_prefixes: [gho_]"),
            ("https://keycloak.example", ""),
        ]),
        introspecting(&[("https://a.example", "")]),
    ];
    for yaml in accepted {
        let config = parsed_with_secret(&yaml).unwrap_or_else(|e| panic!("{yaml}\n---\n{e}"));
        let auth = config.gateway.auth.unwrap();
        let first = auth.issuers[0].introspection.as_ref().unwrap();
        assert_eq!(first.max_lookups_per_second, 20);
    }
}
