//! `\u` escapes that name half a character.
//!
//! JSON writes a character beyond U+FFFF as two escapes, a UTF-16 surrogate pair
//! (`\ud83d\ude00`). One half alone (`\ud800`, or a low half first) is no character.
//! JavaScript's `JSON.parse` and Python's `json` accept it, and then the string cannot
//! be written as UTF-8: the agent's next request to its model carries it escaped again,
//! and the strict parsers of model APIs and of Rust clients (serde_json) refuse that
//! whole request ("no low surrogate in string"). An agent that keeps such a result in
//! its conversation has every later request refused until the conversation is cleared
//! (microsoft/playwright-mcp#1410, anomalyco/opencode#17758). One escape in a server's
//! result would cost the agent its session.
//!
//! Every message a server sends is read with each lone half written as `\ufffd`, the
//! replacement character, which takes the same six bytes, so nothing else in the
//! message moves; a pair stays as written. A result is passed on as the bytes it then
//! is, a listing's entries too, and a notification or a prompt no longer fails to
//! parse over one escape. Raw bytes cannot carry a surrogate: messages are read as
//! UTF-8, which has none.

/// The escape written in place of a lone half: U+FFFD, six bytes like any `\u` escape.
const REPLACEMENT: &[u8; 6] = br"\ufffd";

/// `json` with each `\u` escape of a lone surrogate written as `\ufffd`; `None` when it
/// has none (the common case: nothing is copied). Only the backslashes are visited
/// (`memchr`), so a result without escapes costs one fast pass.
pub(crate) fn replaced(json: &[u8]) -> Option<Vec<u8>> {
    let lone = lone_halves(json);
    if lone.is_empty() {
        return None;
    }
    let mut out = json.to_vec();
    for at in lone {
        out[at..at + REPLACEMENT.len()].copy_from_slice(REPLACEMENT);
    }
    Some(out)
}

/// Where the escapes of lone surrogates start (byte offsets of their backslash).
fn lone_halves(json: &[u8]) -> Vec<usize> {
    let mut lone = Vec::new();
    let mut from = 0;
    // `from` may pass the end when the text ends in a backslash: then nothing is left.
    while let Some(found) = json
        .get(from..)
        .and_then(|rest| memchr::memchr(b'\\', rest))
    {
        let at = from + found;
        // Every escape is stepped over whole, so `\\u` (an escaped backslash, then a
        // letter) is never read as a `\u` escape.
        let Some(unit) = escaped_unit(json, at) else {
            from = at + 2;
            continue;
        };
        from = at + 6;
        match unit {
            0xd800..=0xdbff => match escaped_unit(json, from) {
                Some(0xdc00..=0xdfff) => from += 6,
                _ => lone.push(at),
            },
            0xdc00..=0xdfff => lone.push(at),
            _ => {}
        }
    }
    lone
}

/// The code unit of the `\uXXXX` escape whose backslash is at `at`; `None` for any
/// other escape (or a short or malformed one, which the JSON reading refuses later).
fn escaped_unit(json: &[u8], at: usize) -> Option<u16> {
    let escape = json.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    u16::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(json: &str) -> Option<String> {
        replaced(json.as_bytes()).map(|b| String::from_utf8(b).unwrap())
    }

    #[test]
    fn each_lone_half_becomes_the_replacement_character_and_nothing_else_moves() {
        for (lone, well_formed) in [
            (r#"{"t":"\ud800"}"#, r#"{"t":"\ufffd"}"#),
            (r#"{"t":"a\uDBFFb"}"#, r#"{"t":"a\ufffdb"}"#),
            (
                r#"{"t":"\udc00\ud83d\ude00"}"#,
                r#"{"t":"\ufffd\ud83d\ude00"}"#,
            ),
            // A high half before another high half, and one at the very end.
            (
                r#"{"t":"\ud83d\ud83d\ude00\ud800"}"#,
                r#"{"t":"\ufffd\ud83d\ude00\ufffd"}"#,
            ),
            // A high half followed by an escape that is no low half.
            (
                r#"{"t":"\ud800\u0041\ud800\n"}"#,
                r#"{"t":"\ufffd\u0041\ufffd\n"}"#,
            ),
            // In a member's name too.
            (r#"{"\ud800":1}"#, r#"{"\ufffd":1}"#),
        ] {
            assert_eq!(fixed(lone).as_deref(), Some(well_formed), "{lone}");
            let parsed: serde_json::Value = serde_json::from_str(well_formed).unwrap();
            assert!(parsed.is_object());
        }
    }

    #[test]
    fn pairs_other_escapes_and_escaped_backslashes_are_left_alone() {
        for clean in [
            r#"{"t":"\ud83d\ude00 \uD83D\uDE00"}"#,
            r#"{"t":"\\ud800"}"#,
            r#"{"t":"\\\\ud800 \" \/ \u00e9 \n"}"#,
            r#"{"t":"no escapes at all"}"#,
            r#"{"t":"\u12"}"#,
            r#"{"t":"\"#,
            "",
        ] {
            assert_eq!(fixed(clean), None, "{clean}");
        }
    }
}
