//! Writing generated config as YAML that every reader takes the same way.
//!
//! A plain scalar means different things to different YAML readers: `1_2`, `0o17`,
//! `1:30`, `yes`, `off`, `~` and `2001-12-14` are strings to a YAML 1.2 reader (toolgate's)
//! but an integer, a sexagesimal number, booleans, null and a date to YAML 1.1 readers
//! (PyYAML, yq, Helm). Spec-derived keys and values are arbitrary text, so a string is
//! left plain only when it starts with a letter, `_` or `/`, holds only characters with
//! no YAML meaning, and is not one of the 1.1 words; everything else is double-quoted
//! (a JSON string is a valid YAML double-quoted scalar).
//!
//! YAML forbids some characters anywhere in a stream, quoted or not (C0 and C1 controls
//! other than tab and line breaks, DEL, U+FEFF, U+FFFE/U+FFFF), and a YAML 1.1 reader
//! folds NEL, LS and PS as line breaks inside a quoted scalar: every one of them is
//! written as a `\uXXXX` escape, which both YAML versions and JSON read back.

use serde_json::Value;

/// Words YAML 1.1 or 1.2 readers resolve to a boolean or null, any case.
const WORDS: &[&str] = &[
    "y", "n", "yes", "no", "true", "false", "on", "off", "null", "nil", "none",
];

/// Punctuation with no YAML meaning inside a plain scalar (in the positions
/// [`plain_is_safe`] allows it).
const PLAIN_PUNCTUATION: &[u8] = b"_-./ :@+(),{}$=?&*!%[];~";

/// Whether `s` reads back as the same string in every YAML reader when written plain.
pub fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if !(first.is_ascii_alphabetic() || first == '_' || first == '/') {
        return false;
    }
    if s.ends_with(' ') || s.contains(": ") || s.contains(" #") || s.ends_with(':') {
        return false;
    }
    // Checked per byte: a large config writes millions of strings.
    if !s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || PLAIN_PUNCTUATION.contains(&b))
    {
        return false;
    }
    !WORDS.iter().any(|w| w.eq_ignore_ascii_case(s))
}

/// `s` as a double-quoted scalar: `"` and `\\` escaped, and every character YAML does
/// not allow raw (see [`must_escape`]) written as `\uXXXX`.
pub fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if must_escape(c) => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Characters a YAML stream may not hold raw (outside the printable set of YAML 1.2,
/// § 5.1), plus the ones a reader treats as line breaks or a byte order mark.
/// Every one of them is in the Basic Multilingual Plane, so `\uXXXX` covers it.
pub fn must_escape(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1F}'
        | '\u{7F}'..='\u{9F}'
        | '\u{2028}' | '\u{2029}'
        | '\u{FEFF}'
        | '\u{FFFE}' | '\u{FFFF}')
}

/// `v` as a block-style YAML document (a trailing newline after each entry).
pub fn to_string(v: &Value) -> String {
    let mut out = String::new();
    write_at(&mut out, v, 0);
    out
}

/// `v` written onto `out` as a block-style YAML document indented by `level` steps of
/// two spaces: what indenting [`to_string`]'s text would give (no line it writes is
/// empty, since every scalar with a line break is quoted), without building that text
/// first.
pub fn write_at(out: &mut String, v: &Value, level: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => map(out, m, level, false),
        Value::Array(a) if !a.is_empty() => seq(out, a, level),
        other => {
            pad(out, level);
            inline(out, other);
            out.push('\n');
        }
    }
}

fn pad(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// A value that fits on its key's line: scalars and empty collections.
fn inline(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) if n.is_f64() => out.push_str(&float_text(&n.to_string())),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => scalar_into(out, s),
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
    }
}

fn scalar_into(out: &mut String, s: &str) {
    if plain_is_safe(s) {
        out.push_str(s);
    } else {
        out.push_str(&double_quoted(s));
    }
}

/// A float as both YAML 1.1 (which wants a dot, and a sign on the exponent) and 1.2
/// read it: `1e20` → `1.0e+20`, `2` → `2.0`.
fn float_text(t: &str) -> String {
    let (mantissa, exponent) = match t.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (t, None),
    };
    let mut out = mantissa.to_string();
    if !out.contains('.') {
        out.push_str(".0");
    }
    if let Some(e) = exponent {
        out.push('e');
        if !e.starts_with(['+', '-']) {
            out.push('+');
        }
        out.push_str(e);
    }
    out
}

fn is_block(v: &Value) -> bool {
    match v {
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
        _ => false,
    }
}

/// `m`'s entries at `level`; with `on_dash_line` the first goes right after a
/// sequence's `- `, which already stands where its indentation would.
fn map(out: &mut String, m: &serde_json::Map<String, Value>, level: usize, on_dash_line: bool) {
    for (i, (k, v)) in m.iter().enumerate() {
        if !(on_dash_line && i == 0) {
            pad(out, level);
        }
        entry_after_pad(out, k, v, level);
    }
}

/// One entry `key: value` of a map at `level`, as [`write_at`] writes each entry of a
/// map: a caller writes an entry of a map it does not hold as one value.
pub fn write_entry(out: &mut String, key: &str, v: &Value, level: usize) {
    pad(out, level);
    entry_after_pad(out, key, v, level);
}

/// One entry whose value is a map, as [`write_entry`] writes it.
pub fn write_map_entry(
    out: &mut String,
    key: &str,
    m: &serde_json::Map<String, Value>,
    level: usize,
) {
    pad(out, level);
    scalar_into(out, key);
    if m.is_empty() {
        out.push_str(": {}\n");
    } else {
        out.push_str(":\n");
        map(out, m, level + 1, false);
    }
}

/// The line `key:` of an entry whose value's lines the caller writes under it, a
/// level deeper.
pub fn write_key(out: &mut String, key: &str, level: usize) {
    pad(out, level);
    scalar_into(out, key);
    out.push_str(":\n");
}

/// One entry whose value is also named by a YAML anchor (`key: &anchor` and the value
/// as [`write_entry`] writes it), for [`write_alias_entry`] to repeat it later.
pub fn write_anchored_entry(out: &mut String, key: &str, v: &Value, level: usize, anchor: &str) {
    pad(out, level);
    scalar_into(out, key);
    out.push_str(": &");
    out.push_str(anchor);
    value_after_key(out, v, level);
}

/// One entry whose value is the one named by `anchor` earlier in the document.
pub fn write_alias_entry(out: &mut String, key: &str, anchor: &str, level: usize) {
    pad(out, level);
    scalar_into(out, key);
    out.push_str(": *");
    out.push_str(anchor);
    out.push('\n');
}

fn entry_after_pad(out: &mut String, k: &str, v: &Value, level: usize) {
    scalar_into(out, k);
    out.push(':');
    value_after_key(out, v, level);
}

/// An entry's value after its `key:` (and anchor, if any): a block on the lines below,
/// one level in, or a flow value after a space.
fn value_after_key(out: &mut String, v: &Value, level: usize) {
    if is_block(v) {
        out.push('\n');
        match v {
            Value::Object(inner) => map(out, inner, level + 1, false),
            Value::Array(items) => seq(out, items, level + 1),
            _ => {}
        }
    } else {
        out.push(' ');
        inline(out, v);
        out.push('\n');
    }
}

fn seq(out: &mut String, items: &[Value], level: usize) {
    for item in items {
        pad(out, level);
        out.push('-');
        match item {
            Value::Object(inner) if !inner.is_empty() => {
                // The first entry goes on the dash's line, the rest under it.
                out.push(' ');
                map(out, inner, level + 1, true);
            }
            Value::Array(inner) if !inner.is_empty() => {
                out.push('\n');
                seq(out, inner, level + 1);
            }
            other => {
                out.push(' ');
                inline(out, other);
                out.push('\n');
            }
        }
    }
}

#[cfg(test)]
mod tests;
