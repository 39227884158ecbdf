//! The direct reader against `serde_json`: on generated documents written every way JSON
//! allows (escapes of every form, surrogate pairs, numbers of every shape, any
//! whitespace), and on those documents broken one byte at a time, it must either give
//! the tree the `serde_json` path gives or step aside — never accept what `serde_json`
//! refuses.

use super::*;
use crate::borrowed::choices::Choices;
use proptest::prelude::*;
use serde_json::Value;

/// The direct reader's tree, without its note of repeated names.
fn read(bytes: &[u8]) -> Option<Doc<'_>> {
    super::read(bytes).map(|(doc, _)| doc)
}

/// The offsets of the bytes a JSON string must escape, found the slow way.
pub(crate) fn to_escape(bytes: &[u8]) -> Vec<u32> {
    (0u32..)
        .zip(bytes)
        .filter(|&(_, &b)| b == b'"' || b == b'\\' || b < 0x20)
        .map(|(i, _)| i)
        .collect()
}

/// Both paths say the same of repeated names as they do of the tree.
#[test]
fn both_paths_note_a_repeated_member_name() {
    for (text, repeated) in [
        (&br#"{"a":1,"b":{"c":1,"c":2}}"#[..], true),
        (br#"{"a":"A","a":2}"#, true),
        (br#"{"a":1,"b":[{"a":1},{"a":2}]}"#, false),
    ] {
        let direct = super::read(text).map(|(_, r)| r);
        let (_, parsed) = Doc::parse_noting_repeats(text).unwrap();
        assert_eq!(parsed, repeated, "{}", String::from_utf8_lossy(text));
        assert!(
            direct.is_none_or(|r| r == repeated),
            "{}",
            String::from_utf8_lossy(text)
        );
    }
}

/// A JSON value as a generator sees it; rendered to text by [`render`].
#[derive(Debug, Clone)]
enum Gen {
    Null,
    Bool(bool),
    /// A number token, as written.
    Num(String),
    Str(String),
    Arr(Vec<Gen>),
    Obj(Vec<(String, Gen)>),
}

fn number_token() -> impl Strategy<Value = String> {
    prop_oneof![
        "-?(0|[1-9][0-9]{0,3})",
        "-?[1-9][0-9]{17,22}",
        "-?(0|[1-9][0-9]{0,5})\\.[0-9]{1,18}",
        "-?(0|[1-9][0-9]{0,3})(\\.[0-9]{1,4})?[eE][+-]?[0-9]{1,3}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    // ASCII, quotes and backslashes, controls, two- to four-byte characters.
    "[a-z \"\\\\/\\x00-\\x1f\\x7f\u{e9}\u{4e2d}\u{1F600}\u{FFFF}]{0,12}"
}

fn tree() -> impl Strategy<Value = Gen> {
    let leaf = prop_oneof![
        Just(Gen::Null),
        any::<bool>().prop_map(Gen::Bool),
        number_token().prop_map(Gen::Num),
        text().prop_map(Gen::Str),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Gen::Arr),
            // Names from a small set, so repeated names occur.
            prop::collection::vec(("[a-d]{1,2}", inner), 0..6).prop_map(Gen::Obj),
        ]
    })
}

fn render(tree: &Gen, c: &mut Choices, out: &mut String) {
    space(c, out);
    match tree {
        Gen::Null => out.push_str("null"),
        Gen::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Gen::Num(n) => out.push_str(n),
        Gen::Str(s) => render_str(s, c, out),
        Gen::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                render(item, c, out);
                space(c, out);
            }
            space(c, out);
            out.push(']');
        }
        Gen::Obj(members) => {
            out.push('{');
            for (i, (name, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                space(c, out);
                render_str(name, c, out);
                space(c, out);
                out.push(':');
                render(value, c, out);
                space(c, out);
            }
            space(c, out);
            out.push('}');
        }
    }
    space(c, out);
}

/// Writes a string with each character raw where JSON allows it, or escaped in one of
/// the forms JSON allows (short escapes, `\u` in either case, surrogate pairs).
fn render_str(s: &str, c: &mut Choices, out: &mut String) {
    out.push('"');
    for ch in s.chars() {
        let must = ch == '"' || ch == '\\' || u32::from(ch) < 0x20;
        let short = match ch {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '/' => Some("\\/"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            _ => None,
        };
        match (must, c.next(3)) {
            (false, 0) => out.push(ch),
            (_, 1) if short.is_some() => out.push_str(short.unwrap_or_default()),
            _ => {
                let mut units = [0u16; 2];
                for unit in ch.encode_utf16(&mut units) {
                    if c.next(2) == 0 {
                        out.push_str(&format!("\\u{unit:04x}"));
                    } else {
                        out.push_str(&format!("\\u{unit:04X}"));
                    }
                }
            }
        }
    }
    out.push('"');
}

fn by_serde(bytes: &[u8]) -> Option<Doc<'_>> {
    Doc::parse_with_serde(bytes).ok().map(|(doc, _)| doc)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn generated_documents_read_as_serde_json_reads_them(doc in tree(), seed in 1u64..) {
        let mut text = String::new();
        render(&doc, &mut Choices(seed), &mut text);
        let expected = by_serde(text.as_bytes());
        let read = read(text.as_bytes());
        match &expected {
            // Numbers beyond f64 are refused by serde_json, and then by both.
            None => prop_assert!(read.is_none(), "accepted what serde_json refuses: {text}"),
            Some(doc) => prop_assert_eq!(read.as_ref(), Some(doc), "{}", text),
        }
    }

    /// The offsets noted on the way are exactly those of the bytes a JSON string must
    /// escape, in every document the reader accepts: the answer's text block is written
    /// from them, so one missed would send the client broken JSON.
    #[test]
    fn the_escapes_noted_while_reading_are_every_byte_to_escape(doc in tree(), seed in 1u64..) {
        let mut text = String::new();
        render(&doc, &mut Choices(seed), &mut text);
        let bytes = text.as_bytes();
        let mut reader = Reader::noting_escapes(bytes).expect("UTF-8");
        if reader.value().is_some() && reader.at_end() {
            prop_assert_eq!(reader.into_escapes(), to_escape(bytes), "{}", text);
        }
    }

    #[test]
    fn broken_documents_are_never_accepted_when_serde_json_refuses_them(
        doc in tree(),
        seed in 1u64..,
        at in any::<prop::sample::Index>(),
        edit in 0u8..3,
        byte in prop::sample::select(b"\"\\{}[],:-+.eE0123456789 tfnu\x00\x1f\x7f\xc3\xff".to_vec()),
    ) {
        let mut text = String::new();
        render(&doc, &mut Choices(seed), &mut text);
        let mut bytes = text.into_bytes();
        let i = at.index(bytes.len() + 1);
        match edit {
            0 if i < bytes.len() => { bytes.remove(i); }
            1 => bytes.insert(i, byte),
            _ => bytes.truncate(i),
        }
        let expected = by_serde(&bytes);
        if let Some(doc) = read(&bytes) {
            prop_assert_eq!(Some(&doc), expected.as_ref(), "{}", String::from_utf8_lossy(&bytes));
        }
        // And the public entry point agrees with serde_json::Value on the verdict.
        prop_assert_eq!(
            Doc::parse(&bytes).is_ok(),
            serde_json::from_slice::<Value>(&bytes).is_ok(),
            "{}", String::from_utf8_lossy(&bytes)
        );
    }
}

#[test]
fn edge_cases_agree_with_serde_json() {
    let cases: &[&[u8]] = &[
        b"",
        b"   ",
        b"0",
        b"-0",
        b"-0.0",
        b"01",
        b"1.",
        b".5",
        b"1e",
        b"1e+",
        b"-",
        b"18446744073709551615",
        b"18446744073709551616",
        b"-9223372036854775808",
        b"-9223372036854775809",
        b"1e999",
        b"-1e999",
        b"1E-400",
        b"\"\\ud83d\\ude00\"",
        b"\"\\ud83d\"",
        b"\"\\ude00\"",
        b"\"\\ud83d\\u0041\"",
        b"\"\\u00e9\\u00E9\"",
        b"\"\\x\"",
        b"\"tab\there\"",
        b"\"\xff\"",
        b"\"\xc3\xa9\"",
        b"\xef\xbb\xbf{}",
        b"{\"a\":1,}",
        b"[1 2]",
        b"{\"a\" 1}",
        b"{1:2}",
        b"[true, false, null]",
        b"[tru]",
        b"nulll",
        b"{} {}",
        b"\"unterminated",
    ];
    for case in cases {
        let expected = by_serde(case);
        if let Some(doc) = read(case) {
            assert_eq!(
                Some(&doc),
                expected.as_ref(),
                "{}",
                String::from_utf8_lossy(case)
            );
        }
        assert_eq!(
            Doc::parse(case).is_ok(),
            serde_json::from_slice::<Value>(case).is_ok(),
            "{}",
            String::from_utf8_lossy(case)
        );
    }
}

#[test]
fn reads_plain_documents_itself() {
    // The call path's common case must not fall back to serde_json.
    let body = br#"{"query":"q","total":2,"results":[{"title":"a \"b\"","score":0.5,"tags":["x"]},{"title":"\u00e9","score":1,"tags":[]}],"next":null,"ok":true}"#;
    let doc = read(body).expect("read directly");
    assert_eq!(Some(doc), by_serde(body));
}

#[test]
fn nesting_is_bounded_and_the_fallback_decides_beyond() {
    let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(read(nested(MAX_DEPTH as usize).as_bytes()).is_some());
    assert!(read(nested(MAX_DEPTH as usize + 1).as_bytes()).is_none());
    // serde_json's own limit is higher; below it the fallback still accepts.
    let deeper = nested(MAX_DEPTH as usize + 10);
    assert_eq!(
        Doc::parse(deeper.as_bytes()).is_ok(),
        serde_json::from_str::<Value>(&deeper).is_ok()
    );
    assert!(Doc::parse(nested(100_000).as_bytes()).is_err());
}

#[test]
fn special_mask_marks_exactly_quotes_backslashes_and_controls() {
    for b in 0u8..=255 {
        let word = u64::from_le_bytes([b'a', b, b'a', b'a', b'a', b'a', b'a', b]);
        let expected = b == b'"' || b == b'\\' || b < 0x20;
        let mask = special_mask(word);
        assert_eq!(mask != 0, expected, "byte {b:#x}");
        if expected {
            assert_eq!(mask, (0x80 << 8) | (0x80 << 56), "byte {b:#x}");
        }
    }
}

/// Writes up to two of JSON's whitespace characters.
fn space(c: &mut Choices, out: &mut String) {
    for _ in 0..c.next(3) {
        out.push([' ', '\t', '\n', '\r'][c.next(4) as usize]);
    }
}

/// A document with no byte below 0x20 is searched for quotes and backslashes only; one
/// with any is searched for controls too. A raw control inside a string is refused
/// either way, and long strings with escapes read the same on both searches.
#[test]
fn both_searches_refuse_a_raw_control_and_read_long_strings_alike() {
    let long = "x".repeat(70);
    let compact = format!(r#"{{"a":"{long}\"{long}\\{long}","b":"{long}"}}"#);
    let spaced = compact.replace(",", ",\n");
    for text in [&compact, &spaced] {
        let bytes = text.as_bytes();
        assert_eq!(read(bytes), by_serde(bytes), "{text}");
        assert!(read(bytes).is_some(), "{text}");
        let mut reader = Reader::noting_escapes(bytes).expect("UTF-8");
        assert!(reader.value().is_some() && reader.at_end());
        assert_eq!(reader.into_escapes(), to_escape(bytes), "{text}");
    }
    for control in [0x00u8, 0x01, 0x09, 0x0a, 0x1f] {
        for base in [&compact, &spaced] {
            let mut bytes = base.clone().into_bytes();
            // Inside the last string's run of x's.
            let at = bytes.len() - 10;
            bytes[at] = control;
            assert!(read(&bytes).is_none(), "accepted a raw {control:#04x}");
            assert!(by_serde(&bytes).is_none());
        }
    }
}

/// A string's end is found where it is whatever its length and wherever its first
/// escape, non-ASCII character or raw control byte falls: inside the first word, on a
/// word's edge, or past the first vector's, in bodies with and without control bytes
/// between tokens.
#[test]
fn a_strings_end_is_found_wherever_its_first_escape_or_control_falls() {
    let specials: [&[u8]; 8] = [
        b"\\\"",
        b"\\\\",
        b"\\u00e9",
        b"\\ud83d\\ude00",
        "é".as_bytes(),
        b"\x01",
        b"\t",
        b"\xff",
    ];
    for len in 0..40 {
        for at in 0..=len {
            for special in specials {
                let mut text = vec![b'x'; at];
                text.extend_from_slice(special);
                text.extend(std::iter::repeat_n(b'y', len - at));
                for space in [&b""[..], b"\n"] {
                    let mut body = b"{\"a\":\"".to_vec();
                    body.extend_from_slice(&text);
                    body.extend_from_slice(b"\",");
                    body.extend_from_slice(space);
                    body.extend_from_slice(b"\"b\":[\"");
                    body.extend_from_slice(&text);
                    body.extend_from_slice(b"\"]}");
                    let shown = String::from_utf8_lossy(&body).into_owned();
                    assert_eq!(read(&body), by_serde(&body), "{shown}");
                    // Not UTF-8 (the lone 0xff): no reader at all.
                    let Some(mut reader) = Reader::noting_escapes(&body) else {
                        assert!(std::str::from_utf8(&body).is_err(), "{shown}");
                        continue;
                    };
                    if reader.value().is_some() && reader.at_end() {
                        assert_eq!(reader.into_escapes(), to_escape(&body), "{shown}");
                    }
                }
            }
        }
    }
}

/// A short member name compared as words matches the body's next sixteen bytes exactly
/// when they start with the name between quotes: any byte changed, the name written one
/// byte shorter or longer, or a quote missing, and it does not; what follows the
/// closing quote does not matter. Names too long for two words, or with a byte JSON
/// escapes, are left to the slice comparison.
#[test]
fn a_short_name_in_words_matches_exactly_its_quoted_bytes() {
    for len in 0..=14 {
        let name: String = "abcdefghijklmnopq".chars().take(len).collect();
        let quoted = QuotedName::of(&name).expect("fits two words");
        let mut window = format!("\"{name}\":xxxxxxxxxxxxxxxxxx").into_bytes();
        window.truncate(16);
        assert!(quoted.is_at_start_of(&window), "{name}");
        for at in 0..len + 2 {
            for other in [b'"', b'\\', b'A', 0x00, 0xc3, window[at] ^ 0x80] {
                if other == window[at] {
                    continue;
                }
                let mut changed = window.clone();
                changed[at] = other;
                assert!(!quoted.is_at_start_of(&changed), "{name} at {at}");
            }
        }
        let longer = format!("\"{name}z\"xxxxxxxxxxxxxxxx");
        assert!(!quoted.is_at_start_of(&longer.as_bytes()[..16]), "{name}");
        if len > 0 {
            let shorter = format!("\"{}\"xxxxxxxxxxxxxxxxx", &name[..len - 1]);
            assert!(!quoted.is_at_start_of(&shorter.as_bytes()[..16]), "{name}");
        }
    }
    assert_eq!(QuotedName::of("abcdefghijklmno"), None);
    assert_eq!(QuotedName::of("a\"b"), None);
    assert_eq!(QuotedName::of("a\\b"), None);
    assert_eq!(QuotedName::of("a\nb"), None);
    assert!(QuotedName::of("é").is_some());
}

/// The search for a string's end runs over the rest of the body, so its vector steps
/// (the first sixteen bytes, then aligned blocks, then a last overlapping block) meet a
/// string's first escape, control byte or non-ASCII character at every offset, and a
/// string that ends the body meets the short-haystack path: the tree, the verdict and
/// the escapes noted are those of the byte-by-byte reading in every case.
#[test]
fn a_strings_end_is_found_at_every_offset_of_the_vector_search() {
    let specials: [&[u8]; 5] = [b"\\\"", b"\\n", "é".as_bytes(), b"\x01", b"\xe4\xb8\xad"];
    let offsets = [
        0usize, 1, 7, 8, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 95,
    ];
    for len in (0..100).step_by(3) {
        for &at in offsets.iter().filter(|&&at| at <= len) {
            for special in specials {
                let mut text = vec![b'x'; at];
                text.extend_from_slice(special);
                text.extend(std::iter::repeat_n(b'y', len - at));
                let plain = vec![b'z'; len];
                for (head, tail) in [
                    (&b"[\""[..], &b"\"]"[..]),
                    (b"{\"a\":\"", b"\",\"b\":1}"),
                    (b"{\n  \"a\": \"", b"\"\n}"),
                ] {
                    for string in [&text, &plain] {
                        let body = [head, string, tail].concat();
                        let shown = String::from_utf8_lossy(&body).into_owned();
                        assert_eq!(read(&body), by_serde(&body), "{shown}");
                        let mut reader = Reader::noting_escapes(&body).expect("UTF-8");
                        if reader.value().is_some() && reader.at_end() {
                            assert_eq!(reader.into_escapes(), to_escape(&body), "{shown}");
                        }
                    }
                }
            }
        }
    }
}

/// An escape followed at once by another, or by the string's closing quote, is read
/// with no search in between (`"\u4e2d\u6587"` is one search, not three), and reads as
/// `serde_json` reads it, broken or not.
#[test]
fn escapes_that_follow_one_another_are_read_without_a_search_between_them() {
    let run = br#""\u4e2d\u6587\ud83d\ude00\n\"\\""#;
    let mut reader = Reader::new(run).expect("UTF-8");
    let read_here = reader.value();
    assert_eq!(read_here, by_serde(run));
    assert_eq!(reader.searches, 1);
    let mut reader = Reader::new(run).expect("UTF-8");
    assert_eq!(reader.skip_string(), Some(()));
    assert_eq!(reader.searches, 1);
    for broken in [
        &br#""\u4e2d\u65""#[..],
        br#""\u4e2d\x""#,
        br#""\ud83d\n""#,
        br#""\n\"#,
        b"\"\\n\x01\"",
        br#""\u4e2d"#,
    ] {
        assert_eq!(read(broken), None, "{}", String::from_utf8_lossy(broken));
        assert_eq!(
            by_serde(broken),
            None,
            "{}",
            String::from_utf8_lossy(broken)
        );
    }
}

/// Indentation of any length, spaces and line breaks in any mix, is stepped over as
/// the byte-by-byte reading steps over it, and every line break, tab and carriage
/// return in it is noted as a byte to escape.
#[test]
fn indentation_of_any_length_is_stepped_over_and_its_breaks_noted() {
    for width in 0..20 {
        for breaks in ["\n", "\r\n", "\n\t", " \n"] {
            let pad = format!("{breaks}{}", " ".repeat(width));
            let body = format!(
                "{{{pad}\"a\"{pad}:{pad}[{pad}1{pad},{pad}\"x\"{pad}]{pad},{pad}\"b\":{{}}{pad}}}{pad}"
            );
            let bytes = body.as_bytes();
            assert_eq!(read(bytes), by_serde(bytes), "{body:?}");
            assert!(read(bytes).is_some(), "{body:?}");
            let mut reader = Reader::noting_escapes(bytes).expect("UTF-8");
            assert!(reader.value().is_some() && reader.at_end(), "{body:?}");
            assert_eq!(reader.into_escapes(), to_escape(bytes), "{body:?}");
        }
    }
}
