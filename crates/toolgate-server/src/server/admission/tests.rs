use super::*;
use axum::http::HeaderValue;

const TOOLS: &str = "dependencies:\n  api: { base_url: \"http://127.0.0.1:9\" }\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: { path: /x }\n    contract: { version: \"1.0\", response_schema: { type: object } }\n";

fn admission(hosts: &[&str], origins: &[&str], token: Option<&str>) -> Admission {
    let env = |_: &str| token.map(str::to_owned);
    let yaml = format!(
        "gateway:\n  allowed_hosts: [{}]\n  allowed_origins: [{}]\n{}{TOOLS}",
        hosts.join(", "),
        origins
            .iter()
            .map(|o| format!("\"{o}\""))
            .collect::<Vec<_>>()
            .join(", "),
        if token.is_some() {
            "  auth_token_env: T\n"
        } else {
            ""
        }
    );
    admission_of(&yaml, &env)
}

/// The admission of the config `yaml`, its environment variables read from `env`.
fn admission_of(yaml: &str, env: toolgate_config::EnvLookup<'_>) -> Admission {
    let config = toolgate_config::parse(
        std::path::Path::new("t.yaml"),
        yaml,
        std::path::Path::new("."),
        env,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    toolgate_engine::tls::init();
    let auth = Authenticator::new(&config.gateway, &config.agents, reqwest::Client::new());
    Admission::new(&config.gateway, Arc::new(auth))
}

/// Agents `ops`, an administrator with the key `ops-key`, and `bot` with `bot-key`.
fn agents() -> String {
    let key = |k: &str| toolgate_auth::sha256_hex(k.as_bytes());
    format!(
        "agents:\n  ops:\n    api_key_sha256: {}\n    admin: true\n  bot:\n    api_key_sha256: {}\n",
        key("ops-key"),
        key("bot-key")
    )
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn status(a: &Admission, path: &str, pairs: &[(&'static str, &'static str)]) -> u16 {
    let mut h = HeaderMap::new();
    for (k, v) in pairs {
        h.append(*k, HeaderValue::from_static(v));
    }
    if let Some(r) = a.refuse(path, None, &h) {
        return r.status().as_u16();
    }
    let rt = runtime();
    let authorization = h.get(header::AUTHORIZATION).map(HeaderValue::as_bytes);
    match rt.block_on(a.identify(path, authorization)) {
        Err(r) => r.status().as_u16(),
        Ok(_) => 200,
    }
}

#[test]
fn an_authorization_header_that_is_not_text_is_an_invalid_token_not_a_missing_one() {
    let a = admission(&[], &[], Some("s3cret"));
    let rt = runtime();
    // Bytes a `HeaderValue` holds but that are not text: UTF-8 and Latin-1 letters.
    for value in [&b"Bearer s3cr\xc3\xa9t"[..], b"Bearer s3cr\xe9t", b"\xff"] {
        let value = HeaderValue::from_bytes(value).unwrap_or_else(|e| panic!("{e}"));
        let refused = rt
            .block_on(a.identify("/mcp", Some(value.as_bytes())))
            .unwrap_err();
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
        let challenge = refused.headers()[header::WWW_AUTHENTICATE]
            .to_str()
            .unwrap_or_default()
            .to_string();
        assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
        let body = rt
            .block_on(axum::body::to_bytes(refused.into_body(), 4096))
            .unwrap_or_default();
        let body = String::from_utf8_lossy(&body);
        assert!(body.contains("printable ASCII"), "{body}");
        assert!(!body.contains("s3cr"), "{body}");
    }
}

#[test]
fn hosts_are_checked_on_every_endpoint() {
    let a = admission(&["gw.example.com:8443", "internal"], &[], None);
    for path in [
        "/mcp",
        "/admin/incidents",
        "/metrics",
        "/healthz",
        "/readyz",
        "/demo/control",
    ] {
        assert_eq!(
            status(&a, path, &[("host", "127.0.0.1:8765")]),
            200,
            "{path}"
        );
        assert_eq!(status(&a, path, &[("host", "evil.example")]), 403, "{path}");
    }
    assert_eq!(status(&a, "/mcp", &[("host", "LOCALHOST")]), 200);
    assert_eq!(status(&a, "/mcp", &[("host", "[::1]:9000")]), 200);
    assert_eq!(status(&a, "/mcp", &[("host", "gw.example.com:8443")]), 200);
    assert_eq!(status(&a, "/mcp", &[("host", "gw.example.com:443")]), 403);
    assert_eq!(status(&a, "/mcp", &[("host", "internal:1")]), 200);
    assert_eq!(
        status(&a, "/mcp", &[("host", "127.0.0.1.evil.example")]),
        403
    );
    assert_eq!(status(&a, "/mcp", &[]), 400);
    assert_eq!(status(&a, "/mcp", &[("host", "a b")]), 400);
}

#[test]
fn a_single_valued_header_sent_twice_is_refused_on_every_endpoint() {
    let a = admission(&[], &["https://app.example.com"], Some("s3cret"));
    let allowed = [
        ("host", "127.0.0.1:8765"),
        ("origin", "https://app.example.com"),
        ("authorization", "Bearer s3cret"),
    ];
    assert_eq!(status(&a, "/mcp", &allowed), 200);
    // A value that passes, and another: the allowed one first or last, a reader of
    // the other one would disagree with the check.
    for (name, good, other) in [
        ("host", "127.0.0.1:8765", "evil.example"),
        ("origin", "https://app.example.com", "http://evil.example"),
        ("authorization", "Bearer s3cret", "Bearer stolen"),
        ("content-type", "application/json", "text/plain"),
        ("mcp-session-id", "one-session", "another-session"),
        ("mcp-protocol-version", "2025-06-18", "2025-03-26"),
        ("mcp-method", "tools/call", "tools/list"),
        ("mcp-name", "search", "other"),
        ("last-event-id", "6", "7"),
    ] {
        let base: Vec<_> = allowed
            .iter()
            .filter(|(n, _)| *n != name)
            .copied()
            .collect();
        for path in ["/mcp", "/healthz", "/admin/status"] {
            for pair in [[good, other], [other, good]] {
                let mut headers = base.clone();
                headers.extend(pair.map(|v| (name, v)));
                assert_eq!(status(&a, path, &headers), 400, "{name} on {path}");
            }
        }
    }
    // Headers that are lists may repeat.
    let mut accept = allowed.to_vec();
    accept.extend([
        ("accept", "application/json"),
        ("accept", "text/event-stream"),
    ]);
    assert_eq!(status(&a, "/mcp", &accept), 200);
}

#[test]
fn origins_are_checked_on_mcp() {
    let a = admission(
        &[],
        &["https://app.example.com", "http://dev.example:*"],
        None,
    );
    let ok =
        |origin: &'static str| status(&a, "/mcp", &[("host", "localhost"), ("origin", origin)]);
    assert_eq!(ok("http://localhost:6274"), 200);
    assert_eq!(ok("http://127.0.0.1"), 200);
    assert_eq!(ok("https://app.example.com"), 200);
    assert_eq!(ok("https://app.example.com:443"), 200);
    assert_eq!(ok("https://app.example.com:8443"), 403);
    assert_eq!(ok("http://dev.example:3000"), 200);
    assert_eq!(ok("http://evil.example"), 403);
    assert_eq!(ok("null"), 403);
    assert_eq!(ok("not an origin"), 403);
    // Off /mcp the Origin is not MCP's business (the Host check still applies).
    assert_eq!(
        status(
            &a,
            "/healthz",
            &[("host", "localhost"), ("origin", "http://evil.example")]
        ),
        200
    );
}

#[test]
fn the_bearer_scheme_is_case_insensitive_and_guards_mcp_and_admin_only() {
    let a = admission(&[], &[], Some("s3cret"));
    let with = |path: &str, auth: &'static str| {
        status(&a, path, &[("host", "localhost"), ("authorization", auth)])
    };
    assert_eq!(with("/mcp", "Bearer s3cret"), 200);
    assert_eq!(with("/mcp", "bearer s3cret"), 200);
    assert_eq!(with("/admin/status", "BEARER  s3cret"), 200);
    assert_eq!(with("/mcp", "Bearer s3cre"), 401);
    assert_eq!(with("/mcp", "Basic s3cret"), 401);
    assert_eq!(with("/mcp", "s3cret"), 401);
    assert_eq!(status(&a, "/admin/status", &[("host", "localhost")]), 401);
    assert_eq!(status(&a, "/healthz", &[("host", "localhost")]), 200);
    assert_eq!(status(&a, "/metrics", &[("host", "localhost")]), 200);
}

#[test]
fn admin_paths_admit_administrators_and_the_audit_trail_agents_too() {
    let yaml = format!("gateway:\n  auth_token_env: T\n{TOOLS}{}", agents());
    let a = admission_of(&yaml, &|_| Some("shared-token".to_string()));
    let rt = runtime();
    let answer = |path: &str, bearer: Option<&str>| {
        let header = bearer.map(|b| format!("Bearer {b}"));
        match rt.block_on(a.identify(path, header.as_deref().map(str::as_bytes))) {
            Ok(id) => (200, id.is_some_and(|i| i.admin)),
            Err(r) => (r.status().as_u16(), false),
        }
    };
    for path in [
        "/admin/status",
        "/admin/reload",
        "/admin/incidents",
        "/ui",
        "/ui/tools",
    ] {
        assert_eq!(answer(path, None).0, 401, "{path}");
        assert_eq!(answer(path, Some("bot-key")).0, 403, "{path}");
        assert_eq!(answer(path, Some("ops-key")), (200, true), "{path}");
        assert_eq!(answer(path, Some("shared-token")), (200, true), "{path}");
    }
    // The audit trail admits an agent as itself, not as an administrator.
    assert_eq!(answer("/admin/audit", Some("bot-key")), (200, false));
    assert_eq!(answer("/admin/audit", Some("ops-key")), (200, true));
    assert_eq!(answer("/admin/audit", Some("wrong")).0, 401);
    // /mcp is unchanged: any configured credential.
    assert_eq!(answer("/mcp", Some("bot-key")).0, 200);
    let refused = rt
        .block_on(a.identify("/admin/status", Some(b"Bearer bot-key")))
        .unwrap_err();
    let challenge = refused.headers()[header::WWW_AUTHENTICATE]
        .to_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        challenge.contains("error=\"insufficient_scope\""),
        "{challenge}"
    );
}

#[test]
fn a_declared_body_over_the_limit_is_refused() {
    let a = admission(&[], &[], None);
    assert_eq!(
        status(
            &a,
            "/mcp",
            &[("host", "localhost"), ("content-length", "4194305")]
        ),
        413
    );
    assert_eq!(
        status(
            &a,
            "/mcp",
            &[("host", "localhost"), ("content-length", "4194304")]
        ),
        200
    );
}

#[test]
fn basic_credentials_are_decoded() {
    // RFC 7617's example, and a password holding a colon.
    assert_eq!(
        basic("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        Some(("Aladdin".into(), "open sesame".into()))
    );
    assert_eq!(basic("basic YTpiOmM="), Some(("a".into(), "b:c".into())));
    assert_eq!(basic("Bearer QWxhZGRpbjpvcGVuIHNlc2FtZQ=="), None);
    assert_eq!(basic("Basic !!!"), None);
    assert_eq!(basic("Basic bm9jb2xvbg=="), None, "no colon");
    assert_eq!(basic("Basic"), None);
}

/// The admission of a config with `metrics_token_env: M` and `extra` besides.
fn with_metrics_token(extra: &str) -> Admission {
    let yaml = format!(
        "gateway:\n  metrics_token_env: M\n{extra}{TOOLS}{}",
        agents()
    );
    let env = |var: &str| match var {
        "M" => Some("scrape-token".to_string()),
        _ => Some("shared-token".to_string()),
    };
    admission_of(&yaml, &env)
}

#[test]
fn metrics_with_a_token_admit_its_scrapers_and_administrators_only() {
    let rt = runtime();
    for extra in ["  auth_token_env: T\n", ""] {
        let a = with_metrics_token(extra);
        let answer = |value: Option<&str>| match rt
            .block_on(a.identify("/metrics", value.map(str::as_bytes)))
        {
            Ok(_) => 200,
            Err(r) => r.status().as_u16(),
        };
        assert_eq!(answer(None), 401, "{extra:?}");
        assert_eq!(answer(Some("Bearer scrape-token")), 200, "{extra:?}");
        assert_eq!(answer(Some("bearer  scrape-token")), 200, "{extra:?}");
        assert_eq!(answer(Some("Bearer scrape-toke")), 401, "{extra:?}");
        assert_eq!(answer(Some("Basic scrape-token")), 401, "{extra:?}");
        // An agent's own credential does not show it every agent's calls.
        assert_eq!(answer(Some("Bearer bot-key")), 403, "{extra:?}");
        assert_eq!(answer(Some("Bearer ops-key")), 200, "{extra:?}");
        // The metrics token opens nothing else.
        assert!(
            rt.block_on(a.identify("/admin/status", Some(b"Bearer scrape-token")))
                .is_err()
        );
    }
    // Without the setting, /metrics stays open, as Prometheus setups expect.
    let open = admission(&[], &[], Some("s3cret"));
    assert!(matches!(
        rt.block_on(open.identify("/metrics", None)),
        Ok(None)
    ));
}

#[test]
fn an_access_token_in_the_url_is_refused_where_credentials_are_asked_for() {
    // The MCP authorization spec: "Access tokens MUST NOT be included in the URI query
    // string"; RFC 6750 §2.3 names the parameter.
    let guarded = admission(&[], &[], Some("s3cret"));
    for (path, query) in [
        ("/mcp", "access_token=s3cret"),
        ("/mcp", "session=1&ACCESS_TOKEN=x"),
        ("/mcp", "access%5Ftoken=x"),
        ("/admin/status", "access_token="),
        ("/ui", "access_token=s3cret"),
    ] {
        let refused = guarded
            .refuse_token_in_query(path, Some(query))
            .unwrap_or_else(|| panic!("{path}?{query} was admitted"));
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST, "{path}?{query}");
        let challenge = refused.headers()[header::WWW_AUTHENTICATE]
            .to_str()
            .unwrap_or_default()
            .to_owned();
        assert!(challenge.contains("invalid_request"), "{challenge}");
        assert!(!challenge.contains("s3cret"), "{challenge}");
    }
    // Other parameters, other endpoints, and a gateway that asks for no credential.
    for (path, query) in [
        ("/mcp", "token_hint=1"),
        ("/ui/tools", "q=access_token"),
        ("/healthz", "access_token=x"),
        (
            "/.well-known/oauth-protected-resource/mcp",
            "access_token=x",
        ),
    ] {
        assert!(
            guarded.refuse_token_in_query(path, Some(query)).is_none(),
            "{path}?{query}"
        );
    }
    assert!(guarded.refuse_token_in_query("/mcp", None).is_none());
    let open = admission(&[], &[], None);
    assert!(
        open.refuse_token_in_query("/mcp", Some("access_token=x"))
            .is_none()
    );
}
