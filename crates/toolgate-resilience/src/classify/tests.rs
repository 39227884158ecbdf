use super::*;
use ErrorClass::*;

fn resp(status: u16) -> Attempt {
    Attempt::Response {
        status,
        rate_limited: false,
        retry_after: None,
        past_sunset: false,
        body_ok: BodyCheck::Valid,
        said: Said::Nothing,
    }
}

fn with(
    status: u16,
    rate_limited: bool,
    hint: Option<u64>,
    past_sunset: bool,
    body_ok: BodyCheck,
) -> Attempt {
    Attempt::Response {
        status,
        rate_limited,
        retry_after: hint.map(Duration::from_secs),
        past_sunset,
        body_ok,
        said: Said::Nothing,
    }
}

#[test]
fn table() {
    use BodyCheck::*;
    let cases: Vec<(&str, Attempt, Option<ErrorClass>)> = vec![
        ("200 valid", resp(200), None),
        ("204 valid", resp(204), None),
        (
            "200 not json",
            with(200, false, None, false, NotJson),
            Some(ContractDrift),
        ),
        (
            "200 schema",
            with(200, false, None, false, SchemaMismatch),
            Some(ContractDrift),
        ),
        (
            "200 too large",
            with(200, false, None, false, TooLarge),
            Some(ContractDrift),
        ),
        (
            "200 valid but flagged",
            with(200, true, None, false, Valid),
            None,
        ),
        (
            "200 throttle body",
            with(200, true, None, false, SchemaMismatch),
            Some(RateLimited),
        ),
        ("429", resp(429), Some(RateLimited)),
        (
            "429 with hint",
            with(429, false, Some(30), false, Valid),
            Some(RateLimited),
        ),
        (
            "403 throttle",
            with(403, true, None, false, Valid),
            Some(RateLimited),
        ),
        ("403 plain", resp(403), Some(Auth)),
        ("401", resp(401), Some(Auth)),
        // A proxy in between wants credentials of its own: no retry passes it.
        ("407 proxy", resp(407), Some(Auth)),
        (
            "407 proxy transient words",
            saying(407, false, None, Said::Transient),
            Some(Auth),
        ),
        ("410", resp(410), Some(Gone)),
        (
            "404 past sunset",
            with(404, false, None, true, Valid),
            Some(Gone),
        ),
        ("404", resp(404), Some(ClientError)),
        ("400", resp(400), Some(ClientError)),
        ("422", resp(422), Some(ClientError)),
        ("409", resp(409), Some(ClientError)),
        (
            "400 vendor throttle",
            with(400, true, None, false, Valid),
            Some(RateLimited),
        ),
        ("408", resp(408), Some(Timeout)),
        // A 4xx that names a wait is a throttle, not "will not help".
        (
            "400 hint",
            with(400, false, Some(12), false, Valid),
            Some(RateLimited),
        ),
        (
            "409 hint (ABORTED with RetryInfo)",
            with(409, false, Some(0), false, Valid),
            Some(RateLimited),
        ),
        (
            "403 hint",
            with(403, false, Some(60), false, Valid),
            Some(RateLimited),
        ),
        (
            "401 hint",
            with(401, false, Some(5), false, Valid),
            Some(Auth),
        ),
        (
            "404 hint",
            with(404, false, Some(5), false, Valid),
            Some(ClientError),
        ),
        (
            "410 hint",
            with(410, false, Some(5), false, Valid),
            Some(Gone),
        ),
        (
            "503 hint",
            with(503, false, Some(5), false, Valid),
            Some(Overloaded),
        ),
        (
            "529 hint",
            with(529, false, Some(5), false, Valid),
            Some(Overloaded),
        ),
        ("503 bare", resp(503), Some(ServerError)),
        ("529 bare", resp(529), Some(ServerError)),
        (
            "500 hint",
            with(500, false, Some(5), false, Valid),
            Some(ServerError),
        ),
        ("500", resp(500), Some(ServerError)),
        ("502", resp(502), Some(ServerError)),
        ("504", resp(504), Some(ServerError)),
        (
            "503 throttle flag",
            with(503, true, Some(5), false, Valid),
            Some(RateLimited),
        ),
        ("100", resp(100), Some(ContractDrift)),
        ("301", resp(301), Some(ContractDrift)),
        ("304", resp(304), Some(ContractDrift)),
        ("0", resp(0), Some(ServerError)),
        ("600", resp(600), Some(ServerError)),
        ("timeout", Attempt::Timeout, Some(Timeout)),
        ("connect", Attempt::Connect, Some(Connect)),
    ];
    for (name, attempt, want) in cases {
        assert_eq!(classify(&attempt), want, "{name}");
    }
}

#[test]
fn never_produces_gateway_only_classes() {
    // circuit_open and budget_exhausted are the gateway's refusals, not
    // something an upstream can say.
    for status in 0..=999u16 {
        for flags in 0..8u8 {
            let a = with(
                status,
                flags & 1 != 0,
                (flags & 2 != 0).then_some(1),
                flags & 4 != 0,
                BodyCheck::SchemaMismatch,
            );
            let c = classify(&a);
            assert!(
                c != Some(CircuitOpen) && c != Some(BudgetExhausted),
                "{a:?}"
            );
        }
    }
}

fn saying(status: u16, rate_limited: bool, hint: Option<u64>, said: Said) -> Attempt {
    Attempt::Response {
        status,
        rate_limited,
        retry_after: hint.map(Duration::from_secs),
        past_sunset: false,
        body_ok: BodyCheck::Valid,
        said,
    }
}

/// What the reply says would fix it decides beyond its status, and never against a
/// wait it names.
#[test]
fn what_would_fix_it() {
    let cases: Vec<(&str, Attempt, Option<ErrorClass>)> = vec![
        // A spent budget or plan: not a throttle, whatever the status or flag.
        (
            "429 month spent",
            saying(429, true, None, Said::Account),
            Some(Account),
        ),
        (
            "403 plan",
            saying(403, false, None, Said::Account),
            Some(Account),
        ),
        (
            "409 plan limit",
            saying(409, false, None, Said::Account),
            Some(Account),
        ),
        (
            "402 credits",
            saying(402, true, Some(60), Said::Account),
            Some(Account),
        ),
        (
            "402 bare",
            saying(402, false, None, Said::Nothing),
            Some(Account),
        ),
        (
            "402 card declined",
            saying(402, false, None, Said::Request),
            Some(ClientError),
        ),
        (
            "402 with a wait",
            saying(402, false, Some(60), Said::Nothing),
            Some(RateLimited),
        ),
        (
            "200 envelope, account",
            with_said(200, Said::Account),
            Some(Account),
        ),
        // An error envelope sent with a 200 says who must act, as a 4xx would; one
        // that says nothing, or that the method is not there, is drift.
        (
            "200 envelope, credentials",
            with_said(200, Said::Credentials),
            Some(Auth),
        ),
        (
            "200 envelope, invalid input",
            with_said(200, Said::Request),
            Some(ClientError),
        ),
        (
            "200 envelope, passing state",
            with_said(200, Said::Transient),
            Some(ServerError),
        ),
        (
            "200 envelope, nothing said",
            with_said(200, Said::Nothing),
            Some(ContractDrift),
        ),
        (
            "200 envelope, unsupported",
            with_said(200, Said::Unsupported),
            Some(ContractDrift),
        ),
        (
            "200 valid, credentials words",
            saying(200, false, None, Said::Credentials),
            None,
        ),
        (
            "200 valid, account words",
            saying(200, false, None, Said::Account),
            None,
        ),
        // Credentials refused under any 4xx, not under a 404.
        (
            "400 expired token",
            saying(400, false, None, Said::Credentials),
            Some(Auth),
        ),
        (
            "422 invalid key",
            saying(422, false, None, Said::Credentials),
            Some(Auth),
        ),
        (
            "404 credentials words",
            saying(404, false, None, Said::Credentials),
            Some(ClientError),
        ),
        (
            "429 credentials words",
            saying(429, false, None, Said::Credentials),
            Some(RateLimited),
        ),
        // A passing state: retried like a 503 when idempotent.
        (
            "409 in progress",
            saying(409, false, None, Said::Transient),
            Some(ServerError),
        ),
        (
            "400 ABORTED",
            saying(400, false, None, Said::Transient),
            Some(ServerError),
        ),
        (
            "409 in progress, wait",
            saying(409, false, Some(3), Said::Transient),
            Some(RateLimited),
        ),
        ("423", resp(423), Some(ServerError)),
        ("425", resp(425), Some(ServerError)),
        (
            "403 transient words",
            saying(403, false, None, Said::Transient),
            Some(Auth),
        ),
        (
            "404 transient words",
            saying(404, false, None, Said::Transient),
            Some(ClientError),
        ),
        ("409 plain", resp(409), Some(ClientError)),
        // A 5xx that says the request is wrong, or the method is not there.
        (
            "500 invalid argument",
            saying(500, false, None, Said::Request),
            Some(ClientError),
        ),
        ("501", resp(501), Some(ContractDrift)),
        ("505", resp(505), Some(ContractDrift)),
        (
            "500 unimplemented",
            saying(500, false, None, Said::Unsupported),
            Some(ContractDrift),
        ),
        (
            "503 transient",
            saying(503, false, None, Said::Transient),
            Some(ServerError),
        ),
        // A refused login sent as a SOAP fault's 500; a wait still makes it a wait.
        (
            "500 credentials",
            saying(500, false, None, Said::Credentials),
            Some(Auth),
        ),
        (
            "502 credentials",
            saying(502, false, None, Said::Credentials),
            Some(Auth),
        ),
        (
            "503 credentials, wait",
            saying(503, false, Some(20), Said::Credentials),
            Some(Overloaded),
        ),
        (
            "503 wait",
            saying(503, false, Some(20), Said::Transient),
            Some(Overloaded),
        ),
    ];
    for (name, attempt, want) in cases {
        assert_eq!(classify(&attempt), want, "{name}");
    }
}

fn with_said(status: u16, said: Said) -> Attempt {
    Attempt::Response {
        status,
        rate_limited: false,
        retry_after: None,
        past_sunset: false,
        body_ok: BodyCheck::SchemaMismatch,
        said,
    }
}

/// A 4xx whose words say the upstream no longer does what was called (an endpoint
/// sunset, an API version retired) is `gone` whatever the 4xx: no change to the call's
/// arguments helps, only a move to what replaced it. A wait it names still wins, and a
/// 401 or 407 still asks for credentials.
#[test]
fn a_retirement_told_by_a_4xx_is_gone() {
    for status in [400, 403, 404, 409, 422] {
        assert_eq!(
            classify(&saying(status, false, None, Said::Retired)),
            Some(Gone),
            "{status}"
        );
    }
    assert_eq!(
        classify(&saying(400, false, Some(20), Said::Retired)),
        Some(RateLimited)
    );
    for status in [401, 407] {
        assert_eq!(
            classify(&saying(status, false, None, Said::Retired)),
            Some(Auth),
            "{status}"
        );
    }
    assert_eq!(
        classify(&saying(400, false, None, Said::Request)),
        Some(ClientError)
    );
}

/// A 4xx whose words say the upstream does not have the method or command called
/// (bitcoind's 404 carrying -32601 "Method not found", "no such command") is drift for
/// the owner, as a 501 is: nothing replaced it, so `gone`'s "use the successor" would
/// send the model looking for what does not exist. A 401 or 407 still asks for
/// credentials.
#[test]
fn a_method_the_upstream_lacks_told_by_a_4xx_is_drift_not_a_retirement() {
    for status in [400, 404, 405, 422] {
        assert_eq!(
            classify(&saying(status, false, None, Said::Unsupported)),
            Some(ContractDrift),
            "{status}"
        );
    }
    for status in [401, 407] {
        assert_eq!(
            classify(&saying(status, false, None, Said::Unsupported)),
            Some(Auth),
            "{status}"
        );
    }
}

/// A 403 whose words say the request is wrong — what was asked refused by the state of
/// what it names or by a business rule ("Cannot delete a paid invoice") — is the
/// request's: other credentials would be refused the same. A 403 that says nothing, or
/// names a permission the credentials lack, stays theirs, and a wait it names still wins.
#[test]
fn a_403_that_says_what_was_asked_is_refused_is_a_client_error() {
    assert_eq!(
        classify(&saying(403, false, None, Said::Request)),
        Some(ClientError)
    );
    assert_eq!(
        classify(&saying(403, false, None, Said::Nothing)),
        Some(Auth)
    );
    assert_eq!(
        classify(&saying(403, false, None, Said::Credentials)),
        Some(Auth)
    );
    assert_eq!(
        classify(&saying(403, false, Some(20), Said::Request)),
        Some(RateLimited)
    );
}
