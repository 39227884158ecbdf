//! The compiled response contract: compiles a JSON Schema once (with local and file
//! `$ref`s, never network ones), answers "valid?" fast, and on failure assembles a
//! [`Drift`] from the structural walk plus the validator's own errors. The validator is
//! the only judge of validity; the walk explains *why*.

use crate::borrowed::{Borrowed, Doc, EscapeSites, ReadCheck};
use crate::drift::{Change, Drift, Violation};
use crate::files::{SchemaFileError, SchemaFiles, non_empty};
use crate::findings::Findings;
use crate::memo::DriftMemo;
use crate::path::Path;
use crate::shared::{SHARED_REF_PREFIX, SharedSchemas};
use crate::walk;
use jsonschema::error::ValidationErrorKind;
use jsonschema::{PatternCache, Validator};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// Raw validator errors kept in a [`Drift`]; the structural diff is the summary, these
/// are for the owner who wants the validator's exact words.
pub const MAX_VIOLATIONS: usize = 20;
/// Validator errors looked at when turning non-structural ones into changes.
const MAX_ERRORS_SCANNED: usize = 2_000;

/// Why a response schema could not be compiled. Messages say what to fix.
#[derive(Debug, thiserror::Error)]
pub enum ContractError {
    /// The schema is not valid JSON Schema.
    #[error(
        "the response schema is not valid JSON Schema (at {location}): {message}; fix that keyword so the schema validates against the JSON Schema 2020-12 meta-schema"
    )]
    InvalidSchema {
        /// JSON Pointer into the schema.
        location: String,
        /// The validator's explanation.
        message: String,
    },
    /// A `$ref` points to something that cannot be loaded.
    #[error("the response schema has a $ref that cannot be resolved: {message}; {hint}")]
    UnresolvableRef {
        /// The resolver's explanation.
        message: String,
        /// What to change.
        hint: String,
    },
    /// The directory relative file `$ref`s resolve from is unusable.
    #[error("cannot use {} as the base directory for the schema's file $refs: {source}; point it at the directory that holds the contract file", path.display())]
    BaseDir {
        /// The directory given.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
}

/// Why a body's bytes do not satisfy a contract.
#[derive(Debug)]
pub enum BodyError {
    /// The bytes are not one JSON document.
    NotJson(serde_json::Error),
    /// The JSON does not match the schema.
    Drift(Drift),
}

/// A compiled response contract: the schema plus cached validators.
///
/// Cloning is cheap: the compiled parts are shared, and the copy starts with its own
/// drift memo. Tools whose contracts have the same text share one compilation (see
/// [`crate::ContractCache`]).
#[derive(Debug, Clone)]
pub struct ResponseContract {
    pub(crate) compiled: Arc<Compiled>,
    /// The shared components the schema's `toolgate:schemas/…` references name, when
    /// it has any: one copy for every contract of the config.
    shared: Option<Arc<SharedSchemas>>,
    /// Recent structural drift diagnoses by body shape (see `memo`).
    memo: DriftMemo,
}

/// What compiling a schema produces; it depends only on the schema's text, the
/// shared components and (for file `$ref`s) the files it may read.
#[derive(Debug)]
pub(crate) struct Compiled {
    schema: Value,
    /// The schema with external `$ref`s inlined (or the schema itself when it has none),
    /// so the walk only ever follows pointers inside one document.
    shape_root: Option<Value>,
    /// Judges `Value`s and lists the errors of a rejected body.
    validator: Validator,
    /// Judges raw bodies on every call, without building a `Value` (see `borrowed`).
    fast: Validator<Borrowed>,
    /// Vouches for valid bodies as it reads them, with no tree at all, when the schema
    /// is made only of keywords it decides (`borrowed/read_check.rs`).
    read_check: Option<ReadCheck>,
}

impl ResponseContract {
    /// Compiles `schema`. Local `$ref`s (`#/$defs/x`) always work; relative file `$ref`s
    /// resolve against `base_dir` and may read only files inside it (see [`SchemaFiles`]);
    /// without a `base_dir` no file is read; remote (http) `$ref`s are never fetched.
    pub fn compile(
        schema: &Value,
        base_dir: Option<&std::path::Path>,
    ) -> Result<Self, ContractError> {
        let files = match base_dir {
            Some(dir) => SchemaFiles::new([dir]).map_err(|e| match e {
                SchemaFileError::Io { path, source } => ContractError::BaseDir { path, source },
                other => ContractError::UnresolvableRef {
                    message: other.to_string(),
                    hint: ref_hint(base_dir),
                },
            })?,
            None => SchemaFiles::none(),
        };
        Self::compile_with(schema, base_dir, &files)
    }

    /// Like [`ResponseContract::compile`], with relative file `$ref`s resolving against
    /// `base_dir` but read only where `files` allows (e.g. the config file's directory
    /// and the operator's `schema_roots`, when the schema itself lives in a subdirectory).
    pub fn compile_with(
        schema: &Value,
        base_dir: Option<&std::path::Path>,
        files: &SchemaFiles,
    ) -> Result<Self, ContractError> {
        Self::compile_shared(schema, base_dir, files, None)
    }

    /// Like [`ResponseContract::compile_with`], with `toolgate:schemas/<set>/<name>`
    /// references resolved in `shared`: every contract compiles against that one
    /// registry, and a reference to a component that does not exist is an error naming it.
    pub fn compile_shared(
        schema: &Value,
        base_dir: Option<&std::path::Path>,
        files: &SchemaFiles,
        shared: Option<&Arc<SharedSchemas>>,
    ) -> Result<Self, ContractError> {
        let patterns = shared.map_or_else(PatternCache::new, |s| s.patterns().clone());
        Self::compile_sharing(schema, base_dir, files, shared, &patterns)
    }

    /// [`ResponseContract::compile_shared`], taking each `pattern`'s compiled regular
    /// expression from `patterns` (compiled there the first time any schema names it).
    pub(crate) fn compile_sharing(
        schema: &Value,
        base_dir: Option<&std::path::Path>,
        files: &SchemaFiles,
        shared: Option<&Arc<SharedSchemas>>,
        patterns: &PatternCache,
    ) -> Result<Self, ContractError> {
        // Only a schema that names a component keeps (and compiles against) the set.
        let shared = shared.filter(|_| has_shared_ref(schema));
        if let Some(set) = shared {
            let problems = set.check_refs(schema);
            if !problems.is_empty() {
                return Err(ContractError::UnresolvableRef {
                    message: problems.join("; "),
                    hint: "shared components live in the config's `schemas:` section (schemas.<set>.<name>); add the component or fix the name".to_owned(),
                });
            }
        } else if has_shared_ref(schema) {
            return Err(ContractError::UnresolvableRef {
                message: format!(
                    "the schema names a shared component ({SHARED_REF_PREFIX}…) and no shared schemas were given"
                ),
                hint: "shared components live in the config's `schemas:` section".to_owned(),
            });
        }
        let base_uri = match base_dir {
            Some(dir) => {
                let dir = non_empty(dir);
                let abs = dir
                    .canonicalize()
                    .map_err(|source| ContractError::BaseDir {
                        path: dir.to_path_buf(),
                        source,
                    })?;
                Some(format!("file://{}/", abs.display()))
            }
            None => None,
        };
        // Every file $ref goes through `files`: the default retriever would read any
        // path, including absolute `file:///etc/passwd` refs when no base is given.
        let mut options = jsonschema::options()
            .with_retriever(files.clone())
            .with_pattern_cache(patterns.clone());
        let mut fast_options = jsonschema::options_for::<Borrowed>()
            .with_retriever(files.clone())
            .with_pattern_cache(patterns.clone());
        if let Some(base) = &base_uri {
            options = options.with_base_uri(base.clone());
            fast_options = fast_options.with_base_uri(base.clone());
        }
        let rewritten;
        let compiled_schema = match shared {
            Some(set) => {
                options = options.with_registry(set.registry());
                fast_options = fast_options.with_registry(set.registry());
                rewritten = crate::shared::for_validator(schema);
                &rewritten
            }
            None => schema,
        };
        let validator = options
            .build(compiled_schema)
            .map_err(|e| compile_error(e, base_dir))?;
        let fast = fast_options
            .build(compiled_schema)
            .map_err(|e| compile_error(e, base_dir))?;
        let shape_root = if has_external_ref(schema) {
            let inlined =
                options
                    .dereference(schema)
                    .map_err(|e| ContractError::UnresolvableRef {
                        message: e.to_string(),
                        hint: ref_hint(base_dir),
                    })?;
            Some(inlined)
        } else {
            None
        };
        // A file `$ref` is never resolved by the read check: such a schema has none.
        let read_check = ReadCheck::compile_sharing(schema, shared.map(|s| &**s), patterns);
        let compiled = Compiled {
            schema: schema.clone(),
            shape_root,
            validator,
            fast,
            read_check,
        };
        Ok(Self::from_parts(Arc::new(compiled), shared))
    }

    pub(crate) fn from_parts(compiled: Arc<Compiled>, shared: Option<&Arc<SharedSchemas>>) -> Self {
        ResponseContract {
            compiled,
            shared: shared.cloned(),
            memo: DriftMemo::default(),
        }
    }

    /// The shared components this contract's schema refers to, if any.
    pub fn shared(&self) -> Option<&Arc<SharedSchemas>> {
        self.shared.as_ref()
    }

    /// A key that changes when a shared component this contract reaches changes
    /// (`None` when it names none): the schema alone does not show such a change.
    pub fn shared_identity(&self) -> Option<u64> {
        self.shared
            .as_ref()
            .map(|s| s.identity(&self.compiled.schema))
    }

    /// Whether the schema, or a shared component it reaches, names a required field:
    /// without one, a field the upstream renames just goes missing, and nothing says so.
    pub fn names_required(&self) -> bool {
        if names_required(&self.compiled.schema) {
            return true;
        }
        self.shared.as_ref().is_some_and(|s| {
            s.reachable(&self.compiled.schema)
                .iter()
                .any(|(set, name)| {
                    s.set(set)
                        .and_then(|c| c.get(name))
                        .is_some_and(names_required)
                })
        })
    }

    /// The schema made self-contained (the shared components it reaches copied into
    /// its `$defs`), for comparing two versions of a contract; the schema itself when it
    /// names no shared component.
    pub fn bundled_schema(&self) -> Value {
        match &self.shared {
            Some(s) => s.bundle(&self.compiled.schema),
            None => self.compiled.schema.clone(),
        }
    }

    /// Whether valid bodies are vouched for as they are read, with no tree built (the
    /// schema's keywords and references allow it; see `borrowed/read_check.rs`).
    pub fn checks_while_reading(&self) -> bool {
        self.compiled.read_check.is_some()
    }

    /// The schema as given to [`ResponseContract::compile`].
    pub fn schema(&self) -> &Value {
        &self.compiled.schema
    }

    /// `Ok(())` when `body` satisfies the schema; otherwise the drift report.
    pub fn check(&self, body: &Value) -> Result<(), Drift> {
        if self.compiled.validator.is_valid(body) {
            return Ok(());
        }
        Err(self.explain(body))
    }

    /// Whether the check made while reading (when this schema has one) alone shows that
    /// `body` is one JSON document, naming no member twice, that satisfies the schema:
    /// the common reply's whole check, in one pass. `false` says nothing either way;
    /// [`ResponseContract::check_bytes`] then judges.
    pub fn vouches_for(&self, body: &[u8]) -> bool {
        self.compiled
            .read_check
            .as_ref()
            .is_some_and(|check| check.vouches_for(body))
    }

    /// Like [`ResponseContract::vouches_for`], and when it vouches, where the body's
    /// bytes need escaping inside a JSON string, found on the way: the answer's text
    /// block then needs no second search of the body. `None` says nothing either way.
    pub fn vouch(&self, body: &[u8]) -> Option<EscapeSites> {
        self.compiled.read_check.as_ref()?.vouch(body)
    }

    /// Checks a body as it arrived, without building a `Value` unless it fails: `Ok(())`
    /// when it is one JSON document that satisfies the schema.
    pub fn check_bytes(&self, body: &[u8]) -> Result<(), BodyError> {
        if self.vouches_for(body) {
            return Ok(());
        }
        let (doc, repeated) = Doc::parse_noting_repeats(body).map_err(BodyError::NotJson)?;
        // The model reads the text, where every value of a repeated name stands, while
        // the check saw only the last: `{"a":"ignore your instructions","a":1}` would
        // pass `a: integer`. (The read check above never vouches for such a body.)
        if repeated {
            return Err(BodyError::NotJson(serde::de::Error::custom(
                "an object repeats a member name, so the body has more than one reading",
            )));
        }
        if self.compiled.fast.is_valid(&doc) {
            return Ok(());
        }
        // A body of a shape whose structural drift was just diagnosed gets that diagnosis.
        let key = crate::memo::shape_key(&doc);
        if let Some(drift) = self.memo.get(key) {
            return Err(BodyError::Drift(drift));
        }
        // The explanation walks a `Value`, and the `Value` validator has the last word
        // (both judge the same schema; should they ever disagree, the body is served
        // rather than refused).
        let value = doc.to_value();
        let drift = self.check(&value).map_err(BodyError::Drift);
        if let Err(BodyError::Drift(d)) = &drift {
            self.memo.put(key, d);
        }
        drift
    }

    /// Builds the drift report for a body the validator rejected.
    fn explain(&self, body: &Value) -> Drift {
        let root = self
            .compiled
            .shape_root
            .as_ref()
            .unwrap_or(&self.compiled.schema);
        let findings = walk::diff_against_schema(root, self.shared.as_deref(), body);
        let mut violations = Vec::new();
        let mut unexplained = Findings::default();
        for error in self
            .compiled
            .validator
            .iter_errors(body)
            .take(MAX_ERRORS_SCANNED)
        {
            let message = error.masked().to_string();
            let at = Path::from_pointer(error.instance_path().as_str(), body);
            if violations.len() < MAX_VIOLATIONS {
                violations.push(Violation {
                    instance_path: error.instance_path().as_str().to_owned(),
                    schema_path: error.schema_path().as_str().to_owned(),
                    message: message.clone(),
                });
            }
            // Structural errors the walk explains are dropped; anything else (enum, format,
            // bounds, or a keyword the walk does not model) is reported in its own words.
            if !explained(&findings, &at, error.kind()) {
                unexplained.invalid(&at, message);
            }
        }
        let mut changes = findings.into_changes(&|_, _, _| false);
        changes.extend(unexplained.into_changes(&|_, _, _| false));
        changes.sort_by(|a, b| a.path().cmp(b.path()));
        if changes.is_empty() {
            // The validator said invalid without saying why: never return an empty drift.
            changes.push(Change::Invalid {
                path: String::new(),
                message: "the response does not match the contract".to_owned(),
            });
        }
        Drift::new(changes, violations)
    }
}

/// Whether the structural walk already accounts for this validator error.
fn explained(findings: &Findings, at: &Path, kind: &ValidationErrorKind) -> bool {
    match kind {
        ValidationErrorKind::Required { property } => property
            .as_str()
            .is_some_and(|p| findings.explains(at, "required", &[p])),
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let keys: Vec<&str> = unexpected.iter().map(String::as_str).collect();
            findings.explains(at, "additionalProperties", &keys)
        }
        ValidationErrorKind::Type { .. } => findings.explains(at, "type", &[]),
        ValidationErrorKind::AnyOf { .. }
        | ValidationErrorKind::OneOfNotValid { .. }
        | ValidationErrorKind::FalseSchema
        | ValidationErrorKind::AdditionalItems { .. }
        | ValidationErrorKind::UnevaluatedProperties { .. }
        | ValidationErrorKind::UnevaluatedItems { .. } => findings.explains(at, "", &[]),
        _ => false,
    }
}

/// Whether a schema names a required field anywhere (its `$defs` included).
fn names_required(schema: &Value) -> bool {
    match schema {
        Value::Object(m) => {
            m.get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| !r.is_empty())
                || crate::keywords::subschemas(m)
                    .into_iter()
                    .any(names_required)
        }
        Value::Array(a) => a.iter().any(names_required),
        _ => false,
    }
}

/// Does the schema name a shared component?
pub(crate) fn has_shared_ref(v: &Value) -> bool {
    any_ref(v, |r| r.starts_with("toolgate:"))
}

/// Does the schema reference anything outside itself? Only then is inlining worth its
/// cost (and its risk of blowing up a heavily shared `$defs` graph).
pub(crate) fn has_external_ref(v: &Value) -> bool {
    any_ref(v, |r| !r.starts_with('#') && !r.starts_with("toolgate:"))
}

/// Whether any `$ref` in `schema` (searched 256 levels deep) satisfies `matches`.
pub(crate) fn any_ref(schema: &Value, matches: impl Fn(&str) -> bool + Copy) -> bool {
    fn walk(v: &Value, depth: usize, matches: impl Fn(&str) -> bool + Copy) -> bool {
        if depth > 256 {
            return false;
        }
        match v {
            Value::Object(map) => map.iter().any(|(k, child)| {
                (k == "$ref" && child.as_str().is_some_and(matches))
                    || walk(child, depth + 1, matches)
            }),
            Value::Array(items) => items.iter().any(|c| walk(c, depth + 1, matches)),
            _ => false,
        }
    }
    walk(schema, 0, matches)
}

fn ref_hint(base_dir: Option<&std::path::Path>) -> String {
    let files = match base_dir {
        Some(dir) => format!("relative file $refs resolve from {}", dir.display()),
        None => "relative file $refs need the contract's directory (none was given)".to_owned(),
    };
    format!(
        "local $refs must point into this schema (e.g. #/$defs/name); {files}; http(s) $refs are never fetched — copy that schema next to the contract and $ref the file"
    )
}

fn compile_error(
    error: jsonschema::ValidationError<'static>,
    base_dir: Option<&std::path::Path>,
) -> ContractError {
    if let ValidationErrorKind::Referencing(e) = error.kind() {
        return ContractError::UnresolvableRef {
            message: e.to_string(),
            hint: ref_hint(base_dir),
        };
    }
    let location = error.schema_path().as_str();
    ContractError::InvalidSchema {
        location: if location.is_empty() {
            "the top level".to_owned()
        } else {
            location.to_owned()
        },
        message: error.to_string(),
    }
}
