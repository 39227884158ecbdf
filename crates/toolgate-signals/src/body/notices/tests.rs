use super::*;

fn names(body: &str, from: From) -> Vec<String> {
    let b = body.as_bytes();
    top_members(b, 0..b.len(), from)
        .into_iter()
        .map(|(n, _)| n)
        .collect()
}

#[test]
fn only_top_level_members_are_found_from_either_end() {
    let body = r#"{"a":1,"data":{"warning":"x","s":"\"warning\": 2"},"w\"q":[{"b":2}],"z":"}"}"#;
    for from in [From::Start, From::End] {
        let mut got = names(body, from);
        got.sort();
        assert_eq!(got, ["a", "data", "w\"q", "z"]);
    }
    // A window that starts inside the data sees only what it can place.
    let long = format!(r#"{{"data":"{}","warnings":["gone"]}}"#, "y".repeat(3000));
    let b = long.as_bytes();
    let got: Vec<String> = top_members(b, b.len() - 100..b.len(), From::End)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(got, ["warnings"]);
    // An escaped backslash before a quote ends the string; an escaped quote does not.
    assert_eq!(names(r#"{"a\\":1,"b\"c":2}"#, From::End), ["b\"c", "a\\"]);
    assert_eq!(names(r#"{"a\\":1,"b\"c":2}"#, From::Start), ["a\\", "b\"c"]);
    assert!(names("", From::Start).is_empty());
    assert!(names("\"\\", From::End).is_empty());
    assert!(names("[{\"warnings\":1}]", From::Start).is_empty());
}

#[test]
fn notices_far_from_either_end_are_not_looked_for() {
    let now = chrono::DateTime::from_timestamp(1_772_323_200, 0).unwrap();
    let pad = "x".repeat(5_000);
    let late = format!(r#"{{"a":"{pad}","warnings":["This API is deprecated"],"b":"{pad}"}}"#);
    let f = read(late.as_bytes(), 1024, now);
    assert!(f.warnings.is_empty() && f.deprecation.is_none());
    let at_the_end = format!(r#"{{"a":"{pad}","warnings":["This API is deprecated"]}}"#);
    let f = read(at_the_end.as_bytes(), 1024, now);
    assert_eq!(f.warnings, ["This API is deprecated"]);
    assert!(f.deprecation.is_some_and(|d| d.deprecated));
}

#[test]
fn hostile_windows_stay_bounded() {
    let now = chrono::DateTime::from_timestamp(1_772_323_200, 0).unwrap();
    // Many quotes, backslash runs, deep nesting and many notice items: each window is
    // read in one pass and at most a few notices are kept.
    let items: Vec<String> = (0..500)
        .map(|i| format!(r#""This endpoint is deprecated {i}""#))
        .collect();
    let many = format!(r#"{{"warnings":[{}]}}"#, items.join(","));
    let f = read(many.as_bytes(), 1024, now);
    assert!(f.warnings.len() <= MAX_NOTICES);
    let slashes = format!("{{\"warning\":\"{}\"}}", "\\".repeat(100_000));
    let _ = read(slashes.as_bytes(), 1024, now);
    let deep = format!("{}\"warning\":1{}", "{".repeat(50_000), "}".repeat(50_000));
    assert!(read(deep.as_bytes(), 1024, now).warnings.is_empty());
    let quotes = "\"".repeat(100_001);
    assert!(read(quotes.as_bytes(), 1024, now).warnings.is_empty());
}
