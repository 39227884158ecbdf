//! Which files a schema's `$ref`s may read: only regular files under the allowed
//! directories (the config file's, plus any the operator names), each at most
//! [`MAX_SCHEMA_FILE_BYTES`]. A config file is often written by someone other than
//! the person running toolgate, so a `$ref` must not be a way to read `/etc/passwd`
//! (and echo it in an error), `../../secrets.json`, or `/dev/zero` until memory runs
//! out. Errors name the path and the reason, never the file's content.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use jsonschema::{Retrieve, Uri};
use serde_json::Value;

/// The largest schema file read through a `$ref`.
pub const MAX_SCHEMA_FILE_BYTES: u64 = 4 << 20;

/// Why a schema file was not read. Never carries any of the file's content.
#[derive(Debug, thiserror::Error)]
pub enum SchemaFileError {
    /// The path (after resolving `..` and symlinks) is outside every allowed directory.
    #[error("{} is outside the directories schema files may be read from ({roots}); move the file next to the config file, or add its directory to gateway.schema_roots", path.display())]
    Outside {
        /// The path as referenced.
        path: PathBuf,
        /// The allowed directories, comma-separated.
        roots: String,
    },
    /// Not a regular file (a directory, device, FIFO or socket).
    #[error("{} is not a regular file; a schema $ref must name a JSON file", path.display())]
    NotRegular {
        /// The path as referenced.
        path: PathBuf,
    },
    /// Larger than the cap.
    #[error("{} is larger than {limit} bytes, the most a schema file may have", path.display())]
    TooLarge {
        /// The path as referenced.
        path: PathBuf,
        /// The cap in bytes.
        limit: u64,
    },
    /// The file could not be opened or read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The path as referenced.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not JSON, or not a JSON Schema (an object or a boolean).
    #[error("{} is not a JSON Schema document: {reason}", path.display())]
    NotSchema {
        /// The path as referenced.
        path: PathBuf,
        /// Where parsing failed (line and column only, never the text).
        reason: String,
    },
}

/// The directories schema files may be read from, and the size cap. Also the
/// `$ref` retriever handed to the validator, so nested refs obey the same rule.
#[derive(Debug, Clone)]
pub struct SchemaFiles {
    /// Canonical (absolute, symlink-free) directories.
    roots: Vec<PathBuf>,
    max_bytes: u64,
}

impl SchemaFiles {
    /// Files under `roots` (each must exist; it is canonicalized once, here).
    pub fn new<P: AsRef<Path>>(
        roots: impl IntoIterator<Item = P>,
    ) -> Result<SchemaFiles, SchemaFileError> {
        let roots = roots
            .into_iter()
            .map(|r| {
                let r = non_empty(r.as_ref());
                r.canonicalize().map_err(|source| SchemaFileError::Io {
                    path: r.to_path_buf(),
                    source,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SchemaFiles {
            roots,
            max_bytes: MAX_SCHEMA_FILE_BYTES,
        })
    }

    /// No files at all: every file `$ref` is refused.
    pub fn none() -> SchemaFiles {
        SchemaFiles {
            roots: Vec::new(),
            max_bytes: MAX_SCHEMA_FILE_BYTES,
        }
    }

    /// Changes the size cap.
    #[must_use]
    pub fn with_max_bytes(mut self, max_bytes: u64) -> SchemaFiles {
        self.max_bytes = max_bytes;
        self
    }

    /// The canonical allowed directories.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Reads `path` if it is a regular file under an allowed directory and within the cap.
    pub fn read(&self, path: &Path) -> Result<Vec<u8>, SchemaFileError> {
        let io = |source| SchemaFileError::Io {
            path: path.to_path_buf(),
            source,
        };
        // Canonicalizing resolves `..` and every symlink, so the containment check
        // below is about the file that will actually be opened.
        let real = path.canonicalize().map_err(io)?;
        if !self.roots.iter().any(|root| real.starts_with(root)) {
            return Err(SchemaFileError::Outside {
                path: path.to_path_buf(),
                roots: if self.roots.is_empty() {
                    "none: this schema was given no directory".to_owned()
                } else {
                    self.roots
                        .iter()
                        .map(|r| r.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            });
        }
        // Checked before opening: opening a FIFO for reading blocks until a writer comes.
        let meta = std::fs::metadata(&real).map_err(io)?;
        if !meta.is_file() {
            return Err(SchemaFileError::NotRegular {
                path: path.to_path_buf(),
            });
        }
        if meta.len() > self.max_bytes {
            return Err(self.too_large(path));
        }
        let file = std::fs::File::open(&real).map_err(io)?;
        // The file may have been swapped or grown since the check: look again at what
        // was opened, and never read more than the cap whatever it claims.
        if !file.metadata().map_err(io)?.is_file() {
            return Err(SchemaFileError::NotRegular {
                path: path.to_path_buf(),
            });
        }
        let mut bytes = Vec::new();
        file.take(self.max_bytes + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes.len() as u64 > self.max_bytes {
            return Err(self.too_large(path));
        }
        Ok(bytes)
    }

    /// [`SchemaFiles::read`], parsed as a JSON Schema document (an object or a boolean).
    pub fn read_json(&self, path: &Path) -> Result<Value, SchemaFileError> {
        let bytes = self.read(path)?;
        let not_schema = |reason: String| SchemaFileError::NotSchema {
            path: path.to_path_buf(),
            reason,
        };
        // serde_json's messages give a position and the expected token, not the text.
        let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
            not_schema(format!(
                "not JSON (line {}, column {})",
                e.line(),
                e.column()
            ))
        })?;
        match value {
            Value::Object(_) | Value::Bool(_) => Ok(value),
            other => Err(not_schema(format!(
                "the document is a JSON {}, not an object",
                json_type(&other)
            ))),
        }
    }

    fn too_large(&self, path: &Path) -> SchemaFileError {
        SchemaFileError::TooLarge {
            path: path.to_path_buf(),
            limit: self.max_bytes,
        }
    }
}

impl Retrieve for SchemaFiles {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        match uri.scheme().as_str() {
            "file" => {
                let path = uri
                    .path()
                    .decode()
                    .to_string()
                    .map_err(|_| format!("{uri} is not a UTF-8 file path"))?;
                Ok(self.read_json(Path::new(path.as_ref()))?)
            }
            "http" | "https" => {
                Err(format!("{uri} is remote, and http(s) $refs are never fetched").into())
            }
            other => Err(format!("{uri}: `{other}` $refs are not supported").into()),
        }
    }
}

/// `Path::new("")` (the parent of a bare file name) means the current directory.
pub(crate) fn non_empty(dir: &Path) -> &Path {
    if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }
}

/// The JSON Schema type a value is written as (integers as `number`, as learned).
pub(crate) fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests;
