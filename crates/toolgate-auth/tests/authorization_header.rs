//! Every malformed `Authorization` value a client can send gets an answer that says
//! what is wrong with it (RFC 6750 §3.1, RFC 9110 §11.4), and none repeats it.

#![allow(clippy::unwrap_used)]

mod common;

use common::ONE_TOOL;
use toolgate_auth::{Authenticator, Refusal};

const RESOURCE: &str = "https://tools.example.com/mcp";

/// A shared token outside the `b64token` alphabet: configured secrets are compared as
/// written, before the alphabet is asked about.
const SHARED: &str = "s3cret!shared";

fn authenticator() -> Authenticator {
    let yaml = format!(
        "gateway:\n  auth_token_env: SHARED\n  auth:\n    resource: {RESOURCE}\n    issuers:\n      - issuer: https://login.example.com\n    scopes: [tools:call]\n\
         {ONE_TOOL}\
         agents:\n  keyed:\n    api_key_sha256: {}\n",
        toolgate_auth::sha256_hex(b"tg_live_example_key")
    );
    let env = |name: &str| (name == "SHARED").then(|| SHARED.to_string());
    let config = common::config(&yaml, &env);
    Authenticator::new(&config.gateway, &config.agents, reqwest::Client::new())
}

/// The status, the challenge's `error` and the sentence for `value`.
async fn answer(a: &Authenticator, value: &[u8]) -> (u16, Option<String>, String) {
    match a.authenticate(Some(value)).await {
        Ok(id) => (200, None, id.name().to_string()),
        Err(refusal) => {
            let challenge = a.challenge(&refusal);
            let error = challenge
                .split("error=\"")
                .nth(1)
                .map(|rest| rest.split('"').next().unwrap_or_default().to_string());
            (refusal.status(), error, refusal.message())
        }
    }
}

#[tokio::test]
async fn each_malformed_authorization_value_is_answered_for_what_it_is() {
    let a = authenticator();
    let cases: [(&[u8], u16, Option<&str>, &str); 14] = [
        // Not text: an invalid token, not a missing one.
        (
            "Bearer tökén".as_bytes(),
            401,
            Some("invalid_token"),
            "printable ASCII",
        ),
        (
            b"Bearer abc\xff\xfe",
            401,
            Some("invalid_token"),
            "printable ASCII",
        ),
        (
            b"Bearer abc\x01",
            401,
            Some("invalid_token"),
            "printable ASCII",
        ),
        // The bearer scheme without a token, or cut from it by a tab.
        (b"Bearer", 400, Some("invalid_request"), "holds no token"),
        (b"Bearer   ", 400, Some("invalid_request"), "holds no token"),
        (b"Bearer\tabc", 400, Some("invalid_request"), "tab"),
        // Two credentials, or a token broken by whitespace.
        (
            b"Bearer abc, Basic dXNlcjpwdw==",
            400,
            Some("invalid_request"),
            "more than one credential",
        ),
        (
            b"Bearer abc def",
            400,
            Some("invalid_request"),
            "whitespace",
        ),
        // Characters no token has.
        (b"Bearer ab\"c", 401, Some("invalid_token"), "b64token"),
        (b"Bearer a=b", 401, Some("invalid_token"), "b64token"),
        // Another scheme, named when registered; a scheme-less token, not repeated.
        (b"Basic dXNlcjpwdw==", 401, None, "the Basic scheme"),
        (b"Digest username=\"x\"", 401, None, "the Digest scheme"),
        (b"tg_live_example_key", 401, None, "another scheme"),
        (b"", 400, Some("invalid_request"), "empty"),
    ];
    for (value, status, error, says) in cases {
        let (got_status, got_error, message) = answer(&a, value).await;
        let shown = String::from_utf8_lossy(value);
        assert_eq!(got_status, status, "{shown}: {message}");
        assert_eq!(got_error.as_deref(), error, "{shown}: {message}");
        assert!(message.contains(says), "{shown}: {message}");
        for secret in ["abc", "dXNlcjpwdw", "tg_live", "tökén"] {
            assert!(!message.contains(secret), "{shown}: {message}");
        }
    }
    well_formed_variants_of_a_good_credential_are_accepted(&a).await;
    every_challenge_stays_within_the_error_description_grammar(&a).await;
}

/// The readings the refusals must not cost: a good credential in every well-formed
/// spelling, and a shared token outside the `b64token` alphabet.
async fn well_formed_variants_of_a_good_credential_are_accepted(a: &Authenticator) {
    for value in [
        "Bearer tg_live_example_key",
        "bearer tg_live_example_key",
        "BEARER tg_live_example_key",
        "Bearer  tg_live_example_key",
        "  Bearer tg_live_example_key  ",
    ] {
        assert_eq!(answer(a, value.as_bytes()).await.0, 200, "{value}");
    }
    let shared = format!("Bearer {SHARED}");
    assert_eq!(answer(a, shared.as_bytes()).await.0, 200);
    assert_eq!(
        a.authenticate(None::<&[u8]>).await.map(|_| ()),
        Err(Refusal::Missing)
    );
}

/// RFC 6750 §3: error_description is %x20-21 / %x23-5B / %x5D-7E.
async fn every_challenge_stays_within_the_error_description_grammar(a: &Authenticator) {
    for value in [
        &b"Bearer \xff"[..],
        b"Bearer",
        b"Bearer\tx",
        b"Bearer a, b",
        b"Bearer a b",
        b"Bearer a\"b",
        b"Basic x",
        b"",
    ] {
        let refusal = a.authenticate(Some(value)).await.unwrap_err();
        let challenge = a.challenge(&refusal);
        if let Some(description) = challenge.split("error_description=\"").nth(1) {
            let description = description.split('"').next().unwrap_or_default();
            assert!(
                description
                    .bytes()
                    .all(|b| (0x20..=0x7e).contains(&b) && b != b'"' && b != b'\\'),
                "{description}"
            );
        }
    }
}
