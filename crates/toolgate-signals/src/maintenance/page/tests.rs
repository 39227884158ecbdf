use std::time::Duration;

use chrono::{DateTime, Utc};

use super::announced;

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-12-05T12:00:00Z")
        .unwrap_or_default()
        .with_timezone(&Utc)
}

fn wait(body: &str) -> Option<Option<Duration>> {
    announced(body.as_bytes(), now()).map(|a| a.wait)
}

#[test]
fn maintenance_pages_and_answers_are_read_with_their_end() {
    let cases: [(&str, Option<Duration>); 7] = [
        (
            "<!DOCTYPE html><html><head><title>Down for maintenance</title></head>\
             <body><p>We'll be back at 14:00 UTC.</p></body></html>",
            Some(Duration::from_secs(2 * 3600)),
        ),
        (
            "<html><body><h1>Site under maintenance</h1></body></html>",
            None,
        ),
        (
            "Service temporarily offline for maintenance. Expected to last 45 minutes.",
            Some(Duration::from_secs(45 * 60)),
        ),
        (
            r#"{"message":"The API is down for scheduled maintenance until 2026-12-05T13:30:00Z"}"#,
            Some(Duration::from_secs(90 * 60)),
        ),
        (r#"{"maintenance_mode":true}"#, None),
        (
            r#"{"error":{"code":"MAINTENANCE","message":"We are performing maintenance, please come back later"}}"#,
            None,
        ),
        (
            r#"{"errors":[{"title":"Our systems are undergoing maintenance"}],"maintenance_end":"2026-12-05T12:10:00Z"}"#,
            Some(Duration::from_secs(600)),
        ),
    ];
    for (body, want) in cases {
        assert_eq!(wait(body), Some(want), "{body}");
    }
}

#[test]
fn a_business_field_about_maintenance_is_not_the_services_word() {
    let bodies = [
        // A record in maintenance, at the top or nested.
        r#"{"id":"m-7","status":"under maintenance"}"#,
        r#"{"machine":{"status":"Down for maintenance","message":"The server rack is under maintenance"}}"#,
        r#"{"items":[{"title":"Scheduled maintenance of the API gateway"}]}"#,
        // A flag that is false, or a name that is no flag.
        r#"{"maintenance":false,"items":[]}"#,
        r#"{"maintenance":"2026-12-05"}"#,
        // Words without the phrase, and a JSON answer cut by the prefix.
        "<html><body>Maintenance kits on sale</body></html>",
        "",
        "[\"we are under maintenance\"]",
    ];
    for body in bodies {
        assert_eq!(wait(body), None, "{body}");
    }
}

#[test]
fn the_word_is_found_in_any_case_wherever_it_starts_and_only_whole() {
    let word = b"maintenance";
    // Bodies of `m`s and near misses around one spelling of the word at each place.
    for spelling in [&b"maintenance"[..], b"MAINTENANCE", b"MaInTeNaNcE"] {
        for at in [0, 1, 7, 100] {
            let mut text = b"mmaint mainten Maintenanc m".repeat(4)[..at].to_vec();
            text.extend_from_slice(spelling);
            text.extend_from_slice(b" mm");
            assert!(
                super::names_the_word(&text),
                "{}",
                String::from_utf8_lossy(&text)
            );
            // The same text with the word cut short by one letter holds none.
            let cut: Vec<u8> = text[..at + word.len() - 1].to_vec();
            assert!(
                !super::names_the_word(&cut),
                "{}",
                String::from_utf8_lossy(&cut)
            );
        }
    }
    assert!(!super::names_the_word(b""));
    assert!(!super::names_the_word(b"maintenanc"));
}

#[test]
fn a_page_naming_maintenance_past_the_bytes_read_is_not_read() {
    // The word only after the first 4 KiB: the bytes read do not name it.
    let late = format!("{}we are down for maintenance", " ".repeat(4096));
    assert_eq!(wait(&late), None);
    let early = format!("we are down for maintenance{}", " ".repeat(4096));
    assert!(wait(&early).is_some());
}
