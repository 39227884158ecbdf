//! Writing bytes as a JSON string, escaped exactly as `serde_json` escapes: the answer's
//! text block carries the whole upstream body this way on every call.

/// Appends UTF-8 `bytes` as a JSON string, escaped exactly as `serde_json` escapes.
///
/// Takes bytes so a checked body needs no second UTF-8 pass (the parse verified every
/// string, and JSON outside strings is ASCII): only `"`, `\\` and control bytes change;
/// every other byte, multi-byte sequences included, is copied as it is. This copies the
/// whole upstream body on every call, and a JSON body has a quote every dozen bytes, so
/// it works eight bytes at a time, in one pass: each block is written with one store,
/// and a block with escapes as one store per run between them (a run is written as a
/// whole word and the next write starts where the run ends), never a copy call per run.
/// The output grows ahead of the writes, so no store checks for room.
pub(super) fn write_utf8_str(out: &mut Vec<u8>, bytes: &[u8]) {
    /// The most one block can take: eight six-byte escapes, or a run's word store.
    const BLOCK_ROOM: usize = 8 * 6 + 8;
    let start = out.len();
    // Room for an escape every few bytes; a text with more grows it below.
    out.resize(start + bytes.len() + bytes.len() / 4 + BLOCK_ROOM + 2, 0);
    let mut w = start;
    out[w] = b'"';
    w += 1;
    let mut blocks = bytes.chunks_exact(8);
    for block in blocks.by_ref() {
        if out.len() - w < BLOCK_ROOM {
            out.resize(out.len() + (out.len() - start).max(BLOCK_ROOM), 0);
        }
        let dst = &mut out[w..];
        let word = le_word(block);
        let mut special = toolgate_contract::json_special_mask(word);
        let (mut from, mut wrote) = (0, 0);
        while special != 0 {
            let at = (special.trailing_zeros() / 8) as usize;
            // The run block[from..at], written as the word from `from` on.
            dst[wrote..wrote + 8].copy_from_slice(&(word >> (8 * from)).to_le_bytes());
            wrote += at - from;
            wrote += write_escape(&mut dst[wrote..], block[at]);
            from = at + 1;
            special &= special - 1;
        }
        if from < 8 {
            dst[wrote..wrote + 8].copy_from_slice(&(word >> (8 * from)).to_le_bytes());
            wrote += 8 - from;
        }
        w += wrote;
    }
    if out.len() - w < BLOCK_ROOM {
        out.resize(w + BLOCK_ROOM, 0);
    }
    for &b in blocks.remainder() {
        if needs_escape(b) {
            w += write_escape(&mut out[w..], b);
        } else {
            out[w] = b;
            w += 1;
        }
    }
    out[w] = b'"';
    out.truncate(w + 1);
}

/// An eight-byte block (from `chunks_exact(8)`) as one little-endian word.
#[inline]
fn le_word(block: &[u8]) -> u64 {
    u64::from_le_bytes([
        block[0], block[1], block[2], block[3], block[4], block[5], block[6], block[7],
    ])
}

/// How `serde_json` writes each byte inside a string: the escape's bytes at the start
/// of an eight-byte word, and its length, 0 for a byte written as it is. One load says
/// whether a byte needs an escape and gives it.
static ESCAPES: [([u8; 8], u8); 256] = {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut table = [([0u8; 8], 0u8); 256];
    let mut i = 0;
    while i < 0x20 {
        table[i] = (
            [b'\\', b'u', b'0', b'0', HEX[i >> 4], HEX[i & 0xf], 0, 0],
            6,
        );
        i += 1;
    }
    table[0x08] = ([b'\\', b'b', 0, 0, 0, 0, 0, 0], 2);
    table[0x09] = ([b'\\', b't', 0, 0, 0, 0, 0, 0], 2);
    table[0x0a] = ([b'\\', b'n', 0, 0, 0, 0, 0, 0], 2);
    table[0x0c] = ([b'\\', b'f', 0, 0, 0, 0, 0, 0], 2);
    table[0x0d] = ([b'\\', b'r', 0, 0, 0, 0, 0, 0], 2);
    table[b'"' as usize] = ([b'\\', b'"', 0, 0, 0, 0, 0, 0], 2);
    table[b'\\' as usize] = ([b'\\', b'\\', 0, 0, 0, 0, 0, 0], 2);
    table
};

/// Writes the escape of `b` (a quote, a backslash or a control byte) at the start of
/// `dst`, which has room for eight bytes; the bytes the escape takes. The whole word is
/// stored at once: a copy call per escape, for two bytes a dozen bytes apart in a JSON
/// body, cost more than the escape.
#[inline]
fn write_escape(dst: &mut [u8], b: u8) -> usize {
    let (word, len) = ESCAPES[usize::from(b)];
    dst[..8].copy_from_slice(&word);
    usize::from(len)
}

/// Each byte's escape as one little-endian word: the escape's bytes from the lowest, its
/// length in the highest (0 for a byte written as it is). One load gives both; an
/// escape takes at most six bytes, so the length never overlaps it, and what the word
/// stores past the escape's end is overwritten by the next write.
static ESCAPE_WORDS: [u64; 256] = {
    let mut words = [0u64; 256];
    let mut i = 0;
    while i < 256 {
        let (escape, len) = ESCAPES[i];
        words[i] = u64::from_le_bytes(escape) | ((len as u64) << 56);
        i += 1;
    }
    words
};

/// The length of the escape in `word` (from [`ESCAPE_WORDS`]).
#[inline]
fn escape_len(word: u64) -> usize {
    (word >> 56) as usize
}

/// Appends UTF-8 `bytes` as a JSON string, as [`write_utf8_str`] does, given the offset
/// of every byte that needs an escape, ascending (the contract's check noted them while it
/// read the body, see `toolgate_contract::EscapeSites`).
///
/// Why: searching the body for those bytes again was most of the escaping's cost. With
/// the offsets known, a run of fewer than sixteen bytes between two of them (most runs,
/// in JSON) is copied as one sixteen-byte word from the body, the next write starting
/// where the run ends, over the word's tail, rather than by a copy call; a run of up to
/// [`WORD_RUN`] bytes is copied as a few such words, a longer one by one copy. Each
/// escape is one eight-byte store, its length read from the same word.
///
/// Offsets out of order, or one at a byte that needs no escape, fall back to the search
/// (what was written of the string is dropped first). That every byte needing an escape
/// is among them is the check's promise, which its tests hold it to on generated
/// documents.
///
/// The runs and escapes are written by index into a buffer of a kilobyte on the stack,
/// which is appended to `out` whenever it fills: a capacity check on every run's and
/// escape's store cost as much as the copying. Sizing `out` and writing it by index
/// instead costs more than it saves, since the bytes must be zeroed first. The sites
/// whose run's word would reach past the body's end (its last sixteen bytes) are
/// written after the others, by copies.
pub(super) fn write_at_sites(out: &mut Vec<u8>, bytes: &[u8], sites: &[u32]) {
    /// Appended to `out` once it holds more than this.
    const CHUNK: usize = 1024;
    /// What one site's stores may reach past where they start: a run's words, and an
    /// escape's eight bytes from where the run ends.
    const WINDOW: usize = WORD_RUN + 16 + 8;
    let start = out.len();
    // Every escape takes at most six bytes where its byte took one; two quotes.
    out.reserve(bytes.len() + sites.len() * 5 + 2);
    out.push(b'"');
    let mut chunk = [0u8; CHUNK + WINDOW];
    let mut w = 0;
    let mut from = 0;
    // Sites before this offset have sixteen bytes of the body from any run's start.
    let last_word = bytes.len().saturating_sub(16);
    let worded = if bytes.len() < 16 {
        0
    } else {
        sites.partition_point(|&at| (at as usize) < last_word)
    };
    for &at in &sites[..worded] {
        let at = at as usize;
        // Wraps for a site before `from`, which the slower arm refuses.
        let run = at.wrapping_sub(from);
        match bytes.get(from..from + 16) {
            // The run as one sixteen-byte word and the escape's word where the run ends,
            // in one window of the chunk (one bounds check for both stores).
            Some(word) if run < 16 => {
                let escape = ESCAPE_WORDS[usize::from(word[run])];
                if escape_len(escape) == 0 {
                    return fall_back(out, start, bytes);
                }
                let window = &mut chunk[w..w + 24];
                window[..16].copy_from_slice(word);
                window[run..run + 8].copy_from_slice(&escape.to_le_bytes());
                w += run + escape_len(escape);
            }
            _ => {
                let escape = match bytes.get(at) {
                    Some(&b) if at >= from => ESCAPE_WORDS[usize::from(b)],
                    _ => 0,
                };
                if escape_len(escape) == 0 {
                    return fall_back(out, start, bytes);
                }
                if run <= WORD_RUN && at < last_word {
                    // Sixteen bytes at a time: `at` is before the last word, so each
                    // word lies within the body (sites out of order may put one of the
                    // last word's among these: it takes the copy below).
                    let window = &mut chunk[w..w + WINDOW];
                    let mut k = 0;
                    while k < run {
                        window[k..k + 16].copy_from_slice(&bytes[from + k..from + k + 16]);
                        k += 16;
                    }
                    window[run..run + 8].copy_from_slice(&escape.to_le_bytes());
                    w += run + escape_len(escape);
                } else {
                    out.extend_from_slice(&chunk[..w]);
                    out.extend_from_slice(&bytes[from..at]);
                    chunk[..8].copy_from_slice(&escape.to_le_bytes());
                    w = escape_len(escape);
                }
            }
        }
        if w > CHUNK {
            out.extend_from_slice(&chunk[..w]);
            w = 0;
        }
        from = at + 1;
    }
    out.extend_from_slice(&chunk[..w]);
    for &at in &sites[worded..] {
        let at = at as usize;
        let escape = match bytes.get(at) {
            Some(&b) if at >= from => ESCAPE_WORDS[usize::from(b)],
            _ => 0,
        };
        if escape_len(escape) == 0 {
            return fall_back(out, start, bytes);
        }
        out.extend_from_slice(&bytes[from..at]);
        out.extend_from_slice(&escape.to_le_bytes()[..escape_len(escape)]);
        from = at + 1;
    }
    out.extend_from_slice(&bytes[from..]);
    out.push(b'"');
}

/// The longest run between two sites copied into the stack buffer word by word; a
/// longer one is appended by one copy (a copy call costs about what four words do).
const WORD_RUN: usize = 64;

/// Sites that cannot be right: the string written so far is dropped and the body
/// searched instead.
#[cold]
fn fall_back(out: &mut Vec<u8>, start: usize, bytes: &[u8]) {
    out.truncate(start);
    write_utf8_str(out, bytes);
}

#[inline]
fn needs_escape(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

#[cfg(test)]
#[path = "escape_tests.rs"]
mod tests;
