//! The reading corpus: real responses documented by vendors (and a few synthetic
//! variants of documented units), each with the reading toolgate must make of it.
//!
//! The cases live in `tests/corpus/*.json`, one file per family, each case citing its
//! source. Every case is read the way the engine reads a reply — the headers through
//! [`read`], an error body through [`body::read`], any other successful body through
//! [`body::read_success`], a status or health document through
//! [`status_page::read_response_at`] at the case's `now` — and the verdict is classified with
//! `toolgate_resilience::classify`, so an announced wait that would be told to the model
//! as "retrying will not help" is counted as an *inverted* meaning.
//!
//! A case may also name the [`ErrorClass`] its attempt must get (`"class"`, the variant's
//! name, `null` for a success) and whether toolgate retries it below the model
//! (`"retried"`, for an idempotent tool with 30 s of its deadline left): what would fix a
//! failure is checked, not only what the reply says about waits. A 2xx is classified as
//! the engine does: a gRPC status in the headers of a 2xx (gRPC-web's trailers-only reply)
//! or in its body's trailers frame, a GraphQL reply that failed and a JSON-RPC error
//! response as the status they stand for, and
//! one marked `"contract": "refused"` (its body breaks the tool's response contract) as
//! drift, or as a 503 when it is a maintenance page.
//!
//! The test prints the score per family and fails when the score drops below
//! [`FLOOR`] or any meaning is inverted (an announced wait told as "will not help").
//! Cases marked `"named": false` belong to
//! families no vendor module was written for: they measure how well the readers
//! generalise.

// A malformed fixture must fail the test loudly, so the harness unwraps.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;
use toolgate_resilience::{Attempt, BodyCheck, ErrorClass, Said, classify};
use toolgate_signals::recovery::Recovery;
use toolgate_signals::{
    Flavour, Headers, Signals, Stage, body, graphql, grpc_web, jsonrpc, maintenance, read,
    status_page,
};

/// Cases read right, out of every case; raised as the readers improve.
const FLOOR: usize = 4763;

const FILES: [(&str, &str); 63] = [
    (
        "ratelimit_headers",
        include_str!("corpus/ratelimit_headers.json"),
    ),
    ("body_waits", include_str!("corpus/body_waits.json")),
    ("deprecation", include_str!("corpus/deprecation.json")),
    (
        "status_documents",
        include_str!("corpus/status_documents.json"),
    ),
    ("holdout", include_str!("corpus/holdout.json")),
    ("holdout2", include_str!("corpus/holdout2.json")),
    ("holdout3", include_str!("corpus/holdout3.json")),
    ("holdout4", include_str!("corpus/holdout4.json")),
    ("holdout5", include_str!("corpus/holdout5.json")),
    ("holdout6", include_str!("corpus/holdout6.json")),
    ("holdout7", include_str!("corpus/holdout7.json")),
    ("holdout8", include_str!("corpus/holdout8.json")),
    ("holdout9", include_str!("corpus/holdout9.json")),
    ("holdout10", include_str!("corpus/holdout10.json")),
    ("holdout11", include_str!("corpus/holdout11.json")),
    ("holdout12", include_str!("corpus/holdout12.json")),
    ("holdout13", include_str!("corpus/holdout13.json")),
    ("holdout14", include_str!("corpus/holdout14.json")),
    ("holdout15", include_str!("corpus/holdout15.json")),
    ("holdout16", include_str!("corpus/holdout16.json")),
    ("holdout17", include_str!("corpus/holdout17.json")),
    ("holdout18", include_str!("corpus/holdout18.json")),
    ("holdout19", include_str!("corpus/holdout19.json")),
    ("holdout20", include_str!("corpus/holdout20.json")),
    ("holdout21", include_str!("corpus/holdout21.json")),
    ("holdout22", include_str!("corpus/holdout22.json")),
    ("holdout23", include_str!("corpus/holdout23.json")),
    ("holdout24", include_str!("corpus/holdout24.json")),
    ("holdout25", include_str!("corpus/holdout25.json")),
    ("holdout26", include_str!("corpus/holdout26.json")),
    ("holdout27", include_str!("corpus/holdout27.json")),
    ("holdout28", include_str!("corpus/holdout28.json")),
    ("holdout29", include_str!("corpus/holdout29.json")),
    ("holdout30", include_str!("corpus/holdout30.json")),
    ("holdout31", include_str!("corpus/holdout31.json")),
    ("holdout32", include_str!("corpus/holdout32.json")),
    ("holdout33", include_str!("corpus/holdout33.json")),
    ("holdout34", include_str!("corpus/holdout34.json")),
    ("holdout35", include_str!("corpus/holdout35.json")),
    ("false_alarms", include_str!("corpus/false_alarms.json")),
    ("recovery", include_str!("corpus/recovery.json")),
    ("recovery2", include_str!("corpus/recovery2.json")),
    ("recovery3", include_str!("corpus/recovery3.json")),
    ("recovery4", include_str!("corpus/recovery4.json")),
    ("recovery5", include_str!("corpus/recovery5.json")),
    ("recovery6", include_str!("corpus/recovery6.json")),
    ("recovery7", include_str!("corpus/recovery7.json")),
    ("recovery8", include_str!("corpus/recovery8.json")),
    ("recovery9", include_str!("corpus/recovery9.json")),
    ("recovery10", include_str!("corpus/recovery10.json")),
    ("recovery11", include_str!("corpus/recovery11.json")),
    ("recovery12", include_str!("corpus/recovery12.json")),
    ("recovery13", include_str!("corpus/recovery13.json")),
    ("recovery14", include_str!("corpus/recovery14.json")),
    ("recovery15", include_str!("corpus/recovery15.json")),
    ("recovery16", include_str!("corpus/recovery16.json")),
    ("recovery17", include_str!("corpus/recovery17.json")),
    ("recovery18", include_str!("corpus/recovery18.json")),
    ("languages", include_str!("corpus/languages.json")),
    ("languages2", include_str!("corpus/languages2.json")),
    ("languages3", include_str!("corpus/languages3.json")),
    ("languages4", include_str!("corpus/languages4.json")),
    ("languages5", include_str!("corpus/languages5.json")),
];

fn default_now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2025-06-01T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

/// The body bytes of a case: `body` (JSON, serialised), `body_text` (as is) or
/// `body_hex` (bytes no string can hold: gRPC-web's frames).
fn body_of(case: &Value) -> Option<Vec<u8>> {
    if let Some(t) = case.get("body_text").and_then(Value::as_str) {
        return Some(t.as_bytes().to_vec());
    }
    if let Some(h) = case.get("body_hex").and_then(Value::as_str) {
        let byte = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).unwrap();
        return Some((0..h.len()).step_by(2).map(byte).collect());
    }
    case.get("body").map(|b| serde_json::to_vec(b).unwrap())
}

fn secs(v: &Value) -> Option<Duration> {
    v.as_f64().map(Duration::from_secs_f64)
}

fn close(got: Option<Duration>, want: Option<Duration>) -> bool {
    match (got, want) {
        (None, None) => true,
        (Some(g), Some(w)) => {
            let (g, w) = (g.as_secs_f64(), w.as_secs_f64());
            // Whole seconds for resets, milliseconds for sub-second waits.
            let tolerance = if w < 1.0 { 0.002 } else { 1.0 };
            (g - w).abs() <= tolerance
        }
        _ => false,
    }
}

/// The longest deadline a call is assumed to have left when `retried` is asked.
const DEADLINE: Duration = Duration::from_secs(30);

/// Whether toolgate retries this attempt below the model: the class is one a retry
/// helps for an idempotent tool, the reply does not advise against it, and its wait
/// fits [`DEADLINE`].
fn retried(class: Option<ErrorClass>, s: &Signals) -> bool {
    let Some(class) = class else {
        return false;
    };
    let helps =
        class.retryable(true) || (s.should_retry == Some(true) && class.retryable_when_vouched());
    helps && s.should_retry != Some(false) && s.retry_after.is_none_or(|w| w < DEADLINE)
}

/// The class the engine gives this reading of a reply of `status` whose body the
/// contract judged `body_ok`.
fn class_of(status: u16, s: &Signals, body_ok: BodyCheck) -> Option<ErrorClass> {
    classify(&Attempt::Response {
        status,
        rate_limited: s.rate_limited,
        retry_after: s.retry_after,
        past_sunset: false,
        body_ok,
        said: match s.recovery {
            None => Said::Nothing,
            // A full count is the account's too; only the engine's hold tells them apart.
            Some(Recovery::Account | Recovery::Holdings) => Said::Account,
            Some(Recovery::Credentials) => Said::Credentials,
            Some(Recovery::Transient) => Said::Transient,
            Some(Recovery::Request) => Said::Request,
            Some(Recovery::Unsupported) => Said::Unsupported,
            Some(Recovery::Retired) => Said::Retired,
        },
    })
}

/// What of the wanted quota `q` (`limit`, `remaining`, `reset_after`, `window`) `got`
/// reads otherwise.
fn quota_wrong(got: &toolgate_signals::Quota, q: &Value) -> Vec<String> {
    let mut wrong = Vec::new();
    let n = |k: &str| q.get(k).and_then(Value::as_u64);
    if let Some(l) = n("limit")
        && got.limit != Some(l)
    {
        wrong.push(format!("limit {:?} (want {l})", got.limit));
    }
    if let Some(r) = n("remaining")
        && got.remaining != Some(r)
    {
        wrong.push(format!("remaining {:?} (want {r})", got.remaining));
    }
    if let Some(t) = q.get("reset_after").and_then(secs)
        && !close(got.reset_after, Some(t))
    {
        wrong.push(format!("reset_after {:?} (want {t:?})", got.reset_after));
    }
    if let Some(w) = q.get("window").and_then(secs)
        && !close(got.window, Some(w))
    {
        wrong.push(format!("window {:?} (want {w:?})", got.window));
    }
    wrong
}

/// Checks one case; returns what was read wrong (empty when right) and whether an
/// announced wait would be told as "will not help".
fn check(case: &Value) -> (Vec<String>, bool) {
    let now = case
        .get("now")
        .and_then(Value::as_str)
        .map_or_else(default_now, |t| {
            DateTime::parse_from_rfc3339(t).unwrap().with_timezone(&Utc)
        });
    let status = u16::try_from(case["status"].as_u64().unwrap()).unwrap();
    let owned: Vec<(String, Vec<u8>)> = case
        .get("headers")
        .and_then(Value::as_array)
        .map(|hs| {
            hs.iter()
                .map(|h| {
                    (
                        h[0].as_str().unwrap().to_owned(),
                        h[1].as_str().unwrap().as_bytes().to_vec(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let fields: Vec<(&str, &[u8])> = owned
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_slice()))
        .collect();
    let body = body_of(case);
    let mut s = read(status, &Headers::new(&fields), now, Flavour::Auto);
    // As the engine does: an error body (or an error envelope) is read for its signals,
    // any other successful body for the quotas and notices it carries.
    if let Some(b) = &body {
        if body::worth_reading(status, b) {
            s.absorb_body(body::read(status, b, now));
        } else if (200..300).contains(&status)
            && let Some(found) = body::read_success(b, now)
        {
            s.absorb_body(found);
        }
    }
    let expect = &case["expect"];
    let mut wrong = Vec::new();
    if let Some(want) = expect.get("rate_limited").and_then(Value::as_bool)
        && s.rate_limited != want
    {
        wrong.push(format!("rate_limited {} (want {want})", s.rate_limited));
    }
    if let Some(want) = expect.get("retry_after") {
        let want = secs(want);
        if !close(s.retry_after, want) {
            wrong.push(format!("retry_after {:?} (want {want:?})", s.retry_after));
        }
    }
    if expect.get("no_quota").and_then(Value::as_bool) == Some(true) && !s.quota.is_empty() {
        wrong.push(format!("quota read where there is none: {:?}", s.quota));
    }
    if let Some(q) = expect.get("quota") {
        match s.quota.first() {
            None => wrong.push("no quota".to_owned()),
            Some(got) => wrong.extend(quota_wrong(got, q)),
        }
    }
    // Every other window the reply counts: each must be among the quotas read.
    if let Some(more) = expect.get("quotas").and_then(Value::as_array) {
        for q in more {
            if !s.quota.iter().any(|got| quota_wrong(got, q).is_empty()) {
                wrong.push(format!("no quota {q} among {:?}", s.quota));
            }
        }
    }
    if let Some(want) = expect.get("stage").and_then(Value::as_str) {
        let (stage, date) = match s.deprecation.as_ref().map(|d| d.stage(now)) {
            None | Some(Stage::Informational) => ("none", None),
            Some(Stage::Deprecated { since }) => ("deprecated", since),
            Some(Stage::Scheduled { on }) => ("scheduled", Some(on)),
            Some(Stage::SunsetOnly { on }) => ("sunset", Some(on)),
        };
        if stage != want {
            wrong.push(format!("stage {stage} (want {want})"));
        }
        if let Some(d) = expect.get("date").and_then(Value::as_str) {
            let got = date.map(|t| t.format("%Y-%m-%d").to_string());
            if got.as_deref() != Some(d) {
                wrong.push(format!("date {got:?} (want {d})"));
            }
        }
    }
    // The end date, whatever the stage (a text that says "Deprecated: … will be removed
    // on <date>" is deprecated now and ends on that date).
    if let Some(want) = expect.get("sunset").and_then(Value::as_str) {
        let got = s
            .deprecation
            .as_ref()
            .and_then(|d| d.sunset)
            .map(|t| t.format("%Y-%m-%d").to_string());
        if got.as_deref() != Some(want) {
            wrong.push(format!("sunset {got:?} (want {want})"));
        }
    }
    if let Some(want) = expect.get("notice_deprecated").and_then(Value::as_bool) {
        let got = s.notices.iter().any(|n| n.deprecation);
        if got != want {
            wrong.push(format!("notice says deprecated: {got} (want {want})"));
        }
    }
    if let Some(want) = expect.get("health").and_then(Value::as_str) {
        let got = body
            .as_deref()
            .and_then(|b| status_page::read_response_at(status, b, now).ok())
            .map(|p| format!("{:?}", p.health).to_ascii_lowercase());
        if got.as_deref() != Some(want) {
            wrong.push(format!("health {got:?} (want {want})"));
        }
    }
    // A header is reported as unread only when the case says so: every other case's
    // signal headers were read, so listing one would be a false alarm to the model.
    let unread: Vec<&str> = s.unread.iter().map(|u| u.name.as_str()).collect();
    let want_unread: Vec<&str> = expect
        .get("unread")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if unread != want_unread {
        wrong.push(format!("unread {unread:?} (want {want_unread:?})"));
    }
    // The class of the attempt (`null`: a success), by its variant's name, and whether
    // toolgate would retry it below the model.
    // As the engine reads a 2xx: a GraphQL reply that failed stands for the status its
    // errors name; a body the contract refuses (`"contract": "refused"`) is drift, or
    // what a 503 is when it is a maintenance page.
    let refused = case.get("contract").and_then(Value::as_str) == Some("refused");
    // A gRPC status in the headers of a 2xx (gRPC-web's trailers-only reply), or in
    // the trailers frame of its body, stands for the HTTP failure it names.
    let headers = Headers::new(&fields);
    let success = (200..300).contains(&status);
    let grpc = headers
        .get("grpc-status")
        .and_then(grpc_web::stands_for)
        .filter(|_| success);
    let trailers = body
        .as_deref()
        .zip(headers.get("content-type"))
        .and_then(|(b, kind)| grpc_web::body_trailers(kind, b))
        .filter(|_| success);
    if let Some(t) = &trailers {
        s.recovery = s.recovery.or(t.recovery);
    }
    let (class_status, body_ok) = match &body {
        _ if grpc.is_some() => (grpc.unwrap_or(status), BodyCheck::Valid),
        _ if trailers.is_some() => (trailers.map_or(status, |t| t.stands_for), BodyCheck::Valid),
        Some(b) if success => {
            if let Some(graphql::Reply::Failed { status: stands_for }) = graphql::read(b) {
                (stands_for, BodyCheck::Valid)
            } else if let Some(stands_for) = jsonrpc::failed(b) {
                (stands_for, BodyCheck::Valid)
            } else if refused {
                match maintenance::announced(b, now) {
                    Some(m) => {
                        s.retry_after = s.retry_after.max(m.wait);
                        (503, BodyCheck::Valid)
                    }
                    None => (status, BodyCheck::SchemaMismatch),
                }
            } else {
                (status, BodyCheck::Valid)
            }
        }
        _ => (status, BodyCheck::Valid),
    };
    let class = class_of(class_status, &s, body_ok);
    if let Some(want) = expect.get("class") {
        let got = class.map(|c| format!("{c:?}"));
        if got.as_deref() != want.as_str() {
            wrong.push(format!("class {got:?} (want {want})"));
        }
    }
    if let Some(want) = expect.get("retried").and_then(Value::as_bool)
        && retried(class, &s) != want
    {
        wrong.push(format!("retried {} (want {want})", !want));
    }
    // An announced wait (or throttle) told to the model as "retrying will not help".
    let announced = expect.get("retry_after").is_some_and(|v| !v.is_null())
        || expect.get("rate_limited").and_then(Value::as_bool) == Some(true);
    // A wait short enough to retry within, told as an account's that only its owner or
    // a renewal mends, is inverted too.
    let short_wait = s.retry_after.is_some_and(|w| w < DEADLINE);
    let inverted = announced
        && !(200..300).contains(&status)
        && (matches!(
            class,
            Some(
                ErrorClass::ClientError
                    | ErrorClass::Auth
                    | ErrorClass::Gone
                    | ErrorClass::ContractDrift
            )
        ) || (class == Some(ErrorClass::Account) && short_wait));
    (wrong, inverted)
}

#[test]
fn corpus_is_read_right() {
    let mut right = 0;
    let mut total = 0;
    let mut inverted = Vec::new();
    let mut report = String::new();
    for (file, text) in FILES {
        let doc: Value = serde_json::from_str(text).unwrap();
        let cases = doc["cases"].as_array().unwrap();
        let (mut ok, mut ok_unnamed, mut unnamed) = (0, 0, 0);
        for case in cases {
            let id = case["id"].as_str().unwrap();
            assert!(
                case.get("source").and_then(Value::as_str).is_some(),
                "{id} cites no source"
            );
            let named = case["named"].as_bool().unwrap();
            let (wrong, inv) = check(case);
            if inv {
                inverted.push(id.to_owned());
            }
            unnamed += usize::from(!named);
            if wrong.is_empty() {
                ok += 1;
                ok_unnamed += usize::from(!named);
            } else {
                report.push_str(&format!("  {file}/{id}: {}\n", wrong.join("; ")));
            }
        }
        println!(
            "{file}: {ok}/{} right ({ok_unnamed}/{unnamed} of families without a vendor module)",
            cases.len()
        );
        right += ok;
        total += cases.len();
    }
    println!("corpus: {right}/{total} right; inverted meanings: {inverted:?}");
    print!("{report}");
    assert!(
        right >= FLOOR,
        "corpus score fell to {right}/{total} (floor {FLOOR}):\n{report}"
    );
    assert!(
        inverted.is_empty(),
        "announced waits told as \"will not help\": {inverted:?}"
    );
}
