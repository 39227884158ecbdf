//! Numbers in a client's arguments that toolgate could not pass on as written.
//!
//! Arguments are read into `serde_json::Value`, which holds an integer outside the
//! i64/u64 range, or a decimal with more significant digits than an `f64` keeps, as the
//! nearest `f64`: `12345678901234567890123` would reach the upstream as
//! `1.2345678901234568e22`, another number (another record id). Rather than send a
//! number the model did not write, a call with such a number is refused, naming it.
//! The check reads the arguments' text once; a number is fine when the text toolgate
//! would send denotes the same decimal value as the text the client sent.

/// The first number in `json` (one valid JSON document) whose value would change on its
/// way to the upstream, as written (at most [`SHOWN`] characters of it).
pub fn first_inexact(json: &str) -> Option<String> {
    let bytes = json.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = after_string(bytes, i),
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                let written = &json[start..i];
                if !kept_as_written(written) {
                    return Some(shown(written));
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// How much of a long number a sentence repeats.
pub const SHOWN: usize = 40;

fn shown(written: &str) -> String {
    if written.len() <= SHOWN {
        written.to_owned()
    } else {
        // A number is ASCII: any byte index is a character boundary.
        format!("{}… ({} digits)", &written[..SHOWN], written.len())
    }
}

/// The index just past the string opening at `open` (the end of `bytes` when it has
/// no closing quote).
fn after_string(bytes: &[u8], open: usize) -> usize {
    toolgate_contract::string_end(bytes, open + 1).map_or(bytes.len(), |quote| quote + 1)
}

/// Whether the number `written` reaches the upstream with the same value: integers
/// in the i64/u64 range are kept as integers; anything else becomes an `f64`, written
/// back in its shortest form.
fn kept_as_written(written: &str) -> bool {
    let integer = !written.contains(['.', 'e', 'E']);
    if integer && (written.parse::<i64>().is_ok() || written.parse::<u64>().is_ok()) {
        return true;
    }
    let Ok(value) = written.parse::<f64>() else {
        return false;
    };
    let Some(number) = serde_json::Number::from_f64(value) else {
        return false;
    };
    Decimal::of(written) == Decimal::of(&number.to_string())
}

/// A decimal number in a canonical form: sign, significant digits without leading or
/// trailing zeros, and the power of ten of the last digit. Zero has no digits and no
/// sign.
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: String,
    exponent: i64,
}

impl Decimal {
    fn of(text: &str) -> Decimal {
        let (negative, text) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (mantissa, exponent) = match text.find(['e', 'E']) {
            Some(at) => (&text[..at], parse_exponent(&text[at + 1..])),
            None => (text, 0),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let mut exponent = exponent.saturating_sub(fraction.len() as i64);
        let all: String = whole.chars().chain(fraction.chars()).collect();
        let significant = all.trim_start_matches('0');
        let digits = significant.trim_end_matches('0');
        exponent = exponent.saturating_add((significant.len() - digits.len()) as i64);
        if digits.is_empty() {
            return Decimal {
                negative: false,
                digits: String::new(),
                exponent: 0,
            };
        }
        Decimal {
            negative,
            digits: digits.to_owned(),
            exponent,
        }
    }
}

/// An exponent's value, saturating: `1e99999999999999999999` stays far out of range.
fn parse_exponent(text: &str) -> i64 {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude = digits.bytes().fold(0i64, |acc, d| {
        acc.saturating_mul(10)
            .saturating_add(i64::from(d.wrapping_sub(b'0')))
    });
    if negative { -magnitude } else { magnitude }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_beyond_64_bits_and_overlong_decimals_are_found() {
        for (json, found) in [
            (
                r#"{"q":12345678901234567890123}"#,
                "12345678901234567890123",
            ),
            (r#"{"v":[1,18446744073709551616]}"#, "18446744073709551616"),
            (r#"{"v":-9223372036854775809}"#, "-9223372036854775809"),
            (
                r#"{"v":0.10000000000000000000001}"#,
                "0.10000000000000000000001",
            ),
            (
                r#"{"a":{"b":[{"c":123456789012345678901.0}]}}"#,
                "123456789012345678901.0",
            ),
        ] {
            assert_eq!(first_inexact(json).as_deref(), Some(found), "{json}");
        }
        let long = format!(r#"{{"v":{}}}"#, "9".repeat(500));
        let shown = first_inexact(&long).unwrap();
        assert!(
            shown.starts_with(&"9".repeat(SHOWN)) && shown.ends_with("(500 digits)"),
            "{shown}"
        );
    }

    #[test]
    fn numbers_that_keep_their_value_pass() {
        for json in [
            r#"{"a":1,"b":-9223372036854775808,"c":18446744073709551615,"d":0.1}"#,
            r#"{"a":1.5e3,"b":1E-7,"c":-0,"d":0.0,"e":100000000000000000000000,"f":2.50}"#,
            r#"{"a":3.141592653589793,"b":1e300,"c":-1.7976931348623157e308}"#,
            // Digits inside strings are text, whatever they look like.
            r#"{"id":"12345678901234567890123","k\"99999999999999999999999":[]}"#,
        ] {
            assert_eq!(first_inexact(json), None, "{json}");
        }
    }
}
