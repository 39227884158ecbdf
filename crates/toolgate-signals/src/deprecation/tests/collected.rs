//! Deprecation and retirement signals collected from vendors' published documents
//! (headers, error bodies, and notices in successful bodies), each read the way the
//! engine reads a reply: the headers, then an error body or a successful body.
//!
//! Where a vendor's page gives only the shape (a pull request describing the fields), the
//! wording here is abridged and says so; the shape is what the reader is tested on.

use chrono::{DateTime, TimeZone, Utc};

use crate::{Flavour, Headers, Signals, Stage, body};

/// What the model must be told about one reply.
#[derive(Debug, Clone, Copy)]
enum Note {
    /// No notice at all: nothing said about a deprecation or removal.
    Silent,
    /// A notice containing this text.
    Has(&'static str),
}

/// The stage a reading must have, with its date where the stage has one.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    Deprecated,
    DeprecatedSince(DateTime<Utc>),
    Scheduled(DateTime<Utc>),
    Sunset(DateTime<Utc>),
    Nothing,
}

struct Case {
    source: &'static str,
    now: DateTime<Utc>,
    status: u16,
    headers: &'static [(&'static str, &'static str)],
    body: &'static str,
    want: Want,
    /// The end date the reading must carry, when the source gives one.
    sunset: Option<DateTime<Utc>>,
    note: Note,
}

fn day(y: i32, m: u32, d: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, m, d, 0, 0, 0).unwrap()
}

fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap()
}

/// The engine's reading: headers, then the body an error (or an error envelope) carries,
/// or the notices a successful body carries.
fn reading(c: &Case) -> Signals {
    let fields: Vec<(&str, &[u8])> = c.headers.iter().map(|(n, v)| (*n, v.as_bytes())).collect();
    let mut s = crate::read(c.status, &Headers::new(&fields), c.now, Flavour::Auto);
    let b = c.body.as_bytes();
    if body::worth_reading(c.status, b) {
        s.absorb_body(body::read(c.status, b, c.now));
    } else if (200..300).contains(&c.status)
        && let Some(found) = body::read_success(b, c.now)
    {
        s.absorb_body(found);
    }
    s
}

fn stage_of(s: &Signals, now: DateTime<Utc>) -> Want {
    match s.deprecation.as_ref().map(|d| d.stage(now)) {
        None | Some(Stage::Informational) => Want::Nothing,
        Some(Stage::Deprecated { since: None }) => Want::Deprecated,
        Some(Stage::Deprecated { since: Some(t) }) => Want::DeprecatedSince(t),
        Some(Stage::Scheduled { on }) => Want::Scheduled(on),
        Some(Stage::SunsetOnly { on }) => Want::Sunset(on),
    }
}

const NOW: fn() -> DateTime<Utc> = || day(2026, 3, 1);

fn cases() -> Vec<Case> {
    vec![
        // --- Standard fields -------------------------------------------------------
        Case {
            source: "GitHub REST API versions, 'closing down': Deprecation and Sunset as HTTP-dates (docs.github.com, api-versions)",
            now: day(2019, 6, 1),
            status: 200,
            headers: &[
                ("Deprecation", "Wed, 27 Nov 2019 14:34:29 GMT"),
                ("Sunset", "Fri, 27 Nov 2020 14:34:29 GMT"),
            ],
            body: "",
            want: Want::Scheduled(at(2019, 11, 27, 14, 34, 29)),
            sunset: Some(at(2020, 11, 27, 14, 34, 29)),
            note: Note::Silent,
        },
        Case {
            source: "GitHub REST API versions, the same headers once the deprecation date has passed",
            now: day(2020, 1, 1),
            status: 200,
            headers: &[
                ("Deprecation", "Wed, 27 Nov 2019 14:34:29 GMT"),
                ("Sunset", "Fri, 27 Nov 2020 14:34:29 GMT"),
            ],
            body: "",
            want: Want::DeprecatedSince(at(2019, 11, 27, 14, 34, 29)),
            sunset: Some(at(2020, 11, 27, 14, 34, 29)),
            note: Note::Silent,
        },
        // --- Warning: 299 about the called API -------------------------------------
        Case {
            source: "Kubernetes deprecation guide: PodSecurityPolicy warning",
            now: NOW(),
            status: 200,
            headers: &[(
                "Warning",
                r#"299 - "policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+, unavailable in v1.25+""#,
            )],
            body: "",
            want: Want::Deprecated,
            sunset: None,
            note: Note::Has("PodSecurityPolicy is deprecated"),
        },
        Case {
            source: "Kubernetes deprecation guide: HorizontalPodAutoscaler autoscaling/v2beta2",
            now: NOW(),
            status: 200,
            headers: &[(
                "Warning",
                r#"299 - "autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated in v1.23+, unavailable in v1.26+; use autoscaling/v2 HorizontalPodAutoscaler""#,
            )],
            body: "",
            want: Want::Deprecated,
            sunset: None,
            note: Note::Has("HorizontalPodAutoscaler is deprecated"),
        },
        Case {
            source: "Kubernetes: v1 ComponentStatus warning (kubectl get componentstatuses)",
            now: NOW(),
            status: 200,
            headers: &[(
                "Warning",
                r#"299 - "v1 ComponentStatus is deprecated in v1.19+""#,
            )],
            body: "",
            want: Want::Deprecated,
            sunset: None,
            note: Note::Has("ComponentStatus"),
        },
        Case {
            source: "Sourcify legacy v1 API: Deprecation: true beside a Warning 299 naming the v2 route (PR 2678; wording abridged)",
            now: NOW(),
            status: 200,
            headers: &[
                ("Deprecation", "true"),
                (
                    "Warning",
                    r#"299 - "The legacy v1 API is deprecated. Use POST /v2/verify instead.""#,
                ),
            ],
            body: "",
            want: Want::Deprecated,
            sunset: None,
            note: Note::Has("legacy v1 API is deprecated"),
        },
        // --- Warnings about one field or feature: notes, not a deprecated API -------
        Case {
            source: "Elasticsearch 5.4 deprecation warning header (elastic/elasticsearch PR 17804 thread)",
            now: NOW(),
            status: 200,
            headers: &[(
                "Warning",
                r#"299 Elasticsearch-5.4.0-780f8c4 "The [string] field is deprecated, please use [text] or [keyword] instead on [title]" "Wed, 17 Jan 2018 19:03:29 GMT""#,
            )],
            body: "",
            want: Want::Nothing,
            sunset: None,
            note: Note::Has("[string] field is deprecated"),
        },
        Case {
            source: "Elasticsearch 5.0 before RFC 7234 form: a bare Warning text (elastic/kibana issue 7666)",
            now: NOW(),
            status: 200,
            headers: &[(
                "Warning",
                "The [string] field is deprecated, please use [text] or [keyword] instead on [field]",
            )],
            body: "",
            want: Want::Nothing,
            sunset: None,
            note: Note::Has("[string] field is deprecated"),
        },
        Case {
            source: "Elasticsearch 5.3 content type detection warning (sanity-io/gradient issue 380)",
            now: NOW(),
            status: 200,
            headers: &[(
                "Warning",
                r#"299 Elasticsearch-5.3.0-3adb13b "Content type detection for rest requests is deprecated. Specify the content type using the [Content-Type] header." "Fri, 28 Apr 2017 23:11:25 GMT""#,
            )],
            body: "",
            want: Want::Nothing,
            sunset: None,
            note: Note::Has("Content type detection"),
        },
        Case {
            source: "Elasticsearch 7 types removal warning (Norconex committer-elasticsearch issue 37)",
            now: NOW(),
            status: 200,
            headers: &[(
                "Warning",
                r#"299 Elasticsearch-7.0.0-b7e28a7 "[types removal] Specifying types in bulk requests is deprecated.""#,
            )],
            body: "",
            want: Want::Nothing,
            sunset: None,
            note: Note::Has("Specifying types"),
        },
        Case {
            source: "Kubernetes: a deprecated annotation, named by its field path",
            now: NOW(),
            status: 200,
            headers: &[(
                "Warning",
                r#"299 - "metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: deprecated since v1.19, non-functional in a future release; use the \"seccompProfile\" field instead""#,
            )],
            body: "",
            want: Want::Nothing,
            sunset: None,
            note: Note::Has("seccompProfile"),
        },
        Case {
            source: "Shopify changelog 2025-04: X-Shopify-API-Deprecated-Reason lists the deprecated GraphQL fields used",
            now: NOW(),
            status: 200,
            headers: &[(
                "X-Shopify-API-Deprecated-Reason",
                "Shop.products, Shop.productVariants",
            )],
            body: "",
            want: Want::Nothing,
            sunset: None,
            note: Note::Has("Shop.products"),
        },
        Case {
            source: "Shopify community: REST page-based pagination deprecation reason (a documentation URL)",
            now: NOW(),
            status: 200,
            headers: &[(
                "x-shopify-api-deprecated-reason",
                "https://help.shopify.com/api/guides/paginated-rest-results",
            )],
            body: "",
            want: Want::Deprecated,
            sunset: None,
            note: Note::Has("paginated-rest-results"),
        },
        // --- Vendor advisories ----------------------------------------------------
        Case {
            source: "Stripe CLI PR 1570: Stripe-Notice for an outdated API version",
            now: NOW(),
            status: 200,
            headers: &[(
                "Stripe-Notice",
                "You are using an outdated API version (2024-01-01.ember). We recommend upgrading to the latest API version, 2025-01-27.acacia. See https://docs.stripe.com/upgrades",
            )],
            body: "",
            want: Want::Nothing,
            sunset: None,
            note: Note::Has("outdated API version"),
        },
        Case {
            source: "Stripe CLI PR 1569: the older Stripe-Api-Version-Upgrade-Notice header",
            now: NOW(),
            status: 200,
            headers: &[(
                "Stripe-Api-Version-Upgrade-Notice",
                "You are using an outdated API version (2024-01-01.ember). We recommend upgrading to the latest API version, 2025-01-27.acacia.",
            )],
            body: "",
            want: Want::Nothing,
            sunset: None,
            note: Note::Has("outdated API version"),
        },
        Case {
            source: "Kinto API deprecation: Alert header, a JSON mapping with code soft-eol (Kinto docs, deprecation.rst)",
            now: NOW(),
            status: 200,
            headers: &[(
                "Alert",
                r#"{"code": "soft-eol", "message": "This service will soon be decommissioned", "url": "https://example.com/eos"}"#,
            )],
            body: "",
            want: Want::Deprecated,
            sunset: None,
            note: Note::Has("decommissioned"),
        },
        Case {
            source: "Kinto API deprecation: Alert hard-eol beside the 410 of a service past its end",
            now: NOW(),
            status: 410,
            headers: &[(
                "Alert",
                r#"{"code": "hard-eol", "message": "Service deprecated", "url": "https://example.com/eos"}"#,
            )],
            body: r#"{"code": 410, "errno": 202, "error": "Gone", "message": "Service deprecated"}"#,
            want: Want::Deprecated,
            sunset: None,
            note: Note::Has("Service deprecated"),
        },
        Case {
            source: "stellar-portfolio-rebalancer PR 768: X-API-Warn with a sunset parameter beside RFC headers",
            now: NOW(),
            status: 200,
            headers: &[(
                "X-API-Warn",
                "deprecated; sunset=Wed, 01 Jul 2026 00:00:00 GMT; docs=/docs/api-migration-v1.md",
            )],
            body: "",
            want: Want::Deprecated,
            sunset: Some(day(2026, 7, 1)),
            note: Note::Has("sunset="),
        },
        // --- Error bodies ----------------------------------------------------------
        Case {
            source: "Google Campaign Manager 360 deprecation schedule: the 403 of a sunset version",
            now: NOW(),
            status: 403,
            headers: &[],
            body: r#"{"error":{"errors":[{"domain":"global","reason":"forbidden","message":"3140 : Version v2.x of the DCM/DFA Trafficking and Reporting API is no longer supported. Please upgrade to the latest version of the API."}],"code":403,"message":"3140 : Version v2.x of the DCM/DFA Trafficking and Reporting API is no longer supported. Please upgrade to the latest version of the API."}}"#,
            want: Want::Deprecated,
            sunset: None,
            note: Note::Silent,
        },
        Case {
            source: "Slack: a retired method answers ok:false, error method_deprecated (slack-export issue 37)",
            now: NOW(),
            status: 200,
            headers: &[],
            body: r#"{"ok":false,"error":"method_deprecated"}"#,
            want: Want::Deprecated,
            sunset: None,
            note: Note::Silent,
        },
        Case {
            source: "Slack Web API common errors: deprecated_endpoint, 'The endpoint has been deprecated'",
            now: NOW(),
            status: 200,
            headers: &[],
            body: r#"{"ok":false,"error":"deprecated_endpoint"}"#,
            want: Want::Deprecated,
            sunset: None,
            note: Note::Silent,
        },
        Case {
            source: "Slack Web API: an ordinary error says nothing of deprecation",
            now: NOW(),
            status: 200,
            headers: &[],
            body: r#"{"ok":false,"error":"invalid_auth"}"#,
            want: Want::Nothing,
            sunset: None,
            note: Note::Silent,
        },
        Case {
            source: "A retired version's 410 with a structured sunset_date: the field's date is the reading",
            now: NOW(),
            status: 410,
            headers: &[],
            body: r#"{"error":{"message":"This API version has been retired.","sunset_date":"2025-01-15"}}"#,
            want: Want::Sunset(day(2025, 1, 15)),
            sunset: Some(day(2025, 1, 15)),
            note: Note::Silent,
        },
        Case {
            source: "A 400 naming one parameter no longer supported: about a part, not the API",
            now: NOW(),
            status: 400,
            headers: &[],
            body: r#"{"error":{"message":"The parameter 'page' is no longer supported; use 'cursor'."}}"#,
            want: Want::Nothing,
            sunset: None,
            note: Note::Silent,
        },
        // --- Notices in successful bodies ------------------------------------------
        Case {
            source: "Slack changelog 2021-10 rtm.start: method_deprecated warnings on ok:true replies",
            now: NOW(),
            status: 200,
            headers: &[],
            body: r#"{"ok":true,"url":"wss://cerberus-xxxx.lb.slack-msgs.com/websocket/abc","warning":"method_deprecated","response_metadata":{"warnings":["method_deprecated"]}}"#,
            want: Want::Deprecated,
            sunset: None,
            note: Note::Has("method_deprecated"),
        },
        Case {
            source: "Slack changelog 2016-09 response_metadata: missing_charset is no deprecation",
            now: NOW(),
            status: 200,
            headers: &[],
            body: r#"{"ok":true,"warnings":["missing_charset"],"response_metadata":{"warnings":["missing_charset"],"messages":["[WARN] A Content-Type HTTP header was presented but did not declare a charset, such as a 'utf-8'"]}}"#,
            want: Want::Nothing,
            sunset: None,
            note: Note::Silent,
        },
        Case {
            source: "Slack: superfluous_charset (python-slack-sdk issue 692)",
            now: NOW(),
            status: 200,
            headers: &[],
            body: r#"{"ok":true,"channel":"C123","warning":"superfluous_charset","response_metadata":{"warnings":["superfluous_charset"]}}"#,
            want: Want::Nothing,
            sunset: None,
            note: Note::Silent,
        },
        Case {
            source: "CC Catalog API legacy responses: a top-level warning announcing the shutdown (cccatalog-api PR 419)",
            now: NOW(),
            status: 200,
            headers: &[],
            body: r#"{"result_count":0,"results":[],"warning":"You are using a legacy version of the CC Catalog API. Please upgrade to version 1.0.0 before July 31st 2020, after which we plan to shut down the legacy version. See the most recent API documentation at https://api.creativecommons.engineering/v1/ for details on the new API.","page_count":0}"#,
            want: Want::Nothing,
            sunset: None,
            note: Note::Has("shut down the legacy version"),
        },
        Case {
            source: "Firecrawl PR 3469/4522: a warnings[] entry in the body of a deprecated endpoint (wording abridged)",
            now: NOW(),
            status: 200,
            headers: &[],
            body: r#"{"success":true,"data":[{"url":"https://github.com/x/y"}],"warnings":["This endpoint is deprecated and will be removed on 2026-11-03. Use /v2/search/developer instead."]}"#,
            want: Want::Deprecated,
            sunset: Some(day(2026, 11, 3)),
            note: Note::Has("will be removed on 2026-11-03"),
        },
        Case {
            source: "OPTIMADE PR 85: meta.warnings with a deprecated property (a part, a note)",
            now: NOW(),
            status: 200,
            headers: &[],
            body: r#"{"data":[],"meta":{"query":{"representation":"/structures"},"warnings":[{"type":"warning","id":"dep_chemical_formula","detail":"'chemical_formula' is deprecated, use 'chemical_formula_reduced' instead"}]}}"#,
            want: Want::Nothing,
            sunset: None,
            note: Note::Has("'chemical_formula' is deprecated"),
        },
        Case {
            source: "draft-cedik-http-warning: top-level warnings of problem details that say nothing of deprecation",
            now: NOW(),
            status: 200,
            headers: &[],
            body: r#"{"request_id":"2326b087","warnings":[{"detail":"Street name was too long. It has been shortened...","status":"200","title":"Street name too long. It has been shortened."}]}"#,
            want: Want::Nothing,
            sunset: None,
            note: Note::Silent,
        },
        Case {
            source: "HashiCorp Vault PR 21946: warnings about unrecognised parameters",
            now: NOW(),
            status: 200,
            headers: &[],
            body: r#"{"request_id":"e2b1","lease_id":"","data":null,"warnings":["Endpoint ignored these unrecognized parameters: [foo]"]}"#,
            want: Want::Nothing,
            sunset: None,
            note: Note::Silent,
        },
        Case {
            source: "JSON:API meta: a deprecation object with a message and a sunset date (synthetic, after the JSON:API deprecation proposals)",
            now: NOW(),
            status: 200,
            headers: &[],
            body: r#"{"data":[{"type":"things","id":"1"}],"meta":{"deprecation":{"message":"This endpoint is deprecated; use /v2/things","sunset":"2026-09-30"}}}"#,
            want: Want::Deprecated,
            sunset: Some(day(2026, 9, 30)),
            note: Note::Has("This endpoint is deprecated"),
        },
        Case {
            source: "A warning inside one data record is the record's, not the response's",
            now: NOW(),
            status: 200,
            headers: &[],
            body: r#"{"data":[{"name":"old release","warning":"This API is deprecated"}]}"#,
            want: Want::Nothing,
            sunset: None,
            note: Note::Silent,
        },
    ]
}

#[test]
fn collected_deprecation_signals_are_read_by_their_meaning() {
    let mut wrong = Vec::new();
    let all = cases();
    for c in &all {
        let s = reading(c);
        let stage = stage_of(&s, c.now);
        let sunset = s.deprecation.as_ref().and_then(|d| d.sunset);
        let note_ok = match c.note {
            Note::Silent => s.warnings.is_empty(),
            Note::Has(t) => s.warnings.iter().any(|w| w.contains(t)),
        };
        let sunset_ok = c.sunset.is_none_or(|want| sunset == Some(want));
        // Every field here was read: none is handed on as not understood.
        if stage != c.want || !note_ok || !sunset_ok || !s.unread.is_empty() {
            wrong.push(format!(
                "{}\n    stage {stage:?} (want {:?}), sunset {sunset:?} (want {:?}), warnings {:?} (want {:?}), unread {:?}",
                c.source, c.want, c.sunset, s.warnings, c.note, s.unread
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} read wrong:\n{}",
        wrong.len(),
        all.len(),
        wrong.join("\n")
    );
}

#[test]
fn an_end_already_reached_is_a_deprecation_of_what_it_names() {
    let now = NOW();
    // (Warning text, stage, end date)
    let cases: &[(&str, Want, Option<DateTime<Utc>>)] = &[
        (
            "API version 2019-10 is no longer supported as of 2025-04-01. Please upgrade.",
            Want::Deprecated,
            Some(day(2025, 4, 1)),
        ),
        ("This API has been retired.", Want::Deprecated, None),
        (
            "The v1 endpoint has been decommissioned; use /v2/items",
            Want::Deprecated,
            None,
        ),
        // A part of the request, or something no reader can place, says nothing of it.
        ("The field 'x' has been retired", Want::Nothing, None),
        (
            "The parameter 'page' is no longer supported",
            Want::Nothing,
            None,
        ),
        // Said of one deleted record too: not an end of the API.
        ("The resource has been removed", Want::Nothing, None),
        ("This resource is no longer available", Want::Nothing, None),
        // Not yet: a future end is an end date, not a deprecation.
        (
            "This API will no longer be supported after 2027-01-01",
            Want::Sunset(day(2027, 1, 1)),
            Some(day(2027, 1, 1)),
        ),
        ("This API will no longer be supported", Want::Nothing, None),
    ];
    for (text, want, sunset) in cases {
        let value = format!("299 - \"{text}\"");
        let fields: [(&str, &[u8]); 1] = [("Warning", value.as_bytes())];
        let s = crate::read(200, &Headers::new(&fields), now, Flavour::Auto);
        assert_eq!(stage_of(&s, now), *want, "{text}");
        assert_eq!(s.deprecation.and_then(|d| d.sunset), *sunset, "{text}");
        assert_eq!(s.warnings, [*text], "the text reaches the model: {text}");
    }
}
