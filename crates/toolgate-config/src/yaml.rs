//! Reading YAML written by someone else within bounds of time and memory: a config, a
//! schema file it names, an API description being imported.
//!
//! Before the parser builds anything, cheap passes refuse what would cost far more than
//! the text is worth: aliases that expand the document past [`MAX_EXPANDED_BYTES`] (see
//! [`expansion`]), and, in an API description, flow collections nested deeper than
//! [`MAX_DEPTH`] (the parser's work grows with the square of that depth; see
//! [`nesting`] and [`from_str`] for why configs are not scanned for it).

pub mod expansion;
pub mod nesting;

use std::fmt;

use serde::de::DeserializeOwned;

/// Deepest nesting of flow collections (`[…]`, `{…}`) a document may have. Real API
/// descriptions and the configs imported from them stay far below it (the YAML reader
/// gives up at 128 levels anyway).
pub const MAX_DEPTH: usize = 100;

/// The most a document may hold once its aliases are read as copies, counted as the
/// bytes of compact JSON. The largest published descriptions measured expand to less
/// than half of it (DocuSign's eSignature config: 25 MB from 2.7 MB of YAML).
pub const MAX_EXPANDED_BYTES: usize = 64 * 1024 * 1024;

/// Why a YAML text was not read.
#[derive(Debug)]
pub enum YamlError {
    /// Flow collections nest deeper than [`MAX_DEPTH`], first at this position.
    Nested(nesting::Position),
    /// Aliases expand the document past [`MAX_EXPANDED_BYTES`], first under this path.
    Expanded(expansion::Overflow),
    /// Not YAML, or not the shape asked for.
    Syntax(yaml_serde::Error),
}

impl YamlError {
    /// Line and column (1-based) the error is at, where known.
    pub fn location(&self) -> Option<(usize, usize)> {
        match self {
            YamlError::Nested(at) => Some((at.line, at.column)),
            YamlError::Expanded(_) => None,
            YamlError::Syntax(e) => e.location().map(|l| (l.line(), l.column())),
        }
    }

    /// What to write instead, for the refusals; `None` for a syntax error.
    pub fn help(&self) -> Option<&'static str> {
        match self {
            YamlError::Nested(_) => {
                Some("write the nested part out as block YAML, or nest it less deeply")
            }
            YamlError::Expanded(_) => Some(
                "write the repeated part out once and refer to it (a contract's shared schema under `schemas:`, named by `$ref: \"toolgate:schemas/<set>/<name>\"`), or name it in fewer aliases",
            ),
            YamlError::Syntax(_) => None,
        }
    }
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            YamlError::Nested(at) => write!(
                f,
                "nested more than {MAX_DEPTH} levels deep at line {}, column {}; reading it would take minutes, so it is not read",
                at.line, at.column
            ),
            YamlError::Expanded(over) => {
                let under = if over.path.is_empty() {
                    String::new()
                } else {
                    format!(" (passed at `{}`)", over.path)
                };
                write!(
                    f,
                    "its aliases (`*name`) repeat their anchors (`&name`) to more than {} MiB read as copies{under}, far more memory than the text is worth, so it is not read",
                    MAX_EXPANDED_BYTES / 1024 / 1024
                )
            }
            YamlError::Syntax(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for YamlError {}

/// The text of a file's `bytes`: UTF-8, with a byte order mark left out. UTF-16 and
/// UTF-32 (which YAML allows, and editors on Windows write) are named as such, with
/// the fix, rather than reported as a stray byte.
pub fn text_of(bytes: Vec<u8>) -> Result<String, String> {
    let wide = match bytes.as_slice() {
        [0xFF, 0xFE, 0, 0, ..] | [0, 0, 0xFE, 0xFF, ..] => Some("UTF-32"),
        [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] => Some("UTF-16"),
        // Without a mark, text starting with an ASCII character: a zero byte beside it.
        [0, 0, 0, c, ..] | [c, 0, 0, 0, ..] if c.is_ascii() => Some("UTF-32"),
        [0, c, ..] | [c, 0, ..] if c.is_ascii() && *c != 0 => Some("UTF-16"),
        _ => None,
    };
    if let Some(encoding) = wide {
        return Err(format!(
            "it is {encoding} text; save it as UTF-8 (the encoding every YAML and JSON reader takes)"
        ));
    }
    let mut text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "it is not UTF-8 text (byte {} is not valid UTF-8); save it as UTF-8",
            e.utf8_error().valid_up_to()
        )
    })?;
    if text.starts_with('\u{FEFF}') {
        text.drain(..'\u{FEFF}'.len_utf8());
    }
    Ok(text)
}

/// Refuses `text` when it nests too deeply or expands too far (see the module's notes):
/// for an API description, whose text is JSON or YAML written by a third party, read by
/// a reader that brings its own deserializer.
pub fn check_bounds(text: &str) -> Result<(), YamlError> {
    nesting::check(text, MAX_DEPTH).map_err(YamlError::Nested)?;
    expansion::measure(text, MAX_EXPANDED_BYTES).map_err(YamlError::Expanded)
}

/// Reads one YAML document as `T` — a config, a schema file it names, a config an import
/// merges into — refusing it when its aliases expand too far.
///
/// The nesting scan is left to API descriptions ([`check_bounds`]): it follows every
/// reading of a quote at once, so what it reports can only grow with a document's
/// length, and a large config written in plain YAML (GitHub's imported config: 68,000
/// lines of descriptions with apostrophes beside `{owner}`-style paths) reads as nested
/// a hundred levels where the parser finds two. A config nested too deeply is refused by
/// the parser's own limit (128 levels).
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    expansion::measure(text, MAX_EXPANDED_BYTES).map_err(YamlError::Expanded)?;
    yaml_serde::from_str(text).map_err(YamlError::Syntax)
}

#[cfg(test)]
mod tests;
