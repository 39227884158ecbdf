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
                        let gutter = line.to_string().len();
                        writeln!(f, "{:gutter$} |", "")?;
                        writeln!(f, "{line} | {text}")?;
                        writeln!(f, "{:gutter$} | {:>col$}", "", "^")?;
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
