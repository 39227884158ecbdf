use super::*;

/// Links a hostile server may write, each refused. Sources: the MCP Inspector's XSS
/// from a server's URL (GHSA-g9hg-qhmf-q45m, CVE-2025-58444); the TypeScript SDK's
/// refusal of `javascript:` authorization URLs (modelcontextprotocol/typescript-sdk#877,
/// go-sdk#526, CVE-2025-6514 in mcp-remote); CAPEC-91's `data:` payload; Outlook's
/// `file://` credential leak (CVE-2024-21413); the WHATWG URL parser's stripping of
/// tabs, line breaks and leading control characters; the SSRF address spellings of
/// `toolgate_config::address`.
const REFUSED: [&str; 24] = [
    "javascript:alert(document.domain)",
    "JavaScript:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "\u{1}javascript:alert(1)",
    " javascript:alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "blob:https://evil.example/0b3c",
    "https://docs.example.com@evil.example/",
    "https://user:pass@docs.example.com/",
    "file://attacker.example/share/x.txt",
    "file:////attacker.example/share/x.txt",
    "file:\\\\attacker.example\\share",
    "http://169.254.169.254/latest/meta-data/iam/",
    "http://2852039166/",
    "http://0x7f000001/admin",
    "http://0177.0.0.1/",
    "http://127.1/",
    "http://[::ffff:127.0.0.1]/",
    "http://localhost:8080/",
    "https://metadata.google.internal/computeMetadata/v1/",
    "http://10.0.0.5/",
    "not a uri",
];

/// Links real servers write (server-everything's `test://static/resource/1`, the
/// filesystem server's `file:///…`, a web page, a git server's `git://`), each kept.
const KEPT: [&str; 7] = [
    "https://docs.example.com/guide#install",
    "test://static/resource/1",
    "file:///home/user/project/README.md",
    "file://localhost/etc/hosts",
    "git://github.com/modelcontextprotocol/servers.git",
    "mem://x",
    "urn:isbn:0451450523",
];

#[test]
fn a_link_that_runs_leaks_or_reaches_inside_is_refused() {
    for uri in REFUSED {
        assert!(refusal(uri, None).is_some(), "{uri:?} was kept");
    }
}

#[test]
fn links_to_resources_are_kept() {
    for uri in KEPT {
        assert_eq!(refusal(uri, None), None, "{uri:?}");
    }
}

#[test]
fn a_server_on_an_internal_host_may_link_to_itself_only() {
    let own = Url::parse("http://127.0.0.1:9000/mcp").unwrap();
    let own = Some(&own);
    assert_eq!(refusal("http://127.0.0.1:9000/files/1", own), None);
    assert!(refusal("http://127.0.0.2:9000/files/1", own).is_some());
    // Another port of the same machine: a database, Docker's API.
    assert!(refusal("http://127.0.0.1:2375/containers/json", own).is_some());
    assert!(refusal("http://169.254.169.254/", own).is_some());
}

#[test]
fn the_refusal_names_the_reason() {
    let why = refusal("java\tscript:alert(1)", None).unwrap();
    assert!(why.contains("`javascript:`"), "{why}");
    let why = refusal("http://2852039166/", None).unwrap();
    assert!(why.contains("metadata"), "{why}");
}
