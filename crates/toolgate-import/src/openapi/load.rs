//! Reading spec files: JSON or YAML, by content rather than extension, each file once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

/// Largest spec file read; a description bigger than this is not a spec but a mistake.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Every file of one spec, loaded on first use and kept for the rest of the import.
#[derive(Debug, Default)]
pub struct Files {
    cache: HashMap<PathBuf, Arc<Value>>,
}

impl Files {
    /// The parsed file at `path` (canonicalised, so `a/../b.yml` and `b.yml` are one file).
    pub fn get(&mut self, path: &Path) -> Result<(PathBuf, Arc<Value>), String> {
        let canonical = path
            .canonicalize()
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        if let Some(v) = self.cache.get(&canonical) {
            return Ok((canonical, v.clone()));
        }
        let value = Arc::new(read(&canonical)?);
        self.cache.insert(canonical.clone(), value.clone());
        Ok((canonical, value))
    }

    /// How many files have been read.
    pub fn count(&self) -> usize {
        self.cache.len()
    }
}

/// Reads one file as JSON if it parses as JSON, else as YAML.
pub fn read(path: &Path) -> Result<Value, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{} is larger than {} MiB",
            path.display(),
            MAX_FILE_BYTES / 1024 / 1024
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parses spec text: JSON first (it is also YAML, but the JSON parser is faster and
/// its errors are clearer for JSON files), then YAML.
pub fn parse(text: &str) -> Result<Value, String> {
    let trimmed = text.trim_start();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && let Ok(v) = serde_json::from_str(text)
    {
        return Ok(v);
    }
    yaml_serde::from_str::<Value>(text).map_err(|e| match e.location() {
        Some(l) => format!(
            "neither JSON nor YAML (line {}, column {})",
            l.line(),
            l.column()
        ),
        None => "neither JSON nor YAML".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_yaml_parse_to_the_same_value() {
        let j = parse(r#"{"openapi": "3.0.0", "paths": {}}"#).unwrap();
        let y = parse("openapi: 3.0.0\npaths: {}\n").unwrap();
        assert_eq!(j["paths"], y["paths"]);
        assert!(parse("a: [unclosed").is_err());
    }
}
