//! A JSON body in the character set its `Content-Type` names, as UTF-8.
//!
//! JSON between systems is UTF-8 (RFC 8259), and everything that reads a body after
//! this step reads UTF-8. Some servers still answer in another set: UTF-16 (older .NET
//! and Java stacks, with a byte order mark), or ISO-8859-1 / Windows-1252 (older PHP
//! and Java servlet stacks). Such a body is decoded here, so its data is read instead
//! of failing as "not JSON". A body that is already valid UTF-8 is left as it is
//! whatever the label says: a server labelling UTF-8 bytes `iso-8859-1` is common, and
//! re-decoding them would garble every non-ASCII letter. Both the HTTP tools' replies
//! and the fronted MCP servers' answers are read through here.

/// Why a body could not be read as UTF-8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undecodable {
    /// Its first bytes show UTF-16, but the rest is not (an odd length, a lone
    /// surrogate).
    InvalidUtf16,
    /// It is not UTF-8, and its `Content-Type` names this set (lower-cased, a short
    /// plain token), which is not decoded here.
    Unsupported(String),
}

/// `body` as UTF-8, given its `Content-Type` value: `None` when it can be read as it
/// came (it is UTF-8 already, or it is neither UTF-8 nor in a named set and is left to
/// the JSON reader, whose message shows it), else the decoded text.
pub fn to_utf8(content_type: Option<&str>, body: &[u8]) -> Result<Option<String>, Undecodable> {
    // JSON opens with an ASCII character, so UTF-16 shows in its first two bytes: a
    // byte order mark, or a zero byte beside the character (RFC 4627, section 3). A
    // label alone is not trusted: UTF-8 bytes labelled UTF-16 stay UTF-8.
    let utf16 = match body.get(..2) {
        Some([0xFF, 0xFE]) => Some(Utf16::Little),
        Some([0xFE, 0xFF]) => Some(Utf16::Big),
        Some([0, b]) if *b != 0 => Some(Utf16::Big),
        Some([b, 0]) if *b != 0 => Some(Utf16::Little),
        _ => None,
    };
    if let Some(order) = utf16 {
        return decode_utf16(body, order)
            .map(Some)
            .ok_or(Undecodable::InvalidUtf16);
    }
    if std::str::from_utf8(body).is_ok() {
        return Ok(None);
    }
    match content_type.and_then(declared_charset).as_deref() {
        Some("iso-8859-1" | "latin1" | "latin-1" | "l1" | "iso_8859-1" | "us-ascii") => {
            Ok(Some(body.iter().map(|&b| b as char).collect()))
        }
        Some("windows-1252" | "cp1252" | "x-cp1252") => {
            Ok(Some(body.iter().map(|&b| windows_1252(b)).collect()))
        }
        // Bytes that are not what their label says, or carry no label, are left to the
        // JSON reader.
        None | Some("utf-8" | "utf8") => Ok(None),
        Some(other) => Err(Undecodable::Unsupported(other.to_owned())),
    }
}

#[derive(Clone, Copy)]
enum Utf16 {
    Little,
    Big,
}

/// The `charset` parameter of a `Content-Type` value, lower-cased and unquoted; only a
/// short plain token counts, since the server wrote it and a message may name it.
pub fn declared_charset(content_type: &str) -> Option<String> {
    const MAX_NAME: usize = 40;
    let charset = content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"').to_ascii_lowercase())
    })?;
    let plain = !charset.is_empty()
        && charset.len() <= MAX_NAME
        && charset
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'));
    plain.then_some(charset)
}

/// `bytes` (after its byte order mark, if any) decoded as UTF-16; `None` when they are
/// not (an odd length, or a lone surrogate).
fn decode_utf16(bytes: &[u8], order: Utf16) -> Option<String> {
    let bytes = match bytes.get(..2) {
        Some([0xFF, 0xFE] | [0xFE, 0xFF]) => &bytes[2..],
        _ => bytes,
    };
    if bytes.len() % 2 != 0 {
        return None;
    }
    let units = bytes.chunks_exact(2).map(|pair| match order {
        Utf16::Little => u16::from_le_bytes([pair[0], pair[1]]),
        Utf16::Big => u16::from_be_bytes([pair[0], pair[1]]),
    });
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .ok()
}

/// One Windows-1252 byte as a character: ISO-8859-1 but for 0x80–0x9F, where it puts
/// typographic marks (the five bytes it leaves unassigned map to the C1 controls, as
/// browsers read them).
fn windows_1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8D}', 'Ž',
        '\u{8F}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9D}',
        'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9F => HIGH[usize::from(b - 0x80)],
        _ => b as char,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_made_up_or_long_label_is_no_charset() {
        assert_eq!(
            declared_charset("application/json; charset=\"UTF-16LE\"").as_deref(),
            Some("utf-16le")
        );
        assert_eq!(declared_charset("application/json"), None);
        assert_eq!(declared_charset("application/json; charset=a b"), None);
        assert_eq!(
            declared_charset(&format!("application/json; charset={}", "x".repeat(41))),
            None
        );
    }
}
