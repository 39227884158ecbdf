//! Configuration errors: each says where (file, line, column, field path), what, and
//! how to fix it. All of them are collected before anything is reported.

use std::fmt;
use std::path::{Path, PathBuf};

use super::locate::Locator;

/// One problem in the config file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted field path, e.g. `tools.web_search.owner`.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
    /// 1-based line and column, when known.
    pub location: Option<(usize, usize)>,
}

impl ConfigError {
    /// An error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
            help: None,
            location: None,
        }
    }

    /// Adds the fix.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// Every problem found in one config file, printable rustc-style.
#[derive(Debug, Clone)]
pub struct ConfigErrors {
    /// The file.
    pub file: PathBuf,
    /// The text, for excerpts.
    pub source: String,
    /// The problems, in file order.
    pub errors: Vec<ConfigError>,
}

impl ConfigErrors {
    /// Locates every error in `source` and sorts them by position.
    pub fn new(file: &Path, source: &str, mut errors: Vec<ConfigError>) -> Self {
        let locator = Locator::new(source);
        for e in &mut errors {
            if e.location.is_none() {
                e.location = locator.find(&e.path);
            }
        }
        errors.sort_by_key(|e| e.location.unwrap_or((usize::MAX, 0)));
        Self {
            file: file.to_path_buf(),
            source: source.to_string(),
            errors,
        }
    }
}

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<&str> = self.source.lines().collect();
        for e in &self.errors {
            writeln!(f, "error: {}", e.message)?;
            match e.location {
                Some((line, col)) => {
                    writeln!(f, "  --> {}:{line}:{col}", self.file.display())?;
                    if let Some(text) = lines.get(line.saturating_sub(1)) {
                        let (shown, caret) = excerpt(text, col);
                        let gutter = line.to_string().len();
                        writeln!(f, "{:gutter$} |", "")?;
                        writeln!(f, "{line} | {shown}")?;
                        writeln!(f, "{:gutter$} | {:>caret$}", "", "^")?;
                    }
                }
                None => writeln!(f, "  --> {}", self.file.display())?,
            }
            if !e.path.is_empty() {
                writeln!(f, "  = field: {}", e.path)?;
            }
            if let Some(help) = &e.help {
                writeln!(f, "  = help: {help}")?;
            }
            writeln!(f)?;
        }
        let n = self.errors.len();
        write!(
            f,
            "{} has {n} error{}",
            self.file.display(),
            if n == 1 { "" } else { "s" }
        )
    }
}

impl std::error::Error for ConfigErrors {}

/// Characters of a source line shown around an error's column.
const EXCERPT_CHARS: usize = 120;

/// The part of `text` shown for an error at column `col` (1-based, in characters), and
/// the caret's column in it. A long line (a 20 MB key) is cut to [`EXCERPT_CHARS`]
/// around the column, marked with `…`: printed whole it would flood the terminal, and a
/// caret that far out is past what a format width can hold.
fn excerpt(text: &str, col: usize) -> (String, usize) {
    let col = col.max(1);
    if text.len() <= EXCERPT_CHARS {
        return (text.to_string(), col.min(EXCERPT_CHARS + 1));
    }
    let start = col.saturating_sub(EXCERPT_CHARS / 2 + 1);
    let mut shown: String = text.chars().skip(start).take(EXCERPT_CHARS).collect();
    let mut caret = col - start;
    if start > 0 {
        shown.insert(0, '…');
        caret += 1;
    }
    if text.chars().count() > start + EXCERPT_CHARS {
        shown.push('…');
    }
    (shown, caret.min(EXCERPT_CHARS + 2))
}

#[cfg(test)]
mod excerpt_tests {
    use super::*;

    #[test]
    fn an_error_in_a_very_long_line_shows_the_part_around_it_without_panicking() {
        let line = format!("a: {{{}: 1", "k".repeat(100_000));
        let errors = ConfigErrors {
            file: "t.yaml".into(),
            source: line.clone(),
            errors: vec![{
                let mut e = ConfigError::new("", "expected `}`");
                e.location = Some((1, 100_006));
                e
            }],
        };
        let shown = errors.to_string();
        assert!(shown.len() < 1_000, "{} bytes", shown.len());
        assert!(shown.contains("…kkk") && shown.contains(": 1"), "{shown}");
        // The caret sits under the column: after the 1 of `: 1`.
        let (text, caret) = excerpt(&line, 100_006);
        assert_eq!(text.chars().nth(caret - 1), line.chars().nth(100_005));
        assert!(caret <= EXCERPT_CHARS + 2);
        // A short line is shown whole, the caret where it was.
        assert_eq!(excerpt("a: [1, 2", 9), ("a: [1, 2".to_string(), 9));
    }
}
