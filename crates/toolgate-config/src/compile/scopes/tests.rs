const AUTH: &str = "gateway:\n  auth:\n    resource: https://tools.example.com/mcp\n    issuers: [{ issuer: https://login.example.com }]\n    scopes: [tools:call]\n";

fn tool(name: &str, scopes: &str) -> String {
    format!(
        "  {name}:\n    dependency: api\n    owner: a@example.com\n    request: {{ path: /x }}\n    contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n{scopes}"
    )
}

fn parsed(yaml: &str) -> Result<crate::Config, crate::ConfigErrors> {
    crate::parse(
        std::path::Path::new("t.yaml"),
        yaml,
        std::path::Path::new("."),
        &|_| None,
    )
}

fn with_tools(auth: &str, tools: &[String], servers: &str) -> String {
    format!(
        "{auth}dependencies:\n  api: {{ base_url: \"http://127.0.0.1:9\" }}\ntools:\n{}{servers}",
        tools.concat()
    )
}

#[test]
fn a_tool_and_a_fronted_server_name_their_scopes_and_a_tools_own_win() {
    let yaml = with_tools(
        AUTH,
        &[
            tool("pay", "    scopes: [payments:write, payments:write]\n"),
            tool("read", ""),
        ],
        "mcp_servers:\n  bank:\n    url: http://127.0.0.1:9000/mcp\n    owner: a@example.com\n    scopes: [bank:read]\n    tools:\n      transfer: { scopes: [bank:read, payments:write] }\n      status: { scopes: [] }\n",
    );
    let config = parsed(&yaml).unwrap_or_else(|e| panic!("{e}"));
    let s = &config.scopes;
    assert_eq!(
        s.http["pay"],
        ["payments:write"],
        "a scope named twice is needed once"
    );
    assert!(!s.http.contains_key("read"));
    assert_eq!(
        s.of_server_tool("bank", "transfer"),
        ["bank:read", "payments:write"]
    );
    assert_eq!(
        s.of_server_tool("bank", "balance"),
        ["bank:read"],
        "inherited"
    );
    assert!(
        s.of_server_tool("bank", "status").is_empty(),
        "`[]` opens one tool"
    );
    assert_eq!(s.of_server("bank"), ["bank:read"]);
    assert_eq!(
        s.all().into_iter().collect::<Vec<_>>(),
        ["bank:read", "payments:write"]
    );
    assert!(!s.is_empty());
}

#[test]
fn no_scopes_anywhere_is_empty_so_the_call_path_checks_nothing() {
    let config = parsed(&with_tools(AUTH, &[tool("t", "")], "")).unwrap_or_else(|e| panic!("{e}"));
    assert!(config.scopes.is_empty());
    let config = parsed(&with_tools(AUTH, &[tool("t", "    scopes: []\n")], ""))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(config.scopes.is_empty());
}

#[test]
fn check_refuses_a_scope_that_is_empty_has_whitespace_or_quotes() {
    for bad in [
        "\"\"",
        "\"payments write\"",
        "\"payments\\twrite\"",
        "'a\"b'",
        "\"ä\"",
    ] {
        let yaml = with_tools(AUTH, &[tool("pay", &format!("    scopes: [{bad}]\n"))], "");
        let err = parsed(&yaml).map(|_| ()).unwrap_err().to_string();
        assert!(
            err.contains("tools.pay.scopes.0") && err.contains("is not a scope"),
            "{bad}: {err}"
        );
    }
    let yaml = with_tools(
        AUTH,
        &[tool("t", "")],
        "mcp_servers:\n  bank:\n    url: http://127.0.0.1:9000/mcp\n    owner: a@example.com\n    scopes: [ok, \" \"]\n    tools:\n      transfer: { scopes: [\"pay ments\"] }\n",
    );
    let err = parsed(&yaml).map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("mcp_servers.bank.scopes.1"), "{err}");
    assert!(
        err.contains("mcp_servers.bank.tools.transfer.scopes.0"),
        "{err}"
    );
}

#[test]
fn scopes_without_gateway_auth_are_refused_since_no_caller_could_carry_them() {
    let yaml = with_tools("", &[tool("pay", "    scopes: [payments:write]\n")], "");
    let err = parsed(&yaml).map(|_| ()).unwrap_err().to_string();
    assert!(
        err.contains("tools.pay.scopes") && err.contains("gateway.auth"),
        "{err}"
    );
}
