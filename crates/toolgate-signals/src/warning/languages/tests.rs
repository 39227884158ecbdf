#![allow(clippy::unwrap_used, clippy::expect_used)]

use chrono::{DateTime, Utc};

use super::{first_date, says_deprecated, speaks_of_retirement, what_it_says};
use crate::warning::Said;

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2025-06-01T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

fn day(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(&format!("{s}T00:00:00Z"))
        .unwrap()
        .with_timezone(&Utc)
}

fn about_the_call(text: &str) -> crate::warning::Retirement {
    match what_it_says(text, now()) {
        Some(Said::AboutTheCall(r)) => r,
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn an_endpoint_said_obsolete_with_its_shutdown_date_after_the_date_is_deprecated_until_then() {
    let r = about_the_call(
        "Dieser Endpunkt ist veraltet und wird am 31.12.2025 abgeschaltet. Bitte verwenden Sie /api/v2.",
    );
    assert!(r.deprecated);
    assert_eq!(r.sunset, Some(day("2025-12-31")));
}

#[test]
fn a_date_written_before_the_verb_in_a_language_without_spaces_is_the_end_date() {
    let r = about_the_call("このAPIは非推奨です。2025年12月31日に廃止されます。");
    assert!(r.deprecated);
    assert_eq!(r.sunset, Some(day("2025-12-31")));
    let r = about_the_call("该接口已废弃，将于2025-12-31下线，请使用 v2 接口");
    assert_eq!(r.sunset, Some(day("2025-12-31")));
}

#[test]
fn a_day_first_date_with_slashes_is_read_day_before_month() {
    let r = about_the_call("Cette version de l'API est obsolète et sera supprimée le 30/06/2026.");
    assert_eq!(r.sunset, Some(day("2026-06-30")));
    assert_eq!(first_date("le 01/03/2025"), Some(day("2025-03-01")));
}

#[test]
fn a_version_no_longer_supported_has_reached_its_end() {
    let r = about_the_call("La version 1 de l'API n'est plus prise en charge.");
    assert!(r.deprecated);
    assert_eq!(r.sunset, None);
}

#[test]
fn a_shutdown_on_a_past_date_is_an_end_already_reached() {
    let r = about_the_call("Die API-Version 1 wurde am 01.01.2025 abgeschaltet.");
    assert!(r.deprecated);
    assert_eq!(r.sunset, Some(day("2025-01-01")));
}

#[test]
fn a_field_said_deprecated_is_a_note_about_a_part_not_the_call() {
    assert_eq!(
        what_it_says(
            "customer_name フィールドは非推奨です。name を使用してください。",
            now()
        ),
        Some(Said::AboutAPart)
    );
    assert_eq!(
        what_it_says(
            "Das Feld 'kundennr' ist veraltet; verwenden Sie 'kundennummer'.",
            now()
        ),
        Some(Said::AboutAPart)
    );
}

#[test]
fn an_obsolete_thing_that_names_no_api_says_nothing_of_the_call() {
    assert_eq!(
        what_it_says("Le produit est obsolète, remplacé par A-14.", now()),
        Some(Said::Nothing)
    );
}

#[test]
fn a_text_without_these_words_is_left_to_the_english_reading() {
    assert_eq!(what_it_says("This endpoint is deprecated.", now()), None);
    assert!(!speaks_of_retirement("Der Auftrag wurde gespeichert."));
}

#[test]
fn a_notice_flag_needs_a_deprecation_word_or_a_dated_end() {
    assert!(says_deprecated(
        "Метод устарел и будет отключён 01.03.2026."
    ));
    assert!(says_deprecated("Tento endpoint bude vypnut 31.12.2025."));
    assert!(!says_deprecated("Der Datensatz wurde entfernt."));
}

#[test]
fn numbers_that_are_not_a_calendar_date_are_no_date() {
    assert_eq!(first_date("version 1.2.3"), None);
    assert_eq!(first_date("31.13.2025"), None);
    assert_eq!(first_date("12345.12.2025"), None);
    assert_eq!(first_date("2025-12-31"), Some(day("2025-12-31")));
    assert_eq!(first_date("2025년 12월 31일"), Some(day("2025-12-31")));
}

#[test]
fn a_long_hostile_text_is_read_in_bounded_time() {
    let text = "1.".repeat(100_000) + " veraltet";
    let _ = what_it_says(&text, now());
    let _ = says_deprecated(&text);
}

#[test]
fn a_date_with_its_months_name_in_the_sentences_language_is_read() {
    assert_eq!(
        first_date("wird am 31. Dezember 2025 abgeschaltet"),
        Some(day("2025-12-31"))
    );
    assert_eq!(
        first_date("sera supprimée le 30 juin 2026."),
        Some(day("2026-06-30"))
    );
    assert_eq!(
        first_date("será eliminado el 31 de diciembre de 2025"),
        Some(day("2025-12-31"))
    );
    assert_eq!(first_date("mai 2025"), None);
    let r =
        about_the_call("Cette version de l'API est obsolète et sera supprimée le 30 juin 2026.");
    assert_eq!(r.sunset, Some(day("2026-06-30")));
}

#[test]
fn a_month_named_in_another_script_or_language_of_its_market_dates_the_end() {
    let cases = [
        (
            "Этот метод устарел и будет отключён 31 декабря 2025 г.",
            "2025-12-31",
        ),
        (
            "Цей метод застарів і буде вимкнений 31 грудня 2025 року.",
            "2025-12-31",
        ),
        (
            "Bu uç nokta kullanımdan kaldırılmıştır ve 31 Aralık 2025 tarihinde kapatılacaktır.",
            "2025-12-31",
        ),
        (
            "Αυτό το endpoint έχει καταργηθεί και θα απενεργοποιηθεί στις 31 Δεκεμβρίου 2025.",
            "2025-12-31",
        ),
        (
            "هذه الواجهة مهملة وسيتم إيقافها في 31 ديسمبر 2025",
            "2025-12-31",
        ),
        (
            "נקודת קצה זו הוצאה משימוש ותושבת ב-31 בדצמבר 2025",
            "2025-12-31",
        ),
        (
            "API này đã bị ngừng hỗ trợ và sẽ ngừng hoạt động vào ngày 31 tháng 12 năm 2025.",
            "2025-12-31",
        ),
        (
            "API ini tidak digunakan lagi dan akan dihentikan pada 31 Desember 2025.",
            "2025-12-31",
        ),
        (
            "Această versiune a API-ului este învechită și va fi dezactivată pe 31 decembrie 2025.",
            "2025-12-31",
        ),
        (
            "Dette API er forældet og lukkes 31. december 2025.",
            "2025-12-31",
        ),
    ];
    for (text, want) in cases {
        let r = about_the_call(text);
        assert!(r.deprecated, "{text}");
        assert_eq!(r.sunset, Some(day(want)), "{text}");
    }
}

#[test]
fn a_day_written_with_an_ordinal_dot_keeps_its_month_in_the_same_sentence() {
    let r = about_the_call("Tento endpoint je zastaralý a bude vypnut 31. prosince 2025.");
    assert_eq!(r.sunset, Some(day("2025-12-31")));
    let r = about_the_call("Diese API ist veraltet und wird am 1. März 2026 abgeschaltet.");
    assert_eq!(r.sunset, Some(day("2026-03-01")));
}
