use crate::{McpTransport, OnChange, glob};

fn parse(yaml: &str) -> Result<crate::Config, String> {
    let env = |k: &str| (k == "KB_TOKEN").then(|| "s3cret".to_string());
    crate::parse(
        std::path::Path::new("gw.yaml"),
        yaml,
        std::path::Path::new("."),
        &env,
    )
    .map_err(|e| e.to_string())
}

#[test]
fn a_server_in_three_lines_gets_the_defaults() {
    let c = parse(
        "mcp_servers:\n  kb:\n    url: http://127.0.0.1:3001/mcp\n    owner: kb@example.com\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let kb = &c.mcp_servers["kb"];
    assert_eq!(kb.prefix, "kb");
    assert_eq!(kb.exposed_name("search"), "kb__search");
    assert_eq!(kb.on_change, OnChange::Warn);
    assert_eq!(kb.lock, std::path::Path::new("./gw.lock.json"));
    assert_eq!(kb.dependency.name, "kb");
    assert_eq!(kb.dependency.timeout, std::time::Duration::from_secs(30));
    assert!(
        c.dependencies.contains_key("kb"),
        "the server is a dependency"
    );
    assert!(matches!(kb.transport, McpTransport::Http { .. }));
}

#[test]
fn every_mistake_is_reported_at_once() {
    let e = parse(
        "mcp_servers:\n  a:\n    url: http://x/mcp\n    command: [node]\n  b:\n    command: []\n    owner: o\n  c:\n    url: http://x/mcp\n    owner: o\n    prefix: 'x__y'\n    on_change: explode\n    include: ['bad name']\n  d:\n    owner: o\n",
    )
    .expect_err("invalid");
    for needle in [
        "either `url` or `command`",
        "MCP server `a` has no owner",
        "the command is empty",
        "contains the separator",
        "unknown on_change `explode`",
        "`bad name` is not a tool name or pattern",
        "needs `url` (streamable HTTP) or `command` (stdio)",
    ] {
        assert!(e.contains(needle), "missing {needle:?} in:\n{e}");
    }
}

#[test]
fn headers_are_expanded_and_stdio_takes_env_and_cwd() {
    let c = parse(
        "mcp_servers:\n  kb:\n    url: http://127.0.0.1:3001/mcp\n    owner: o\n    headers: { Authorization: 'Bearer ${KB_TOKEN}' }\n  ev:\n    command: [node, server.js, stdio]\n    env: { TOKEN: '${KB_TOKEN}' }\n    owner: o\n    prefix: ''\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let McpTransport::Http { headers, .. } = &c.mcp_servers["kb"].transport else {
        panic!("http");
    };
    assert_eq!(headers[0].1.to_str().ok(), Some("Bearer s3cret"));
    assert!(headers[0].1.is_sensitive());
    let ev = &c.mcp_servers["ev"];
    let McpTransport::Stdio {
        program, args, env, ..
    } = &ev.transport
    else {
        panic!("stdio");
    };
    assert_eq!((program.as_str(), args.len()), ("node", 2));
    assert_eq!(env[0].1.0, "s3cret");
    assert_eq!(format!("{:?}", env[0].1), "Secret(***)");
    assert_eq!(ev.exposed_name("echo"), "echo");
}

#[test]
fn stdio_children_get_a_clean_environment_plus_inherit_env() {
    let c = parse(
        "mcp_servers:\n  ev:\n    command: [node, server.js]\n    inherit_env: [KB_TOKEN, UNSET_ONE]\n    owner: o\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let ev = &c.mcp_servers["ev"];
    let McpTransport::Stdio { inherit_env, .. } = &ev.transport else {
        panic!("stdio");
    };
    assert_eq!(inherit_env, &["KB_TOKEN", "UNSET_ONE"]);
    // The inherited value is a credential: redacted like `env`'s.
    assert!(ev.dependency.secrets.iter().any(|s| s.0 == "s3cret"));

    let e = parse(
        "mcp_servers:\n  ev:\n    command: [node, server.js]\n    inherit_env: ['A=B']\n    owner: o\n  kb:\n    url: http://127.0.0.1:3001/mcp\n    inherit_env: [KB_TOKEN]\n    owner: o\n",
    )
    .expect_err("bad inherit_env");
    assert!(e.contains("mcp_servers.ev.inherit_env.0"), "{e}");
    assert!(e.contains("apply to a `command` server"), "{e}");
}

#[test]
fn a_server_may_not_share_a_name_or_prefix() {
    let e = parse(
        "dependencies:\n  kb: { base_url: 'http://x' }\nmcp_servers:\n  kb: { url: 'http://x/mcp', owner: o }\n  one: { url: 'http://x/mcp', owner: o, prefix: kb }\n  two: { url: 'http://x/mcp', owner: o, prefix: kb }\n",
    )
    .expect_err("collisions");
    assert!(e.contains("both a dependency and an MCP server"), "{e}");
    assert!(e.contains("both use the prefix `kb`"), "{e}");
}

#[test]
fn prefix_collision_refused_at_check() {
    let e = parse(
        "mcp_servers:\n  one: { url: 'http://x/mcp', owner: o, prefix: a }\n  two: { url: 'http://x/mcp', owner: o, prefix: a_ }\n",
    )
    .expect_err("`a` + `_echo` and `a_` + `echo` are the same name");
    assert!(
        e.contains(
            "the prefixes `a` (server `one`) and `a_` (server `two`) can name the same tool"
        ),
        "{e}"
    );
    assert!(e.contains("mcp_servers.two.prefix"), "{e}");
    // Server names are the default prefixes: the same rule holds for them.
    let e = parse(
        "mcp_servers:\n  kb: { url: 'http://x/mcp', owner: o }\n  kb_: { url: 'http://x/mcp', owner: o }\n",
    )
    .expect_err("kb and kb_");
    assert!(e.contains("can name the same tool"), "{e}");
    parse(
        "mcp_servers:\n  kb: { url: 'http://x/mcp', owner: o }\n  kb_2: { url: 'http://x/mcp', owner: o }\n",
    )
    .unwrap_or_else(|e| panic!("`kb` and `kb_2` cannot collide: {e}"));
}

#[test]
fn tool_limits_default_and_override_key_by_key() {
    let c = parse(
        "gateway:\n  mcp_server_limits: { max_tools: 50, max_total_bytes: 1MiB }\nmcp_servers:\n  kb: { url: 'http://x/mcp', owner: o, limits: { max_tools: 5 } }\n  ev: { url: 'http://x/mcp', owner: o }\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let kb = c.mcp_servers["kb"].limits;
    assert_eq!(
        (kb.max_tools, kb.max_definition_bytes, kb.max_total_bytes),
        (5, 64 << 10, 1 << 20)
    );
    assert_eq!(c.mcp_servers["ev"].limits.max_tools, 50);
    let e = parse(
        "mcp_servers:\n  kb: { url: 'http://x/mcp', owner: o, limits: { max_tools: 0, max_definition_bytes: lots } }\n",
    )
    .expect_err("zero and nonsense");
    assert!(e.contains("max_tools is 0"), "{e}");
    assert!(
        e.contains("mcp_servers.kb.limits.max_definition_bytes"),
        "{e}"
    );
}

#[test]
fn which_requests_a_server_may_send_the_agent_is_set_gateway_wide_and_per_server() {
    let c = parse(
        "gateway:\n  mcp_server_limits: { server_requests: [elicitation] }\nmcp_servers:\n  kb: { url: 'http://x/mcp', owner: o }\n  ev: { url: 'http://x/mcp', owner: o, limits: { server_requests: [sampling, roots] } }\n  no: { url: 'http://x/mcp', owner: o, limits: { server_requests: [] } }\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let allowed = |s: &str| {
        let r = c.mcp_servers[s].limits.server_requests;
        (r.sampling, r.elicitation, r.roots)
    };
    assert_eq!(allowed("kb"), (false, true, false), "the gateway's");
    assert_eq!(allowed("ev"), (true, false, true), "the server's own");
    assert_eq!(allowed("no"), (false, false, false));
    let all = parse("mcp_servers:\n  kb: { url: 'http://x/mcp', owner: o }\n")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        all.mcp_servers["kb"].limits.server_requests,
        crate::ServerRequests::ALL,
        "every kind, as before the setting existed"
    );
    let e = parse(
        "mcp_servers:\n  kb: { url: 'http://x/mcp', owner: o, limits: { server_requests: [sampling, create_message] } }\n",
    )
    .expect_err("an unknown kind");
    assert!(e.contains("mcp_servers.kb.limits.server_requests"), "{e}");
    assert!(
        e.contains("`create_message` is not a kind of server request"),
        "{e}"
    );
}

#[test]
fn what_a_server_may_ask_of_toolgate_is_capped_from_config() {
    let c = parse(
        "gateway:\n  mcp_server_limits: { max_server_requests: 4, answer_timeout: 2s }\nmcp_servers:\n  kb: { url: 'http://x/mcp', owner: o, limits: { stderr_lines_per_second: 5 } }\n  ev: { url: 'http://x/mcp', owner: o }\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let kb = c.mcp_servers["kb"].limits;
    assert_eq!(
        (
            kb.max_server_requests,
            kb.answer_timeout,
            kb.stderr_lines_per_second
        ),
        (4, std::time::Duration::from_secs(2), 5)
    );
    assert_eq!(
        c.mcp_servers["ev"].limits.stderr_lines_per_second, 50,
        "the default"
    );
    let e = parse(
        "mcp_servers:\n  kb: { url: 'http://x/mcp', owner: o, limits: { max_server_requests: 0, answer_timeout: 1h, stderr_lines_per_second: 99999 } }\n",
    )
    .expect_err("zero, too long, too many");
    assert!(
        e.contains("mcp_servers.kb.limits.max_server_requests"),
        "{e}"
    );
    assert!(e.contains("mcp_servers.kb.limits.answer_timeout"), "{e}");
    assert!(
        e.contains("mcp_servers.kb.limits.stderr_lines_per_second"),
        "{e}"
    );
}

#[test]
fn globs() {
    for (p, n, want) in [
        ("get_*", "get_user", true),
        ("get_*", "get", false),
        ("*", "", true),
        ("a*b*c", "axxbyyc", true),
        ("a*b*c", "axxbyy", false),
        ("search", "search", true),
        ("search", "searcher", false),
        ("*_admin", "x_admin", true),
        ("a*a", "a", false),
    ] {
        assert_eq!(glob(p, n), want, "{p} {n}");
    }
}
