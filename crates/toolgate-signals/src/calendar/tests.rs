use chrono::{DateTime, Utc};

use super::*;

fn day(s: &str) -> Option<DateTime<Utc>> {
    Some(
        DateTime::parse_from_rfc3339(&format!("{s}T00:00:00Z"))
            .unwrap()
            .with_timezone(&Utc),
    )
}

#[test]
fn a_numeric_date_is_read_only_when_its_order_is_certain() {
    assert_eq!(numeric_date("31.12.2025"), day("2025-12-31"));
    assert_eq!(numeric_date("12/31/2025"), day("2025-12-31"));
    assert_eq!(numeric_date("31/12/2025"), day("2025-12-31"));
    assert_eq!(numeric_date("01-01-2026"), day("2026-01-01"));
    // May or November: no order can be decided.
    assert_eq!(numeric_date("05/11/2025"), None);
    assert_eq!(numeric_date("2025-12-31"), None);
    assert_eq!(numeric_date("13.13.2025"), None);
}

#[test]
fn a_month_named_in_another_language_dates_the_day() {
    let cases = [
        ("31 grudnia 2025", "2025-12-31"),
        ("31. prosince 2025", "2025-12-31"),
        ("31 декабря 2025 г.", "2025-12-31"),
        ("31 грудня 2025 року", "2025-12-31"),
        ("31 Aralık 2025", "2025-12-31"),
        ("31 Δεκεμβρίου 2025", "2025-12-31"),
        ("31 ديسمبر 2025", "2025-12-31"),
        ("ב-31 בדצמבר 2025", "2025-12-31"),
        ("ngày 31 tháng 12 năm 2025", "2025-12-31"),
        ("1 марта 2026", "2026-03-01"),
    ];
    for (text, want) in cases {
        assert_eq!(named_month_date(text), day(want), "{text}");
    }
    // A sentence around the date: the first one in it.
    assert_eq!(
        first_named_month_date("Заказ будет отключён 31 декабря 2025 г.", 40),
        day("2025-12-31")
    );
    assert_eq!(named_month_date("31 grudnia"), None);
    assert_eq!(named_month_date("Grudnia 2025"), None);
}

#[test]
fn iso_basic_and_week_dates_are_read() {
    assert_eq!(
        iso_basic("20251231T235959Z").map(|t| t.to_rfc3339()),
        Some("2025-12-31T23:59:59+00:00".to_owned())
    );
    assert_eq!(
        iso_basic("20250601T140100+0200").map(|t| t.to_rfc3339()),
        Some("2025-06-01T12:01:00+00:00".to_owned())
    );
    assert_eq!(iso_basic("20251231"), day("2025-12-31"));
    assert_eq!(iso_basic("20251231T235959"), None);
    assert_eq!(iso_week_date("2026-W01-1"), day("2025-12-29"));
    assert_eq!(iso_week_date("2026W011"), day("2025-12-29"));
    assert_eq!(iso_week_date("2025-W23"), day("2025-06-02"));
    assert_eq!(iso_week_date("2025-W60-1"), None);
}

#[test]
fn a_date_with_cjk_marks_is_read_with_its_time_only_when_zoned() {
    assert_eq!(marked_date("2025年12月31日"), day("2025-12-31"));
    assert_eq!(marked_date("2025년 12월 31일"), day("2025-12-31"));
    assert_eq!(
        marked_date("2025年06月01日 12:05:00 UTC").map(|t| t.to_rfc3339()),
        Some("2025-06-01T12:05:00+00:00".to_owned())
    );
    assert_eq!(marked_date("2025年06月01日 12:05:00"), None);
}

#[test]
fn a_zone_name_is_read_only_when_it_names_one_offset() {
    assert_eq!(named_zone_offset("PST"), Some(-8 * 3600));
    assert_eq!(named_zone_offset("edt"), Some(-4 * 3600));
    assert_eq!(named_zone_offset("CET"), Some(3600));
    assert_eq!(named_zone_offset("JST"), Some(9 * 3600));
    assert_eq!(named_zone_offset("IST"), None);
    assert_eq!(named_zone_offset("BST"), None);
}
