//! Whether an object's top level has a member of a given name: toolgate's notes member
//! in an upstream's body, toolgate's keys in an upstream's `_meta`. Asked on every
//! answer, of bodies toolgate has already checked, so the bytes are searched before any
//! key is read.

/// Whether the object `body` has the top-level key `key`. The bytes are searched first:
/// a key spelled as it is stands between two quotes somewhere, and a key spelled with
/// escapes holds an escape that stands for one of its characters. Only when one of the
/// two is found are the top-level keys read, skipping the values without building them;
/// then a body that is not one well-formed object counts as having it, so nothing is
/// added to it. (Callers ask only of bodies that are one object.)
pub(super) fn has_top_level_key(body: &[u8], key: &str) -> bool {
    let quoted = memchr::memmem::find_iter(body, key.as_bytes())
        .any(|at| at > 0 && body[at - 1] == b'"' && body.get(at + key.len()) == Some(&b'"'));
    if !quoted && !has_escape_spelling_part_of(body, key) {
        return false;
    }
    top_level_key_in(body, key).unwrap_or(true)
}

/// Whether any escape in `body` stands for a character of `key` (for a character past
/// U+FFFF, any surrogate escape does), or could not be read. A key written with an
/// escape holds at least one such escape, so without one no key of the body spells
/// `key` with escapes. Serialisers escape by default what a key rarely holds: Python's
/// `json.dumps`, .NET's `System.Text.Json` and PHP's `json_encode` every non-ASCII
/// character, Go's `encoding/json`, Gson and Rails `<`, `>` and `&`, PHP `/`; so a body
/// with hundreds of escapes is told apart from one spelling the key by a search for
/// backslashes, where reading its keys cost about ten times more.
///
/// Backslashes occur only inside strings, each starting an escape that the next
/// backslash cannot start inside (`\\` is one escape): the escapes are read left to
/// right, each stepped over whole.
fn has_escape_spelling_part_of(body: &[u8], key: &str) -> bool {
    let spelled = KeyChars::of(key);
    let mut from = 0;
    while let Some(found) = body
        .get(from..)
        .and_then(|rest| memchr::memchr(b'\\', rest))
    {
        let mut at = from + found;
        // The escapes that follow this one directly are read without a search: a word
        // of a script beyond ASCII is a run of them.
        while body.get(at) == Some(&b'\\') {
            match escape_at(body, at, &spelled) {
                Some((unit, len)) if !spelled.holds(unit, key) => at += len,
                _ => return true,
            }
        }
        from = at;
    }
    false
}

/// The escape whose backslash is at `at`: the code unit it stands for and its length.
/// A `\u` escape past `\u00ff` is not decoded for a key of ASCII characters, which it
/// cannot spell (U+FFFF, no key's character, stands for it). `None` when it is not an
/// escape.
fn escape_at(body: &[u8], at: usize, spelled: &KeyChars) -> Option<(u32, usize)> {
    let unit = match *body.get(at + 1)? {
        b'u' => {
            let digits = body.get(at + 2..at + 6)?;
            if !spelled.beyond_ascii && digits[..2] != *b"00" {
                return Some((0xffff, 6));
            }
            return Some((hex_unit(digits)?, 6));
        }
        kind @ (b'"' | b'\\' | b'/') => u32::from(kind),
        b'b' => 0x08,
        b'f' => 0x0c,
        b'n' => u32::from(b'\n'),
        b'r' => u32::from(b'\r'),
        b't' => u32::from(b'\t'),
        _ => return None,
    };
    Some((unit, 2))
}

/// The characters of a key, as escapes are compared with them.
struct KeyChars {
    /// Bit `b` is set when the key holds the ASCII character `b`.
    ascii: u128,
    /// Whether the key holds a character past ASCII.
    beyond_ascii: bool,
}

impl KeyChars {
    fn of(key: &str) -> KeyChars {
        KeyChars {
            ascii: key
                .bytes()
                .filter(u8::is_ascii)
                .fold(0, |bits, b| bits | 1 << b),
            beyond_ascii: !key.is_ascii(),
        }
    }

    /// Whether the UTF-16 code unit `unit` is a character of `key`, or half of one.
    fn holds(&self, unit: u32, key: &str) -> bool {
        if unit < 0x80 {
            return self.ascii & 1 << unit != 0;
        }
        if !self.beyond_ascii {
            return false;
        }
        if (0xd800..0xe000).contains(&unit) {
            return key.chars().any(|c| u32::from(c) > 0xffff);
        }
        key.chars().any(|c| u32::from(c) == unit)
    }
}

/// The code unit four hex digits spell, or `None` when they are not four hex digits.
fn hex_unit(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |unit, &digit| {
        let value = char::from(digit).to_digit(16)?;
        Some(unit << 4 | value)
    })
}

/// Walks the object `body` once, reading only the keys at its top level and comparing
/// each with `key` (an escaped key decoded first, since `"tool\u0067ate"` is
/// `"toolgate"`). Strings are skipped with a vectorised search for their closing quote
/// or next escape. `None` when the bytes are not one object.
fn top_level_key_in(body: &[u8], key: &str) -> Option<bool> {
    let mut depth = 0usize;
    let mut expecting_key = false;
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'"' => {
                let end = toolgate_contract::string_end(body, i + 1)?;
                if depth == 1 && expecting_key {
                    let raw = &body[i + 1..end];
                    let matches = if raw.contains(&b'\\') {
                        serde_json::from_slice::<String>(&body[i..=end]).ok()? == key
                    } else {
                        raw == key.as_bytes()
                    };
                    if matches {
                        return Some(true);
                    }
                    expecting_key = false;
                }
                i = end;
            }
            b'{' | b'[' => {
                if depth == 0 && body[i] != b'{' {
                    return None;
                }
                depth += 1;
                expecting_key = depth == 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(false);
                }
            }
            b',' if depth == 1 => expecting_key = true,
            _ => {}
        }
        i += 1;
    }
    None
}
