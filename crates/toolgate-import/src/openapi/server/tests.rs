use super::*;

fn absolute(s: &str) -> Server {
    Server::Absolute(s.to_string())
}

fn relative(s: &str) -> Server {
    Server::Relative(s.to_string())
}

#[test]
fn every_kind_of_server_url_is_told_apart() {
    for (given, expected) in [
        (
            "https://api.example.com/v1",
            absolute("https://api.example.com/v1"),
        ),
        ("http://localhost:8080", absolute("http://localhost:8080")),
        (
            "https://{tenant}.example.com",
            absolute("https://{tenant}.example.com"),
        ),
        (
            "{scheme}://api.example.com",
            absolute("{scheme}://api.example.com"),
        ),
        ("https://[::1]:8443/x", absolute("https://[::1]:8443/x")),
        (
            "//api.abr.ato.gov.au",
            absolute("https://api.abr.ato.gov.au"),
        ),
        (
            "//api.example.com:8443/v2",
            absolute("https://api.example.com:8443/v2"),
        ),
        (
            "api.calorieninjas.com",
            absolute("https://api.calorieninjas.com"),
        ),
        ("api.example.com/v1", absolute("https://api.example.com/v1")),
        ("localhost:3000/api", absolute("https://localhost:3000/api")),
        ("10.0.0.1/api", absolute("https://10.0.0.1/api")),
        (
            "https://bücher.example/v1",
            absolute("https://bücher.example/v1"),
        ),
        ("", relative("")),
        ("/v1.33", relative("/v1.33")),
        ("/api/{version}", relative("/api/{version}")),
        ("v1", relative("/v1")),
        ("v1.2/api", relative("/v1.2/api")),
        ("./api", relative("/api")),
        ("Your API URL", Server::Unusable),
        (",", Server::Unusable),
        ("//", Server::Unusable),
        ("https://", Server::Unusable),
        ("https://exa mple.com", Server::Unusable),
        ("ht tp://example.com", Server::Unusable),
        ("/with space", Server::Unusable),
        ("<your server>", Server::Unusable),
    ] {
        assert_eq!(classify(given), expected, "{given:?}");
    }
}

#[test]
fn stand_in_hosts_are_told_from_addresses() {
    for url in [
        "https://example.com/rest/default",
        "http://example.com:80/v1",
        "https://www.example.org",
        "https://your-domain.atlassian.net/rest",
        "https://yourcompany.zendesk.com",
        "your_instance.service-now.com",
        "https://xxx.api.com",
        "https://api.sinao.test/v1",
        "https://shop.example/api",
        "https://azure.local",
    ] {
        assert!(placeholder_host(url), "{url}");
    }
    for url in [
        "https://api.example.com/v1",
        "https://pets.example.com",
        "https://yourls.org/api",
        "https://api.stripe.com",
        "http://localhost:8080",
        "https://{subdomain}.zendesk.com",
        "{Endpoint}/vision",
        "",
    ] {
        assert!(!placeholder_host(url), "{url}");
    }
}

#[test]
fn a_server_variable_default_that_only_stands_in_is_the_users_to_give() {
    let free = serde_json::json!({});
    for (name, default) in [
        ("hostname", "HOSTNAME"),
        ("subdomain", "subdomain"),
        ("account-name", "accountName"),
        ("Endpoint", "none"),
        ("apikey", "unknown"),
        ("host", ""),
        ("host", "your-domain.com"),
        ("defaultHost", "discourse.example.com"),
        ("instance", "example.com"),
        // A credential in the URL: its default is a sample key.
        ("token", "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"),
        // An account's name given as the vendor's sample account (VTEX's
        // `{accountName}` = `apiexamples`): calls there reach someone else's account.
        ("accountName", "apiexamples"),
        ("tenant", "sample-tenant"),
        ("store", "demo-store"),
        ("subdomain", "acme"),
        ("organization", "my-org"),
    ] {
        assert!(
            placeholder_default(name, &free, default),
            "{name}: {default}"
        );
    }
    for (name, default) in [
        ("region", "us-east-1"),
        ("version", "v1"),
        ("Endpoint", "https://api.cognitive.microsoft.com"),
        ("account", "storeframework"),
        ("protocol", "https"),
        // Sample words name a sample only where the variable names an account.
        ("environment", "demo"),
        ("region", "test-1"),
    ] {
        assert!(
            !placeholder_default(name, &free, default),
            "{name}: {default}"
        );
    }
    // A default the variable's `enum` lists is a real choice, whatever it reads like.
    let listed = serde_json::json!({"enum": ["none", "eu"]});
    assert!(!placeholder_default("zone", &listed, "none"));
}

#[test]
fn an_origin_written_in_angle_brackets_leaves_the_path() {
    for (given, path) in [
        ("protocol://hostname:<port>/switch/", Some("/switch")),
        ("http://<host>:<port>/api", Some("/api")),
        ("<local-terminal-IP-address>", Some("")),
        ("https://<tenant>.vendor.io/v1", Some("/v1")),
        // A bracket in the path, or none at all, is no placeholder origin.
        ("https://api.example.com/<id>", None),
        ("https://api.example.com/v1", None),
        ("<>", None),
        ("<your server> and more", None),
        ("https://<host>/with space", None),
    ] {
        assert_eq!(placeholder_origin(given).as_deref(), path, "{given}");
    }
}
