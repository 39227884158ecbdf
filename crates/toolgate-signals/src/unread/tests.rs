use super::*;
use chrono::{TimeZone, Utc};

fn unread(fields: &[(&str, &str)]) -> Vec<String> {
    let fields: Vec<(&str, &[u8])> = fields.iter().map(|(n, v)| (*n, v.as_bytes())).collect();
    let now = Utc.with_ymd_and_hms(2026, 6, 1, 0, 0, 0).unwrap();
    let headers = Headers::new(&fields);
    crate::read(200, &headers, now, crate::Flavour::Auto)
        .unread
        .into_iter()
        .map(|u| format!("{}: {}", u.name, u.value))
        .collect()
}

#[test]
fn a_header_whose_kind_nothing_was_read_of_is_handed_on_verbatim() {
    assert_eq!(
        unread(&[
            ("X-Foo-Quota-Left", "three"),
            ("Content-Type", "application/json")
        ]),
        ["X-Foo-Quota-Left: three"]
    );
    assert_eq!(unread(&[("Retry-After", "soon")]), ["Retry-After: soon"]);
    assert_eq!(
        unread(&[("X-Api-Retry-Hint", "later, please")]),
        ["X-Api-Retry-Hint: later, please"]
    );
    // A used count with no limit beside it: no budget to compute, still news.
    assert_eq!(
        unread(&[("X-MBX-USED-WEIGHT-1M", "1150")]),
        ["X-MBX-USED-WEIGHT-1M: 1150"]
    );
    // `-used-` naming whose budget was used, not how much: no count, not news.
    assert!(unread(&[("Units-Used-Login", "agrom")]).is_empty());
    assert!(unread(&[("X-Used-By", "team-a")]).is_empty());
    assert_eq!(
        unread(&[("X-Quota-Used-By", "team-a")]),
        ["X-Quota-Used-By: team-a"]
    );
    // A deprecation notice in words is read (as a warning): not reported twice.
    assert!(unread(&[("X-Api-Deprecation-Notice", "this call goes away")]).is_empty());
}

#[test]
fn families_that_are_read_are_not_reported() {
    assert!(
        unread(&[
            ("X-RateLimit-Limit", "5000"),
            ("X-RateLimit-Remaining", "4999"),
            ("X-RateLimit-Reset", "1780272000"),
        ])
        .is_empty()
    );
    assert!(unread(&[("Retry-After", "30")]).is_empty());
    assert!(unread(&[("Sunset", "Sat, 31 Dec 2044 23:59:59 GMT")]).is_empty());
    assert!(unread(&[("RateLimit", "limit=100, remaining=50, reset=30")]).is_empty());
    assert!(unread(&[("x-ms-ratelimit-remaining-subscription-reads", "11999")]).is_empty());
    assert!(unread(&[("X-Shopify-Shop-Api-Call-Limit", "32/40")]).is_empty());
}

#[test]
fn detail_beside_a_quota_that_was_read_is_not_news() {
    assert!(
        unread(&[
            ("X-App-Rate-Limit", "20:1,100:120"),
            ("X-App-Rate-Limit-Count", "1:1,1:120"),
            ("X-Rate-Limit-Type", "application"),
        ])
        .is_empty()
    );
    // An unknown quota header beside a wait that was read is still news.
    assert_eq!(
        unread(&[("Retry-After", "30"), ("X-Foo-Quota-Left", "exhausted")]),
        ["X-Foo-Quota-Left: exhausted"]
    );
}

#[test]
fn names_are_matched_case_blind_with_underscores_as_hyphens() {
    for name in [
        "X_RATELIMIT_LEFT",
        "x-RateLimit-left",
        " Retry_After ",
        "API-Sunset",
        "X-API-Warn",
        "Stripe-Notice",
        "X-Api-Advisory",
        "X-Api-Retirement-Date",
    ] {
        assert!(looks_like_signal(name), "{name}");
    }
    assert!(!looks_like_signal("Content_Length"));
    // `Warning` has its own reader, which drops the caching codes on purpose.
    assert!(!looks_like_signal("Warning"));
    assert!(!looks_like_signal("ACCESS-CONTROL-MAX-AGE"));
    assert!(!looks_like_signal(""));
}

#[test]
fn a_negative_count_says_there_is_no_limit_and_is_not_news() {
    assert!(unread(&[("X-RateLimit-Limit", "-1"), ("X-RateLimit-Remaining", "-1")]).is_empty());
    // A value that is not a placeholder still is.
    assert_eq!(
        unread(&[("X-Foo-Quota", "-1 of 5")]),
        vec!["X-Foo-Quota: -1 of 5"]
    );
}

#[test]
fn ordinary_headers_are_never_candidates() {
    for name in [
        "Content-Length",
        "Access-Control-Allow-Headers",
        "Cache-Control",
        "X-Request-Id",
        "ETag",
        "Link",
    ] {
        assert!(!looks_like_signal(name), "{name}");
    }
    assert!(unread(&[("Content-Length", "12"), ("ETag", "\"x\"")]).is_empty());
}

#[test]
fn values_are_capped_and_the_count_is_bounded() {
    let long = "x".repeat(1000);
    let fields: Vec<(String, String)> = (0..10)
        .map(|i| (format!("X-Thing{i}-Quota"), long.clone()))
        .collect();
    let fields: Vec<(&str, &str)> = fields
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    let got = unread(&fields);
    assert_eq!(got.len(), MAX_UNREAD);
    assert!(got[0].chars().count() < 260, "{}", got[0]);
}

#[test]
fn a_cache_s_counters_and_expiry_are_not_signals() {
    // NewsAPI's answer: the cache's own counters beside the standard caching fields.
    assert!(
        unread(&[
            ("cache-control", "no-cache"),
            ("expires", "-1"),
            ("x-cached-result", "true"),
            ("x-cache-remaining", "99"),
            ("x-cache-expires", "Sat, 29 Aug 2020 03:35:47 GMT"),
        ])
        .is_empty()
    );
    assert!(unread(&[("X-Edge-Cache-Limit", "500"), ("X_Cache_Reset", "30")]).is_empty());
    // A word that only contains the letters is not the cache's.
    assert_eq!(
        unread(&[("X-Cachet-Quota-Left", "none")]),
        ["X-Cachet-Quota-Left: none"]
    );
}

#[test]
fn a_list_s_paging_counts_are_not_signals() {
    // foss-directory's paging headers, named beside its rate-limit ones: how many items
    // a page holds is no budget.
    assert!(
        unread(&[
            ("x-total-count", "240"),
            ("x-page", "2"),
            ("x-page-limit", "20"),
            ("x-total-pages", "12"),
        ])
        .is_empty()
    );
    assert!(unread(&[("X-Pages-Remaining", "3"), ("X_Paging_Limit", "50")]).is_empty());
    // A word that only contains the letters is not a page's.
    assert_eq!(
        unread(&[("X-Pager-Duty-Remaining", "4")]),
        ["X-Pager-Duty-Remaining: 4"]
    );
}

#[test]
fn a_bare_limit_beside_a_listings_total_is_its_page_size() {
    // OCPI 2.2.1's paginated answers: `X-Total-Count` and `X-Limit` (the page's size).
    assert!(unread(&[("X-Total-Count", "1"), ("X-Limit", "50")]).is_empty());
    // Alone, a bare limit is still news: nothing says it is a page's.
    assert_eq!(unread(&[("X-Limit", "50")]), ["X-Limit: 50"]);
}
