//! Reading spec files: JSON or YAML, by content rather than extension, each file once.
//!
//! An API description is often written by someone else, so reading it must not be a way
//! to read other files or to stall the import. The spec named on the command line and
//! every file a `$ref` reaches are read only when they are regular files (checked
//! before opening: a FIFO would block, `/dev/zero` never ends) of at most
//! [`MAX_FILE_BYTES`], and all of them together of at most [`MAX_TOTAL_BYTES`] in at
//! most [`MAX_FILES`] files; a `$ref`'d file must also lie, after `..` and symlinks are
//! resolved, inside the spec's folder or a folder passed with `--allow-dir` — the rule
//! the config's own schema `$ref`s follow. Text nested deeper than [`MAX_DEPTH`] is
//! refused before the parser sees it, and so is YAML whose aliases would expand it past
//! [`MAX_EXPANDED_BYTES`] (see `toolgate_config::yaml`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use toolgate_contract::{SchemaFileError, SchemaFiles};

use toolgate_config::yaml::{self, YamlError};

use super::duplicates::{self, Duplicate, Found};

/// Largest spec file read; a description bigger than this is not a spec but a mistake.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The most all the files of one spec may hold together: four of the largest single
/// files. Every file read is kept parsed until the import ends, so without this a
/// folder of files each under [`MAX_FILE_BYTES`] could take any amount of memory.
pub const MAX_TOTAL_BYTES: u64 = 256 * 1024 * 1024;

/// The most files one spec may be read from: each costs an open and a parse, and
/// DigitalOcean's, the most split description measured, reads 1,470.
pub const MAX_FILES: usize = 10_000;

/// Deepest nesting of collections a spec file may have. Real specs stay far below it
/// (the YAML reader gives up at 128 levels anyway); the parser's cost grows with the
/// square of the depth, so the limit is checked before parsing.
pub const MAX_DEPTH: usize = yaml::MAX_DEPTH;

/// The most a YAML spec may hold once its aliases are read as copies (bytes of
/// compact JSON); checked before any value is built.
pub const MAX_EXPANDED_BYTES: usize = yaml::MAX_EXPANDED_BYTES;

/// How a nesting refusal starts, to tell it from a syntax error.
const NESTED: &str = "nested";

/// How an expansion refusal starts.
const EXPANDED: &str = "expanded";

/// Why a file was not loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// Refused for safety (outside the allowed folders, not a regular file, too large,
    /// too deeply nested): the import stops.
    Refused(String),
    /// Could not be read or parsed: the parts pointing at it accept anything.
    Broken(String),
}

impl LoadError {
    /// The message.
    pub fn text(&self) -> &str {
        match self {
            LoadError::Refused(s) | LoadError::Broken(s) => s,
        }
    }
}

/// Every file of one spec, loaded on first use and kept for the rest of the import.
#[derive(Debug)]
pub struct Files {
    cache: HashMap<PathBuf, Arc<Value>>,
    /// A path as a `$ref` wrote it → its canonical form. Every `$ref` of a one-file spec
    /// names that file: asking the file system each time made a 20 MB description's
    /// import spend a tenth of its time in `realpath`.
    canonical: HashMap<PathBuf, PathBuf>,
    /// Extra folders `$ref`s may read from (`--allow-dir`).
    allow_dirs: Vec<PathBuf>,
    /// The spec's folder and `allow_dirs`, canonical; set when the root is loaded.
    access: Option<SchemaFiles>,
    /// Keys written twice with different values, one line each, in every file read.
    duplicates: Vec<String>,
    /// Bytes of every file read so far.
    bytes_read: u64,
    /// The most [`Files::bytes_read`] may reach, and the most files: [`MAX_TOTAL_BYTES`]
    /// and [`MAX_FILES`] but in tests.
    max_total_bytes: u64,
    max_files: usize,
}

impl Default for Files {
    fn default() -> Files {
        Files {
            cache: HashMap::new(),
            canonical: HashMap::new(),
            allow_dirs: Vec::new(),
            access: None,
            duplicates: Vec::new(),
            bytes_read: 0,
            max_total_bytes: MAX_TOTAL_BYTES,
            max_files: MAX_FILES,
        }
    }
}

impl Files {
    /// Files that may also come from `allow_dirs`, besides the spec's own folder.
    pub fn new(allow_dirs: Vec<PathBuf>) -> Files {
        Files {
            allow_dirs,
            ..Files::default()
        }
    }

    /// Loads the spec named on the command line; its folder is where `$ref`s may read.
    pub fn root(&mut self, path: &Path) -> Result<(PathBuf, Arc<Value>), String> {
        let canonical = path
            .canonicalize()
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let folder = canonical.parent().unwrap_or(Path::new("/")).to_path_buf();
        let mut roots = vec![folder];
        for d in &self.allow_dirs {
            if !d.is_dir() {
                return Err(format!(
                    "--allow-dir {}: not a directory; name an existing folder",
                    d.display()
                ));
            }
            roots.push(d.clone());
        }
        let access = SchemaFiles::new(&roots)
            .map_err(|e| format!("--allow-dir: {e}"))?
            .with_max_bytes(MAX_FILE_BYTES);
        let bytes = access
            .read(&canonical)
            .map_err(|e| refusal(&e, &format!("the spec {}", path.display())))?;
        self.bytes_read = bytes.len() as u64;
        let (value, duplicates) =
            parse_bytes(bytes, path).map_err(|e| format!("{}: {e}", path.display()))?;
        self.duplicates.extend(duplicates);
        let value = Arc::new(value);
        self.access = Some(access);
        self.cache.insert(canonical.clone(), value.clone());
        self.canonical.insert(path.to_path_buf(), canonical.clone());
        Ok((canonical, value))
    }

    /// The parsed file at `path` (canonicalised, so `a/../b.yml` and `b.yml` are one
    /// file), reached by `$ref` `reference` in the file `from`.
    pub fn get(
        &mut self,
        path: &Path,
        reference: &str,
        from: &Path,
    ) -> Result<(PathBuf, Arc<Value>), LoadError> {
        let at = || format!("`$ref: {reference}` in {}", from.display());
        if let Some(canonical) = self.canonical.get(path)
            && let Some(v) = self.cache.get(canonical)
        {
            return Ok((canonical.clone(), v.clone()));
        }
        let canonical = path.canonicalize().map_err(|e| {
            LoadError::Broken(format!("{}: cannot open {}: {e}", at(), path.display()))
        })?;
        if let Some(v) = self.cache.get(&canonical) {
            self.canonical.insert(path.to_path_buf(), canonical.clone());
            return Ok((canonical, v.clone()));
        }
        let access = self.access.get_or_insert_with(SchemaFiles::none);
        if self.cache.len() >= self.max_files {
            return Err(LoadError::Refused(format!(
                "{}: {} would be file {} of the spec, past {}, the most one description is read from",
                at(),
                path.display(),
                self.cache.len() + 1,
                self.max_files
            )));
        }
        let bytes = access.read(path).map_err(|e| match e {
            SchemaFileError::Io { .. } => LoadError::Broken(format!("{}: {e}", at())),
            other => LoadError::Refused(refusal(&other, &at())),
        })?;
        // Checked before parsing, which takes several times the file's size.
        self.bytes_read += bytes.len() as u64;
        if self.bytes_read > self.max_total_bytes {
            return Err(LoadError::Refused(format!(
                "{}: {} takes the spec's files past {} MiB together, the most one description may hold",
                at(),
                path.display(),
                self.max_total_bytes / 1024 / 1024
            )));
        }
        let (value, duplicates) = parse_bytes(bytes, path).map_err(|e| {
            let text = format!("{}: {}: {e}", at(), path.display());
            if e.starts_with(NESTED) || e.starts_with(EXPANDED) {
                LoadError::Refused(text)
            } else {
                LoadError::Broken(text)
            }
        })?;
        self.duplicates.extend(duplicates);
        let value = Arc::new(value);
        self.cache.insert(canonical.clone(), value.clone());
        self.canonical.insert(path.to_path_buf(), canonical.clone());
        Ok((canonical, value))
    }

    /// Lowers the bounds on all the files together, to test them without writing
    /// hundreds of megabytes.
    #[cfg(test)]
    pub(crate) fn with_bounds(mut self, max_total_bytes: u64, max_files: usize) -> Files {
        self.max_total_bytes = max_total_bytes;
        self.max_files = max_files;
        self
    }

    /// How many files have been read.
    pub fn count(&self) -> usize {
        self.cache.len()
    }

    /// Keys written twice with different values in the files read so far, one line
    /// each, naming the file, the key and where it is.
    pub fn duplicates(&self) -> &[String] {
        &self.duplicates
    }
}

/// A refusal in the importer's words: what, why, and the fix.
fn refusal(e: &SchemaFileError, what: &str) -> String {
    match e {
        SchemaFileError::Outside { path, roots } => format!(
            "{what} reads {}, which is outside the spec's folder and every --allow-dir ({roots}); copy the file next to the spec, or pass --allow-dir with its folder if you trust it",
            path.display()
        ),
        SchemaFileError::NotRegular { path } => format!(
            "{what}: {} is not a regular file (a device, FIFO, socket or folder is never read); point it at a spec file",
            path.display()
        ),
        SchemaFileError::TooLarge { path, limit } => format!(
            "{what}: {} is larger than {} MiB, the most a spec file may have",
            path.display(),
            limit / 1024 / 1024
        ),
        other => format!("{what}: {other}"),
    }
}

fn parse_bytes(bytes: Vec<u8>, path: &Path) -> Result<(Value, Vec<String>), String> {
    let text = yaml::text_of(bytes)?;
    let (value, found) = parse_finding_duplicates(&text)?;
    let report = if found.is_empty() {
        Vec::new()
    } else {
        duplicates::report(&path.display().to_string(), &text, &found)
    };
    Ok((value, report))
}

/// Parses spec text: JSON first (it is also YAML, but the JSON parser is faster and
/// its errors are clearer for JSON files; it stops at 128 levels by itself), then YAML,
/// but only text that nests at most [`MAX_DEPTH`] levels deep and whose aliases expand
/// it to at most [`MAX_EXPANDED_BYTES`].
pub fn parse(text: &str) -> Result<Value, String> {
    parse_finding_duplicates(text).map(|(v, _)| v)
}

/// [`parse`], with the keys written twice with different values in one mapping.
pub fn parse_finding_duplicates(text: &str) -> Result<(Value, Vec<Duplicate>), String> {
    // A byte order mark is not JSON, but says nothing the reader needs.
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        let found = Found::default();
        let mut de = serde_json::Deserializer::from_str(text);
        if let Ok(v) = (SpecValue { found: &found })
            .deserialize(&mut de)
            .and_then(|v| de.end().map(|()| v))
        {
            return Ok((v, found.into_vec()));
        }
    }
    match yaml::check_bounds(text) {
        Ok(()) => {}
        Err(YamlError::Nested(at)) => {
            return Err(format!(
                "{NESTED} more than {MAX_DEPTH} levels deep at line {}, column {}; no API description is, and reading it would take minutes, so it is not read",
                at.line, at.column
            ));
        }
        Err(YamlError::Expanded(over)) => {
            return Err(format!(
                "{EXPANDED} past {} MiB by its aliases (`*name`, each a copy of its anchor `&name`), passed at `{}`; no API description is that large, and reading it would take that memory, so it is not read",
                MAX_EXPANDED_BYTES / 1024 / 1024,
                if over.path.is_empty() {
                    "the top"
                } else {
                    &over.path
                }
            ));
        }
        Err(YamlError::Syntax(e)) => return Err(describe(&e)),
    }
    let found = Found::default();
    let v = (SpecValue { found: &found })
        .deserialize(yaml_serde::Deserializer::from_str(text))
        .map_err(|e| describe(&e))?;
    Ok((v, found.into_vec()))
}

fn describe(e: &yaml_serde::Error) -> String {
    match e.location() {
        Some(l) => format!(
            "neither JSON nor YAML (line {}, column {})",
            l.line(),
            l.column()
        ),
        None => format!("neither JSON nor YAML ({e})"),
    }
}

/// A spec value read from YAML or JSON. Unlike `serde_json::Value`'s own reader, an
/// integer beyond 64 bits (a vendor's `maximum: 18446744073709551616`) is kept as the
/// nearest float instead of failing the whole file: a bound that large is never exact
/// anyway. A key written twice in one mapping with different values is recorded in
/// `found`.
#[derive(Clone, Copy)]
struct SpecValue<'f> {
    found: &'f Found,
}

impl<'de> DeserializeSeed<'de> for SpecValue<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(SpecVisitor { found: self.found })
    }
}

struct SpecVisitor<'f> {
    found: &'f Found,
}

impl<'de> Visitor<'de> for SpecVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_i128<E>(self, v: i128) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or_else(|_| float(v as f64), Value::from))
    }

    fn visit_u128<E>(self, v: u128) -> Result<Value, E> {
        Ok(u64::try_from(v).map_or_else(|_| float(v as f64), Value::from))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        SpecValue { found: self.found }.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        let seed = SpecValue { found: self.found };
        while let Some(v) = seq.next_element_seed(seed)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        let seed = SpecValue { found: self.found };
        while let Some(k) = map.next_key_seed(SpecKey)? {
            let before = self.found.count();
            let v = map.next_value_seed(seed)?;
            // Only when something was met below: a length comparison per entry.
            if self.found.count() > before {
                self.found.inside(before, &k);
            }
            if let Some(first) = out.get(&k)
                && duplicates::differ(first, &v)
            {
                self.found.record(&k);
            }
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

/// A mapping key as text: `200:` and `true:` are names in a spec, not numbers.
struct SpecKey;

impl<'de> DeserializeSeed<'de> for SpecKey {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        // A key is a scalar: nothing below it to find duplicates in.
        let none = Found::default();
        match (SpecValue { found: &none }).deserialize(d)? {
            Value::String(s) => Ok(s),
            Value::Null => Ok("null".into()),
            other => Ok(other.to_string()),
        }
    }
}

/// A float as a JSON number; `.inf` and `.nan` have none and read as null.
fn float(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder with `api.json` and `n` schema files of `bytes` bytes each.
    fn split_spec(n: usize, bytes: usize) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "toolgate-load-{}-{}",
            std::process::id(),
            rand::random::<u32>()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("api.json"), r#"{"openapi": "3.0.3", "paths": {}}"#).unwrap();
        let padding = "x".repeat(bytes.saturating_sub(40));
        for i in 0..n {
            let text = format!(r#"{{"type": "string", "description": "{padding}"}}"#);
            std::fs::write(dir.join(format!("s{i}.json")), text).unwrap();
        }
        dir
    }

    fn read_all(files: &mut Files, dir: &Path, n: usize) -> Result<(), LoadError> {
        let (root, _) = files.root(&dir.join("api.json")).unwrap();
        for i in 0..n {
            let name = format!("s{i}.json");
            files.get(&dir.join(&name), &name, &root)?;
        }
        Ok(())
    }

    #[test]
    fn the_files_of_one_spec_are_bounded_together_as_well_as_each() {
        // Three files of 0.4 MiB, each far under the bound on one file, pass 1 MiB
        // together: the third is refused, named, before it is parsed.
        let dir = split_spec(3, 400 * 1024);
        let mut files = Files::new(Vec::new()).with_bounds(1024 * 1024, MAX_FILES);
        let refused = read_all(&mut files, &dir, 3).unwrap_err();
        let LoadError::Refused(why) = refused else {
            panic!("not refused: {refused:?}")
        };
        assert!(why.contains("`$ref: s2.json`"), "{why}");
        assert!(why.contains("past 1 MiB together"), "{why}");
        assert_eq!(
            files.count(),
            3,
            "the root and the two files under the bound"
        );
        // The same files under the real bound are read.
        let mut files = Files::new(Vec::new());
        read_all(&mut files, &dir, 3).unwrap();
        assert_eq!(files.count(), 4);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_number_of_files_one_spec_is_read_from_is_bounded() {
        let dir = split_spec(5, 50);
        let mut files = Files::new(Vec::new()).with_bounds(MAX_TOTAL_BYTES, 4);
        let refused = read_all(&mut files, &dir, 5).unwrap_err();
        assert!(
            refused
                .text()
                .contains("s3.json would be file 5 of the spec, past 4"),
            "{refused:?}"
        );
        // A file already read is never counted again.
        let (root, _) = files.root(&dir.join("api.json")).unwrap();
        assert!(files.get(&dir.join("s0.json"), "s0.json", &root).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn json_and_yaml_parse_to_the_same_value() {
        let j = parse(r#"{"openapi": "3.0.0", "paths": {}}"#).unwrap();
        let y = parse("openapi: 3.0.0\npaths: {}\n").unwrap();
        assert_eq!(j["paths"], y["paths"]);
        assert!(parse("a: [unclosed").is_err());
    }

    #[test]
    fn integers_beyond_64_bits_read_as_floats() {
        let v =
            parse("maximum: 99999999999999999999\nminimum: -99999999999999999999\nn: 7\n200: ok\n")
                .unwrap();
        assert_eq!(v["maximum"].as_f64(), Some(1e20));
        assert_eq!(v["minimum"].as_f64(), Some(-1e20));
        assert_eq!(v["n"], 7);
        assert_eq!(v["200"], "ok");
        // The same number in JSON already reads as a float.
        let j = parse(r#"{"maximum": 99999999999999999999}"#).unwrap();
        assert_eq!(j["maximum"].as_f64(), Some(1e20));
    }
}
