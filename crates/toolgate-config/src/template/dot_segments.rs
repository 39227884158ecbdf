//! Whether an argument meant for the URL path could name a `.` or `..` segment on the
//! server that reads it.
//!
//! toolgate percent-encodes every `/`, `\`, `;` and `%` of a path argument, so the URL
//! it sends never climbs. Servers and the proxies in front of them do not all read it
//! that way: nginx (`proxy_pass` with a URI), Spring and Tomcat setups that allow encoded
//! slashes, IIS (which treats `\` as `/`) decode `%2F` before resolving dot segments;
//! Tomcat and Jetty drop `;parameters` from a segment, so `..;` is `..`; a proxy that
//! decodes once in front of a router that decodes again undoes a double encoding. Any of
//! them turns `..%2F..%2Fadmin` into `/admin`, a path outside the tool's, with the
//! dependency's credentials on it. Applications that apply Unicode compatibility
//! normalisation (NFKC) to a decoded path read `‥` and `．．` as `..` and `／` as `/`.
//! A Windows program that hands a path to a code-page ("ANSI") API has it converted
//! with the code page's best fit, which writes look-alikes as the ASCII they resemble:
//! `∕` (DIVISION SLASH) as `/`, `¥` as `\` in the Japanese code page and `₩` in the
//! Korean one, whose byte for `\` those signs share (the "WorstFit" research of
//! 2024 walked out of web roots with them). So a value is refused when any reading of
//! it — as written, or with up to [`DECODED_LAYERS`] layers of percent-encoding undone
//! (`%XX`, and IIS's `%uXXXX`, so `%u002e%u002e` is `..`), with or without those
//! compatibility and best-fit forms folded, split at `/` or `\`, with a segment's
//! `;parameters` dropped — has a `.` or `..` part.

use std::borrow::Cow;

use percent_encoding::percent_decode_str;

/// Layers of percent-encoding undone when looking for a dot segment. Real chains decode
/// at most twice (a proxy, then the application); one more covers a third hop.
const DECODED_LAYERS: usize = 3;

/// Whether `value`, placed in a URL path, could be read as holding a `.` or `..` segment.
pub(crate) fn could_name_a_dot_segment(value: &str) -> bool {
    let mut reading = Cow::Borrowed(value);
    for _ in 0..=DECODED_LAYERS {
        if names_a_dot_segment(&reading) || names_a_dot_segment(&folded(&reading)) {
            return true;
        }
        let bytes = decoded_layer(&reading);
        if bytes == reading.as_bytes() {
            return false;
        }
        reading = Cow::Owned(String::from_utf8_lossy(&overlong_ascii_folded(&bytes)).into_owned());
    }
    false
}

/// `reading` with one layer of percent-encoding undone, in both forms servers decode:
/// `%XX` (a byte) and IIS's `%uXXXX` (a UTF-16 code unit, written here as its UTF-8;
/// a lone surrogate as U+FFFD), which IIS and ASP.NET decoded before resolving dot
/// segments, so `%u002e%u002e%u002f` climbed as `../` does (CAPEC-64 counts this
/// "Unicode encoding" among those that walk past a server's path checks).
fn decoded_layer(reading: &str) -> Vec<u8> {
    if !reading.contains("%u") && !reading.contains("%U") {
        return percent_decode_str(reading).collect();
    }
    let mut out = Vec::with_capacity(reading.len());
    let mut rest = reading;
    while let Some(at) = rest.find('%') {
        out.extend(percent_decode_str(&rest[..at]));
        let after = &rest[at + 1..];
        let unit = after
            .strip_prefix(['u', 'U'])
            .and_then(|hex| hex.get(..4))
            .filter(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|hex| u32::from_str_radix(hex, 16).ok());
        match unit {
            Some(unit) => {
                let c = char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER);
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                rest = &after[5..];
            }
            None => {
                // `%XX` or a lone `%`: the ordinary decoder reads it with what follows.
                let next = after.find('%').map_or(rest.len(), |i| at + 1 + i);
                out.extend(percent_decode_str(&rest[at..next]));
                rest = &rest[next..];
            }
        }
    }
    out.extend(percent_decode_str(rest));
    out
}

/// `bytes` with every overlong UTF-8 form of an ASCII character (`C0 AE`, `E0 80 AE`
/// and `F0 80 80 AE` for `.`; `C0 AF` for `/`; `C1 9C` for `\`) written as that
/// character. UTF-8 forbids them, but decoders that did not check read them so: Tomcat
/// before 6.0.18 (CVE-2008-2938) and IIS 4 and 5 (CVE-2000-0884) climbed out of their
/// roots on `%c0%ae%c0%ae/`.
fn overlong_ascii_folded(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let first = bytes[i];
        let (length, mut code) = match first {
            0xC0 | 0xC1 => (2, u32::from(first & 0x1F)),
            0xE0 => (3, 0),
            0xF0 => (4, 0),
            _ => (1, 0),
        };
        let rest = bytes
            .get(i + 1..i + length)
            .filter(|r| r.len() + 1 == length);
        let folded = rest
            .filter(|r| length > 1 && r.iter().all(|b| b & 0xC0 == 0x80))
            .and_then(|r| {
                for b in r {
                    code = (code << 6) | u32::from(b & 0x3F);
                }
                u8::try_from(code).ok().filter(u8::is_ascii)
            });
        match folded {
            Some(ascii) => {
                out.push(ascii);
                i += length;
            }
            None => {
                out.push(first);
                i += 1;
            }
        }
    }
    out
}

fn names_a_dot_segment(reading: &str) -> bool {
    reading.split(['/', '\\']).any(is_dot_segment)
}

/// `reading` with the characters whose NFKC form or Windows best-fit form is a dot,
/// two dots or a separator written as those (only they matter here; everything else is
/// kept as it is).
fn folded(reading: &str) -> Cow<'_, str> {
    let fold = |c: char| match c {
        '\u{2024}' | '\u{fe52}' | '\u{ff0e}' => Some("."),
        '\u{2025}' | '\u{fe30}' => Some(".."),
        // FULLWIDTH SOLIDUS (NFKC); DIVISION SLASH (best fit) and FRACTION SLASH (a
        // confusable of `/` that normalising readers fold the same way).
        '\u{ff0f}' | '\u{2215}' | '\u{2044}' => Some("/"),
        // SMALL and FULLWIDTH REVERSE SOLIDUS (NFKC); YEN SIGN and WON SIGN, the
        // Japanese and Korean code pages' `\` (best fit); SET MINUS (best fit).
        '\u{fe68}' | '\u{ff3c}' | '\u{a5}' | '\u{20a9}' | '\u{2216}' => Some("\\"),
        _ => None,
    };
    if !reading.chars().any(|c| fold(c).is_some()) {
        return Cow::Borrowed(reading);
    }
    let mut out = String::with_capacity(reading.len());
    for c in reading.chars() {
        match fold(c) {
            Some(text) => out.push_str(text),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether `part` names `.` or `..` as a server reads it: up to a `;` (Tomcat's and
/// Jetty's path parameters), or up to a NUL, where a server that hands the path to C
/// string functions (old PHP's file functions, CWE-158) sees it end.
fn is_dot_segment(part: &str) -> bool {
    let name = part.split([';', '\0']).next().unwrap_or(part);
    name == "." || name == ".."
}

#[cfg(test)]
mod tests {
    use super::could_name_a_dot_segment;

    #[test]
    fn climbing_values_are_seen_through_separators_encodings_and_parameters() {
        for climbing in [
            ".",
            "..",
            "../../admin",
            "a/../b",
            "..\\..\\admin",
            "..;/admin",
            "..;jsessionid=1",
            "%2e%2e%2fadmin",
            "..%2F",
            "..%5cadmin",
            "%252e%252e%252fadmin",
            "%25252e%25252e",
            "x/%2E",
            "\u{2025}",
            "\u{ff0e}\u{ff0e}\u{ff0f}admin",
            "%EF%BC%8E%EF%BC%8E%EF%BC%8Fadmin",
            "..\u{ff3c}admin",
            // Overlong UTF-8 forms of `.`, `/` and `\`.
            "%c0%ae%c0%ae/admin",
            "%C0%AE%C0%AE%C0%AFadmin",
            "..%c0%afadmin",
            "..%c1%9cadmin",
            "%e0%80%ae%e0%80%ae",
            "%f0%80%80%ae%f0%80%80%ae",
            "%25c0%25ae%25c0%25ae",
            // IIS's `%uXXXX` (a UTF-16 code unit), alone, mixed with `%XX` and
            // literal dots, encoded once more, and naming the NFKC forms.
            "%u002e%u002e/admin",
            "%U002E%U002E%U002Fadmin",
            "..%u002fadmin",
            "..%u005cadmin",
            "%u002e.",
            ".%u002e",
            "%u002e%2e",
            "%25u002e%25u002e",
            "%u2025",
            "%uff0e%uff0e%uff0fadmin",
            // Mixed: one dot encoded, the other written.
            "%2e.",
            ".%2e",
            "%252e.",
            ".%252e/admin",
        ] {
            assert!(could_name_a_dot_segment(climbing), "{climbing:?}");
        }
    }

    /// Look-alikes of `/` and `\\` that a Windows code page's best fit (or a
    /// normalising reader) turns into separators: WorstFit (Orange Tsai and Splitline,
    /// 2024) climbed out of roots with `¥` under code page 932 and `₩` under 949;
    /// xroche/httrack#1410 shows U+00A5 leaving CP932 as `0x5C`.
    #[test]
    fn windows_best_fit_lookalikes_of_separators_climb() {
        for climbing in [
            "..\u{2215}..\u{2215}admin",
            "..\u{a5}..\u{a5}windows\u{a5}win.ini",
            "..\u{20a9}admin",
            "..\u{2216}admin",
            "..\u{2044}admin",
            "\u{ff0e}\u{ff0e}\u{2215}admin",
            "\u{2025}\u{2215}admin",
            "a\u{2215}..",
        ] {
            assert!(could_name_a_dot_segment(climbing), "{climbing:?}");
        }
    }

    /// A NUL ends the path for a server that reads it as a C string: `..%00.png` is
    /// `..` there (PayloadsAllTheThings, "Null byte"; CWE-158).
    #[test]
    fn a_dot_segment_cut_short_by_a_nul_climbs() {
        for climbing in ["..\0.png", "..%00.png", "..%2500/x", "a/.\0x", "..%u0000"] {
            assert!(could_name_a_dot_segment(climbing), "{climbing:?}");
        }
        for plain in ["a\0..", "...\0", "x\0"] {
            assert!(!could_name_a_dot_segment(plain), "{plain:?}");
        }
    }

    #[test]
    fn windows_best_fit_percent_encoded_lookalikes_climb() {
        for climbing in [
            // Percent-encoded once and twice, and in IIS's `%uXXXX`.
            "..%E2%88%95admin",
            "..%C2%A5admin",
            "..%25E2%2582%25A9admin",
            "..%u2215admin",
        ] {
            assert!(could_name_a_dot_segment(climbing), "{climbing:?}");
        }
        // The signs in ordinary values stay usable.
        for plain in [
            "\u{a5}1000",
            "\u{20a9}500",
            "1\u{2215}2",
            "a\u{2216}b",
            "\u{a5}..x",
        ] {
            assert!(!could_name_a_dot_segment(plain), "{plain:?}");
        }
    }

    #[test]
    fn names_with_dots_stay_usable() {
        for plain in [
            "v1.2.3",
            "...",
            ".hidden",
            "a..b",
            "report.final..pdf",
            "a/b",
            "100%",
            "%zz",
            "caf%C3%A9",
            "%FF%FE",
            "%c0%ae%c0",
            "%c0x",
            "%c3%a9..",
            "\u{2026}",
            "v\u{ff0e}2",
            "%u002e%u002ex",
            "%u00",
            "%u002",
            "%uzzzz",
            "%ud800%ud800",
            "",
        ] {
            assert!(!could_name_a_dot_segment(plain), "{plain:?}");
        }
    }
}
