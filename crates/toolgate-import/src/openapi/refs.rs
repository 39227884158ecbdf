//! `$ref` resolution over a spec spread across files: local pointers (`#/components/…`),
//! relative files (`models/droplet.yml`), both (`../common/x.yml#/per_page`), with
//! cycles cut. Nothing is fetched from the network: a URL `$ref` is an error. Files
//! are read only inside the spec's folder and `--allow-dir` folders (see `load`); a
//! `$ref` refused for that reason stops the import ([`Refs::refused`]).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use percent_encoding::percent_decode_str;
use serde_json::Value;

use super::load::{Files, LoadError};

/// How many `$ref` hops one lookup may follow before it is called a cycle.
const MAX_HOPS: usize = 64;

/// Where a node lives: its file and the JSON pointer inside it.
pub type Loc = (PathBuf, String);

/// Resolves `$ref`s and names the schemas they point at.
#[derive(Debug, Default)]
pub struct Refs {
    files: Files,
    names: HashMap<Loc, String>,
    used: HashSet<String>,
    /// The first `$ref` refused for safety.
    refused: Option<String>,
    /// Resolved nodes copied so far: tests hold the count of copies to the number of
    /// definitions, not the number of uses.
    #[cfg(test)]
    pub(crate) copies: usize,
}

/// A node [`Refs::follow`] reached: the one it started from, or one inside a loaded
/// document (shared, not copied).
#[derive(Debug)]
pub enum Target<'n> {
    /// The starting node had no `$ref`.
    Here(&'n Value),
    /// A node of a document, at a JSON pointer `locate` checked.
    In(Arc<Value>, String),
}

impl Target<'_> {
    /// The node.
    pub fn get(&self) -> &Value {
        match self {
            Target::Here(v) => v,
            Target::In(doc, pointer) if pointer.is_empty() => doc,
            // `locate` checked the pointer, and documents never change once loaded.
            Target::In(doc, pointer) => doc.pointer(pointer).unwrap_or(&Value::Null),
        }
    }
}

impl Refs {
    /// `$ref`s may also read files inside `allow_dirs`, besides the spec's folder.
    pub fn with_allowed_dirs(allow_dirs: Vec<PathBuf>) -> Refs {
        Refs {
            files: Files::new(allow_dirs),
            ..Refs::default()
        }
    }

    /// Loads the root document.
    pub fn root(&mut self, path: &Path) -> Result<(PathBuf, Arc<Value>), String> {
        self.files.root(path)
    }

    /// The first `$ref` that was refused for safety (a file outside the allowed
    /// folders, not a regular file, too large or too deeply nested), if any: the
    /// import must stop rather than write a config with that part left open.
    pub fn refused(&self) -> Option<&str> {
        self.refused.as_deref()
    }

    /// Keys written twice with different values in the files read so far, one line each.
    pub fn duplicate_keys(&self) -> &[String] {
        self.files.duplicates()
    }

    /// Files read so far.
    pub fn files_read(&self) -> usize {
        self.files.count()
    }

    /// The location and node `reference` (found in `from`) points at.
    pub fn resolve(&mut self, from: &Path, reference: &str) -> Result<(Loc, Value), String> {
        let (loc, doc) = self.locate(from, reference)?;
        let node = if loc.1.is_empty() {
            Some(doc.as_ref())
        } else {
            doc.pointer(&loc.1)
        };
        #[cfg(test)]
        {
            self.copies += 1;
        }
        match node {
            Some(n) => Ok((loc, n.clone())),
            None => Err(format!("`{reference}` points at nothing")),
        }
    }

    /// The location `reference` (found in `from`) points at, and the document holding
    /// it, without copying the node: a named schema referred to a thousand times is
    /// copied only the first time, to be converted.
    pub fn locate(&mut self, from: &Path, reference: &str) -> Result<(Loc, Arc<Value>), String> {
        let (file_part, pointer) = match reference.split_once('#') {
            Some((f, p)) => (f, p),
            None => (reference, ""),
        };
        if file_part.starts_with("file:") {
            return Err(format!(
                "`$ref: {reference}` in {}: `file:` URLs are not followed; write the path relative to the spec",
                from.display()
            ));
        }
        if file_part.contains("://") {
            return Err(format!(
                "`$ref: {reference}` in {} points at the network, and nothing is fetched; download the file next to the spec and point the `$ref` at the copy",
                from.display()
            ));
        }
        let file = if file_part.is_empty() {
            from.to_path_buf()
        } else {
            let decoded = percent_decode_str(file_part).decode_utf8_lossy();
            from.parent()
                .unwrap_or(Path::new("."))
                .join(decoded.as_ref())
        };
        let (file, doc) = match self.files.get(&file, reference, from) {
            Ok(found) => found,
            Err(LoadError::Refused(e)) => {
                self.refused.get_or_insert_with(|| e.clone());
                return Err(e);
            }
            Err(LoadError::Broken(e)) => return Err(e),
        };
        let pointer = percent_decode_str(pointer).decode_utf8_lossy().into_owned();
        if !pointer.is_empty() && doc.pointer(&pointer).is_none() {
            return Err(format!("`{reference}` points at nothing"));
        }
        Ok(((file, pointer), doc))
    }

    /// Follows `$ref`s from `node` (found in `from`) until a node without one; returns it
    /// with the file it lives in, against which its own relative refs resolve. The node
    /// is copied; [`Refs::follow`] looks at it in place.
    pub fn deref(&mut self, from: &Path, node: &Value) -> Result<(PathBuf, Value), String> {
        let (file, found) = self.follow(from, node)?;
        #[cfg(test)]
        {
            self.copies += 1;
        }
        Ok((file, found.get().clone()))
    }

    /// Like [`Refs::deref`], without copying anything: a caller that only looks at the
    /// target (a flag, one property) must not pay for a copy of a large schema on every
    /// use of it.
    pub fn follow<'n>(
        &mut self,
        from: &Path,
        node: &'n Value,
    ) -> Result<(PathBuf, Target<'n>), String> {
        let mut file = from.to_path_buf();
        let mut found = Target::Here(node);
        for _ in 0..MAX_HOPS {
            let Some(r) = found.get().get("$ref").and_then(Value::as_str) else {
                return Ok((file, found));
            };
            let r = r.to_string();
            let ((f, pointer), doc) = self.locate(&file, &r)?;
            file = f;
            found = Target::In(doc, pointer);
        }
        Err("a `$ref` cycle that never reaches a definition".into())
    }

    /// A stable `$defs` key for the schema at `loc`: the last pointer segment, or the
    /// file's stem, made unique across the whole import.
    pub fn def_name(&mut self, loc: &Loc) -> String {
        if let Some(n) = self.names.get(loc) {
            return n.clone();
        }
        let base = loc
            .1
            .rsplit('/')
            .find(|s| !s.is_empty())
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .or_else(|| loc.0.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "schema".into());
        let base: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let mut name = base.clone();
        let mut n = 2;
        while self.used.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.used.insert(name.clone());
        self.names.insert(loc.clone(), name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_files_pointers_and_cycles() {
        let dir = std::env::temp_dir().join(format!("toolgate-refs-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("models")).unwrap();
        std::fs::write(
            dir.join("root.yml"),
            "a: {$ref: 'models/m.yml#/thing'}\nloop1: {$ref: '#/loop2'}\nloop2: {$ref: '#/loop1'}\n",
        )
        .unwrap();
        std::fs::write(dir.join("models/m.yml"), "thing: {$ref: '../common.yml'}\n").unwrap();
        std::fs::write(dir.join("common.yml"), "type: integer\n").unwrap();
        let mut refs = Refs::default();
        let (root, doc) = refs.root(&dir.join("root.yml")).unwrap();
        let (file, node) = refs.deref(&root, &doc["a"]).unwrap();
        assert_eq!(node["type"], "integer");
        assert!(file.ends_with("common.yml"));
        assert!(
            refs.deref(&root, &doc["loop1"])
                .unwrap_err()
                .contains("cycle")
        );
        assert!(refs.resolve(&root, "#/nope").is_err());
        assert!(
            refs.resolve(&root, "https://example.com/x.json")
                .unwrap_err()
                .contains("network")
        );
        // Names are stable per location and unique across locations.
        let a = refs.def_name(&(root.clone(), "/components/schemas/User".into()));
        let b = refs.def_name(&(file.clone(), "/User".into()));
        assert_eq!(a, "User");
        assert_eq!(b, "User_2");
        assert_eq!(
            refs.def_name(&(root, "/components/schemas/User".into())),
            "User"
        );
        assert_eq!(refs.def_name(&(file, String::new())), "common");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
