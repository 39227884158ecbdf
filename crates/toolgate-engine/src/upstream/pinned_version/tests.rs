use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::*;
use crate::upstream::{UpstreamResponse, read_signals};

const TOOLS: &str = r#"
dependencies:
  arm: { base_url: "https://management.example.com" }
  stripe: { base_url: "https://api.example.com", headers: { Stripe-Version: "2020-08-27" } }
  azure_q: { base_url: "https://vault.example.com/?api-version=7.0" }
tools:
  list_vms:
    dependency: arm
    owner: infra@example.com
    request: { path: /vms, query: { api-version: "2018-01-01", filter: "{filter}" } }
    input_schema: { type: object, properties: { filter: { type: string } } }
    contract: { version: "1.0", response_schema: { type: object } }
  list_any:
    dependency: arm
    owner: infra@example.com
    request: { path: /vms, query: { api-version: "{version}" } }
    input_schema: { type: object, properties: { version: { type: string } } }
    contract: { version: "1.0", response_schema: { type: object } }
  charges:
    dependency: stripe
    owner: pay@example.com
    request: { path: /v1/charges }
    contract: { version: "1.0", response_schema: { type: object } }
  secrets:
    dependency: azure_q
    owner: sec@example.com
    request: { path: /secrets }
    contract: { version: "1.0", response_schema: { type: object } }
"#;

fn tool(name: &str) -> std::sync::Arc<ToolSpec> {
    crate::fixtures::config(TOOLS).tools[name].clone()
}

fn reply(fields: &[(&'static str, &str)]) -> UpstreamResponse {
    let mut headers = HeaderMap::new();
    for (k, v) in fields {
        headers.append(
            HeaderName::from_static(k),
            HeaderValue::from_str(v).unwrap(),
        );
    }
    UpstreamResponse {
        status: 200,
        headers,
        body: Bytes::from_static(b"{}"),
        latency: Duration::from_millis(5),
        rpc_error: None,
    }
}

const LISTS: [(&str, &str); 2] = [
    (
        "api-supported-versions",
        "2018-01-01, 2019-07-01, 2021-03-01",
    ),
    ("api-deprecated-versions", "2017-12-01, 2018-01-01"),
];

#[test]
fn the_version_a_tool_sends_is_found_wherever_it_is_fixed() {
    assert_eq!(
        sent_version(&tool("list_vms")),
        Some(("api-version".into(), "2018-01-01".into()))
    );
    assert_eq!(
        sent_version(&tool("list_any")),
        None,
        "the model chooses it"
    );
    assert_eq!(
        sent_version(&tool("charges")),
        Some(("stripe-version".into(), "2020-08-27".into()))
    );
    assert_eq!(
        sent_version(&tool("secrets")),
        Some(("api-version".into(), "7.0".into()))
    );
}

#[test]
fn a_listed_version_this_tool_sends_is_a_deprecation_naming_what_is_supported() {
    let now = chrono::Utc::now();
    let s = read_signals(&tool("list_vms"), &Ok(reply(&LISTS)), now).unwrap();
    assert!(s.deprecation.as_ref().is_some_and(|d| d.deprecated));
    assert_eq!(
        s.warnings,
        [
            "the upstream lists api-version 2018-01-01, which this tool sends, as deprecated; it supports 2019-07-01, 2021-03-01"
        ]
    );
}

#[test]
fn lists_that_do_not_name_the_version_sent_say_nothing() {
    let now = chrono::Utc::now();
    for name in ["list_any", "charges", "secrets"] {
        let s = read_signals(&tool(name), &Ok(reply(&LISTS)), now).unwrap();
        assert_eq!(s.deprecation, None, "{name}");
        assert!(s.warnings.is_empty(), "{name}");
        assert!(
            s.unread.is_empty(),
            "{name}: the list is read, not handed on"
        );
    }
    let s = read_signals(
        &tool("charges"),
        &Ok(reply(&[("api-deprecated-versions", "2020-08-27")])),
        now,
    )
    .unwrap();
    assert!(s.deprecation.is_some_and(|d| d.deprecated));
}
