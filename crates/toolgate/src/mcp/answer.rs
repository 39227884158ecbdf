//! The answer to a successful or failed `tools/call`, written once, from the checked
//! upstream bytes.
//!
//! Why by hand: the answer carries the upstream body twice (as `structuredContent` and
//! escaped into the text block). Going through a `serde_json::Value` means building the
//! body's whole JSON tree, serialising it back and dropping it on every call, for bytes
//! toolgate has already checked and does not change; that was most of a call's CPU
//! (docs/performance.md). Here the bytes are copied in, and the text block is escaped
//! eight bytes at a time.

use super::SIGNALS_META_KEY;
use crate::pipeline::CallOutcome;

/// The JSON-RPC answer to a `tools/call`: `id` is the request id's JSON text. The
/// members are those of MCP's `CallToolResult` (in rmcp's order), with the checked body
/// copied in rather than re-serialised. `inline` (2026-07-28) adds `resultType`.
pub fn tool_call(id: &str, outcome: CallOutcome, inline: bool) -> Vec<u8> {
    let CallOutcome {
        result,
        notes,
        signals,
    } = outcome;
    let body_len = result.as_ref().map_or(0, |s| s.body().len());
    // The text block escapes the body: quotes dominate JSON, so allow for growth.
    let mut out = Vec::with_capacity(body_len * 5 / 2 + 1024);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(if inline {
        br#","result":{"resultType":"complete","content":[{"type":"text","text":"#.as_slice()
    } else {
        br#","result":{"content":[{"type":"text","text":"#.as_slice()
    });
    let is_error = match &result {
        Ok(structured) => {
            if structured.is_wrapped() {
                write_str(&mut out, &structured.text());
            } else {
                write_utf8_str(&mut out, structured.body());
            }
            false
        }
        Err(failure) => {
            write_str(&mut out, &failure.message);
            true
        }
    };
    out.push(b'}');
    if !notes.is_empty() {
        out.extend_from_slice(br#",{"type":"text","text":"#);
        write_str(&mut out, &super::notes_text(&notes));
        out.push(b'}');
    }
    out.push(b']');
    if let Ok(structured) = &result {
        out.extend_from_slice(br#","structuredContent":"#);
        if structured.is_wrapped() {
            out.extend_from_slice(br#"{"result":"#);
            out.extend_from_slice(structured.body());
            out.push(b'}');
        } else {
            out.extend_from_slice(structured.body());
        }
    }
    out.extend_from_slice(if is_error {
        br#","isError":true"#
    } else {
        br#","isError":false"#
    });
    out.extend_from_slice(br#","_meta":{"#);
    write_str(&mut out, SIGNALS_META_KEY);
    out.push(b':');
    // Writing a `Value` into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut out, &signals);
    out.extend_from_slice(b"}}}");
    out
}

/// Appends `s` as a JSON string (quoted and escaped).
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    write_utf8_str(out, s.as_bytes());
}

/// Appends UTF-8 `bytes` as a JSON string, escaped exactly as `serde_json` escapes.
///
/// Takes bytes so a checked body needs no second UTF-8 pass (the parse verified every
/// string, and JSON outside strings is ASCII): only `"`, `\\` and control bytes change;
/// every other byte, multi-byte sequences included, is copied in runs. Eight bytes are
/// tested at a time (this copies the whole upstream body on every call): a bit mask marks
/// the bytes to escape, and only those are visited.
fn write_utf8_str(out: &mut Vec<u8>, bytes: &[u8]) {
    out.reserve(bytes.len() + bytes.len() / 4 + 2);
    out.push(b'"');
    let mut run = 0;
    let mut blocks = bytes.chunks_exact(8);
    let mut at = 0;
    for block in blocks.by_ref() {
        let word = u64::from_le_bytes([
            block[0], block[1], block[2], block[3], block[4], block[5], block[6], block[7],
        ]);
        // One bit (the high bit of its byte) per byte that needs escaping.
        let mut special = escape_mask(word);
        while special != 0 {
            let i = at + (special.trailing_zeros() / 8) as usize;
            escape_byte(out, bytes, &mut run, i, bytes[i]);
            special &= special - 1;
        }
        at += 8;
    }
    for (i, &b) in blocks.remainder().iter().enumerate() {
        escape_byte(out, bytes, &mut run, at + i, b);
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

/// The high bit of every byte of `word` that is `"`, `\\` or below 0x20, and no other
/// bit. Exact per byte: each test adds within a byte's low seven bits, so no carry
/// crosses into the next byte.
#[inline]
fn escape_mask(word: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let is_zero = |v: u64| !(((v & LOW7) + LOW7) | v) & HIGHS;
    let below_space = !(((word & LOW7) + ONES * 0x60) | word) & HIGHS;
    is_zero(word ^ (ONES * u64::from(b'"')))
        | is_zero(word ^ (ONES * u64::from(b'\\')))
        | below_space
}

/// Escapes `b` (at `i` in `bytes`) if it must be, first copying the pending run.
#[inline]
fn escape_byte(out: &mut Vec<u8>, bytes: &[u8], run: &mut usize, i: usize, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short: &[u8] = match b {
        b'"' => b"\\\"",
        b'\\' => b"\\\\",
        b'\n' => b"\\n",
        b'\r' => b"\\r",
        b'\t' => b"\\t",
        0x08 => b"\\b",
        0x0c => b"\\f",
        0x00..=0x1f => b"",
        _ => return,
    };
    out.extend_from_slice(&bytes[*run..i]);
    if short.is_empty() {
        out.extend_from_slice(b"\\u00");
        out.push(HEX[usize::from(b >> 4)]);
        out.push(HEX[usize::from(b & 0xf)]);
    } else {
        out.extend_from_slice(short);
    }
    *run = i + 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_exactly_as_serde_json_escapes_them() {
        let mut every_char: String = (0u8..0x80).map(char::from).collect();
        every_char.push_str("é ü 漢字 🦀 \u{2028} \u{7f} end\\");
        // Random strings heavy in the bytes that matter, at every length and alignment.
        let alphabet: Vec<char> = "\"\\\n\r\t\u{1}\u{1f} aZ{}:,é🦀".chars().collect();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut random = Vec::new();
        for len in 0..80 {
            let s: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            random.push(s);
        }
        for s in random.iter().map(String::as_str).chain([
            "",
            "plain",
            "\"",
            "\\",
            "{\"a\":\"b\\\"c\"}\n",
            every_char.as_str(),
        ]) {
            let mut ours = Vec::new();
            write_str(&mut ours, s);
            let theirs = serde_json::to_vec(s).expect("a string serialises");
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs),
                "{s:?}"
            );
        }
    }
}
