//! Redirects from an upstream on a real socket, through both clients (the plain one for
//! `http://`, reqwest for a URL with user info): whatever the status and however the
//! `Location` is written, nothing is sent to where it points, so the dependency's
//! credential never reaches another host, and the target is named to the model only
//! as a clean link without the upstream's secrets. OWASP API10:2023 (unsafe
//! consumption of APIs) names blindly followed redirects as its first indicator:
//! https://owasp.org/API-Security/editions/2023/en/0xaa-unsafe-consumption-of-apis/

use super::*;
use crate::explain::Detail;
use crate::upstream::{AttemptResult, UpstreamClient, interpret};

/// A tool of a dependency at `base` whose credential is `Bearer dep-secret-value`.
fn tool_at(base: &Url) -> Arc<toolgate_config::ToolSpec> {
    let yaml = format!(
        "dependencies:\n  api:\n    base_url: \"{base}\"\n    headers: {{ Authorization: \"Bearer ${{TOKEN}}\" }}\n\
         tools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: {{ path: /x }}\n"
    );
    let env = |name: &str| (name == "TOKEN").then(|| "dep-secret-value".to_owned());
    let config = crate::fixtures::config_with_env(&yaml, &env);
    config.tools["t"].clone()
}

#[tokio::test]
async fn a_redirect_is_never_followed_and_its_target_is_named_without_secrets() {
    // The other host: anything that reaches it is a redirect followed.
    let elsewhere = scripted(|_| (ok("{}"), After::Close)).await;
    let other = elsewhere.url.authority().to_owned();
    let locations = [
        format!("http://{other}/landing"),
        "/v2/x".to_owned(),
        format!("//{other}/landing"),
        "javascript:alert(document.cookie)".to_owned(),
        format!("http://user:dep-secret-value@{other}/cb?code=oauth-code-1234#token=abcdef"),
        format!("http://{other}/cb?access_token=dep-secret-value"),
    ];
    for status in [301, 302, 303, 307, 308] {
        for location in &locations {
            let head = format!(
                "HTTP/1.1 {status} Moved\r\nlocation: {location}\r\ncontent-length: 0\r\n\r\n"
            );
            let server = scripted(move |_| (head.clone().into_bytes(), After::KeepOpen)).await;
            let tool = tool_at(&server.url);
            let mut with_userinfo = server.url.clone();
            with_userinfo.set_username("u").unwrap();
            // The plain client, then reqwest (which takes URLs with user info).
            for url in [&server.url, &with_userinfo] {
                let client = UpstreamClient::new().unwrap();
                let sent = client
                    .send(
                        &tool.dependency,
                        &get(url, "/x"),
                        Duration::from_secs(5),
                        1_000,
                        None,
                        None,
                    )
                    .await;
                let reply = sent.as_ref().unwrap_or_else(|e| panic!("{e:?}"));
                assert_eq!(reply.status, status, "{location}");
                match interpret(&tool, sent, None, false) {
                    AttemptResult::Failed {
                        detail:
                            Detail::Redirect {
                                status: named,
                                location: shown,
                            },
                        ..
                    } => {
                        assert_eq!(named, status);
                        if let Some(shown) = &shown {
                            for secret in
                                ["dep-secret", "oauth-code", "user:", "token=", "javascript"]
                            {
                                assert!(!shown.contains(secret), "{location} shown as {shown}");
                            }
                        }
                        // A path on the dependency's own origin is named, so the owner
                        // can mend the tool; a link anywhere else is not named at all.
                        if location.starts_with('/') && !location.starts_with("//") {
                            assert!(shown.is_some(), "{location}");
                        } else {
                            assert_eq!(shown, None, "{location}");
                        }
                    }
                    other => panic!("{status} {location}: {other:?}"),
                }
            }
            assert_eq!(server.requests.lock().unwrap().len(), 2, "{location}");
        }
    }
    assert!(
        elsewhere.requests.lock().unwrap().is_empty(),
        "a redirect was followed: {:?}",
        elsewhere.requests.lock().unwrap()
    );
}
