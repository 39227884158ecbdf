//! Component schemas shared by many contracts: an imported API's `components` written
//! once (the config's `schemas:` section) instead of copied into every tool's `$defs`.
//!
//! A contract names a component as `toolgate:schemas/<set>/<name>` (optionally with a
//! JSON pointer fragment into it). Every component is one resource of a single
//! `jsonschema` registry, built once, so every validator compiles against the same
//! resources; the structural walk (drift diagnosis, renames) resolves the same references
//! through [`SharedSchemas::lookup`]. Components refer to each other only by that
//! absolute form: a `#` reference inside a component would mean one thing to the
//! validator (the component) and could be misread elsewhere, and a file `$ref` would
//! read a file the tools' own path rules never saw, so both are refused.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{Hash, Hasher};

use std::sync::{Arc, Mutex};

use jsonschema::{Draft, PatternCache, Registry, Validator};
use serde_json::{Map, Value, json};

use crate::borrowed::Borrowed;
use crate::files::SchemaFiles;

/// What every shared-component reference starts with.
pub const SHARED_REF_PREFIX: &str = "toolgate:schemas/";

/// How deep a component is searched for references; deeper nesting is refused.
const MAX_DEPTH: usize = 128;

/// One problem in the shared schemas, at a config path (`schemas.stripe.customer`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedSchemaError {
    /// Where, as a config path below `schemas`.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// What to change.
    pub hint: String,
}

/// The component schemas of every set, compiled into one registry.
pub struct SharedSchemas {
    sets: BTreeMap<String, BTreeMap<String, Value>>,
    /// The components each component refers to directly.
    edges: HashMap<(String, String), Vec<(String, String)>>,
    /// A hash of each component's own text, for [`SharedSchemas::identity`].
    hashes: HashMap<(String, String), u64>,
    registry: Registry<'static>,
    /// Validators of component subschemas that read checks hand to `jsonschema`, by the
    /// subschema's reference: compiled once for every contract that reaches them.
    read_delegates: Mutex<HashMap<String, Arc<Validator<Borrowed>>>>,
    /// Every `pattern` the config's schemas name, compiled once: a regular expression
    /// such as AWS's `^arn:.{16,2044}$` takes megabytes compiled, and one API's
    /// descriptions repeat the same few in hundreds of schemas.
    patterns: PatternCache,
}

impl std::fmt::Debug for SharedSchemas {
    // The sets can be megabytes: a debug rendering names their sizes only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedSchemas")
            .field("sets", &self.sets.len())
            .field("components", &self.hashes.len())
            .finish()
    }
}

/// A parsed `toolgate:schemas/<set>/<name>#<pointer>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedRef<'r> {
    /// The set (an API's name).
    pub set: &'r str,
    /// The component in the set.
    pub name: &'r str,
    /// A JSON pointer into the component (empty: the component itself).
    pub pointer: &'r str,
}

/// Reads a shared-component reference; `None` for any other kind of `$ref`, and for a
/// malformed one (which [`SharedSchemas::check_refs`] reports).
pub fn parse_ref(reference: &str) -> Option<SharedRef<'_>> {
    let rest = reference.strip_prefix(SHARED_REF_PREFIX)?;
    let (path, pointer) = rest.split_once('#').unwrap_or((rest, ""));
    let (set, name) = path.split_once('/')?;
    if !valid_name(set) || !valid_name(name) || !(pointer.is_empty() || pointer.starts_with('/')) {
        return None;
    }
    Some(SharedRef { set, name, pointer })
}

/// The reference to component `name` of `set`.
pub fn ref_to(set: &str, name: &str) -> String {
    format!("{SHARED_REF_PREFIX}{set}/{name}")
}

/// Names of sets and components: what a URI path segment holds without escaping.
pub fn valid_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 200
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

impl SharedSchemas {
    /// Checks and compiles `sets` (set name → component name → schema). Every problem
    /// is reported, each at its own path.
    pub fn new(
        sets: BTreeMap<String, BTreeMap<String, Value>>,
    ) -> Result<SharedSchemas, Vec<SharedSchemaError>> {
        let mut errors = Vec::new();
        let mut edges = HashMap::new();
        let mut hashes = HashMap::new();
        for (set, components) in &sets {
            if !valid_name(set) {
                errors.push(SharedSchemaError {
                    path: format!("schemas.{set}"),
                    message: format!("`{set}` is not a usable set name"),
                    hint: "use letters, digits, `_`, `-` and `.` only".into(),
                });
                continue;
            }
            for (name, schema) in components {
                let Some(path) = checked_component(set, name, schema, &mut errors) else {
                    continue;
                };
                let direct = direct_refs(&sets, set, schema, &path, &mut errors);
                let key = (set.clone(), name.clone());
                edges.insert(key.clone(), direct.into_iter().collect());
                hashes.insert(key, text_hash(schema));
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let registry = compiled_registry(&sets)?;
        Ok(SharedSchemas {
            sets,
            edges,
            hashes,
            registry,
            read_delegates: Mutex::default(),
            patterns: PatternCache::new(),
        })
    }

    /// The validator of the component subschema `reference` names, compiled against the
    /// registry the first time a read check asks for it.
    pub(crate) fn read_delegate(&self, reference: &str) -> Option<Arc<Validator<Borrowed>>> {
        let mut cache = self
            .read_delegates
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(found) = cache.get(reference) {
            return Some(found.clone());
        }
        let validator = jsonschema::options_for::<Borrowed>()
            .with_registry(&self.registry)
            .with_pattern_cache(self.patterns.clone())
            .build(&json!({ "$ref": reference }))
            .ok()?;
        let validator = Arc::new(validator);
        cache.insert(reference.to_owned(), validator.clone());
        Some(validator)
    }

    /// Where the regular expressions of every schema compiled against these components
    /// are kept, compiled once each.
    pub fn patterns(&self) -> &PatternCache {
        &self.patterns
    }

    /// No sets at all.
    pub fn empty() -> SharedSchemas {
        SharedSchemas::new(BTreeMap::new()).expect("no components, no errors")
    }

    /// Whether there are no components.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The registry every validator compiles against.
    pub(crate) fn registry(&self) -> &Registry<'static> {
        &self.registry
    }

    /// The component (or the node inside it) a shared reference names.
    pub fn lookup(&self, reference: &str) -> Option<&Value> {
        let r = parse_ref(reference)?;
        let component = self.sets.get(r.set)?.get(r.name)?;
        if r.pointer.is_empty() {
            Some(component)
        } else {
            component.pointer(&decode_pointer(r.pointer))
        }
    }

    /// The components of one set.
    pub fn set(&self, set: &str) -> Option<&BTreeMap<String, Value>> {
        self.sets.get(set)
    }

    /// Problems with the shared references of a contract's schema (a component that does
    /// not exist), each a sentence naming the reference.
    pub fn check_refs(&self, schema: &Value) -> Vec<String> {
        let mut found = Vec::new();
        let mut problems = Vec::new();
        collect_refs(schema, 0, &mut found, &mut Vec::new());
        for r in found {
            if !r.starts_with("toolgate:") {
                continue;
            }
            match parse_ref(&r) {
                Some(_) if self.lookup(&r).is_some() => {}
                Some(t) => problems.push(format!(
                    "`$ref: {r}` names no component: schemas.{} has no `{}`{}",
                    t.set,
                    t.name,
                    if t.pointer.is_empty() { "" } else { " (or nothing at that pointer)" }
                )),
                None => problems.push(format!(
                    "`$ref: {r}` is not a shared-component reference ({SHARED_REF_PREFIX}<set>/<name>)"
                )),
            }
        }
        problems
    }

    /// The components `schema` reaches, directly or through other components, sorted.
    pub fn reachable(&self, schema: &Value) -> Vec<(String, String)> {
        let mut found = Vec::new();
        collect_refs(schema, 0, &mut found, &mut Vec::new());
        let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
        let mut work: Vec<(String, String)> = found
            .iter()
            .filter_map(|r| parse_ref(r))
            .map(|t| (t.set.to_owned(), t.name.to_owned()))
            .collect();
        while let Some(key) = work.pop() {
            if !self.hashes.contains_key(&key) || !seen.insert(key.clone()) {
                continue;
            }
            if let Some(next) = self.edges.get(&key) {
                work.extend(next.iter().filter(|k| !seen.contains(*k)).cloned());
            }
        }
        seen.into_iter().collect()
    }

    /// A key that changes when `schema` or any component it reaches changes: what a
    /// reload compares to tell a changed contract from a kept one.
    pub fn identity(&self, schema: &Value) -> u64 {
        let mut h = DefaultHasher::new();
        schema.to_string().hash(&mut h);
        for key in self.reachable(schema) {
            key.hash(&mut h);
            self.hashes.get(&key).hash(&mut h);
        }
        h.finish()
    }

    /// `schema` made self-contained: every component it reaches copied into its `$defs`
    /// (as `<set>.<name>`) and its shared references pointed there. For comparing two
    /// versions of a contract and for tools that need one document; never kept per tool
    /// at run time.
    pub fn bundle(&self, schema: &Value) -> Value {
        let reached = self.reachable(schema);
        if reached.is_empty() {
            return schema.clone();
        }
        let mut defs = Map::new();
        for (set, name) in &reached {
            let c = &self.sets[set][name];
            defs.insert(format!("{set}.{name}"), localise(c, 0));
        }
        match localise(schema, 0) {
            Value::Object(mut m) => {
                let own = m.remove("$defs");
                if let Some(Value::Object(own)) = own {
                    for (k, v) in own {
                        defs.entry(k).or_insert(v);
                    }
                }
                m.insert("$defs".into(), Value::Object(defs));
                Value::Object(m)
            }
            other => json!({ "allOf": [other], "$defs": defs }),
        }
    }

    /// `schema` for a reader that cannot follow shared references (the `outputSchema`
    /// a client sees): a root that is one shared reference is replaced by its component,
    /// and every shared reference left becomes a schema that only names the component
    /// (and its type, when it has one). The contract itself stays whole.
    pub fn summarise(&self, schema: &Value) -> Value {
        let mut root = schema.clone();
        for _ in 0..8 {
            let Some(r) = bare_ref(&root) else { break };
            let Some(target) = self.lookup(r) else { break };
            root = target.clone();
        }
        summarise_refs(self, &root, 0)
    }
}

/// `schema` with every `toolgate:schemas/<set>/<name>#<pointer>` written the way the
/// registry holds it: `toolgate:schemas/<set>#/$defs/<name><pointer>`.
pub(crate) fn for_validator(v: &Value) -> Value {
    rewrite(v, 0)
}

/// Component `name` of `set` checked for a usable name, a schema's shape and the
/// meta-schema, each problem added to `errors`: its config path, or `None` when it
/// cannot be read further.
fn checked_component(
    set: &str,
    name: &str,
    schema: &Value,
    errors: &mut Vec<SharedSchemaError>,
) -> Option<String> {
    let path = format!("schemas.{set}.{name}");
    if !valid_name(name) {
        errors.push(SharedSchemaError {
            path,
            message: format!("`{name}` is not a usable component name"),
            hint: "use letters, digits, `_`, `-` and `.` only".into(),
        });
        return None;
    }
    if !matches!(schema, Value::Object(_) | Value::Bool(_)) {
        errors.push(SharedSchemaError {
            path,
            message: "a component must be a JSON Schema (an object or a boolean)".into(),
            hint: "write the schema as a mapping".into(),
        });
        return None;
    }
    if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
        errors.push(SharedSchemaError {
            path: path.clone(),
            message: format!(
                "not valid JSON Schema (at {}): {e}",
                match e.instance_path().as_str() {
                    "" => "the top level",
                    p => p,
                }
            ),
            hint: "fix that keyword so the component validates against the JSON Schema 2020-12 meta-schema".into(),
        });
    }
    Some(path)
}

/// The components a component of `set` (at config `path`) refers to directly; each
/// reference that names no component, or nothing inside one, added to `errors`.
fn direct_refs(
    sets: &BTreeMap<String, BTreeMap<String, Value>>,
    set: &str,
    schema: &Value,
    path: &str,
    errors: &mut Vec<SharedSchemaError>,
) -> BTreeSet<(String, String)> {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    collect_refs(schema, 0, &mut found, &mut problems);
    let mut direct = BTreeSet::new();
    for r in found {
        match parse_ref(&r) {
            Some(t) if sets.get(t.set).is_some_and(|s| s.contains_key(t.name)) => {
                if !t.pointer.is_empty()
                    && sets[t.set][t.name]
                        .pointer(&decode_pointer(t.pointer))
                        .is_none()
                {
                    problems.push(format!("`$ref: {r}` points at nothing inside that component"));
                }
                direct.insert((t.set.to_owned(), t.name.to_owned()));
            }
            Some(t) => problems.push(format!(
                "`$ref: {r}` names no component: schemas.{} has no `{}`",
                t.set, t.name
            )),
            None => problems.push(format!(
                "`$ref: {r}`: inside a shared component a $ref names another component as {SHARED_REF_PREFIX}<set>/<name>"
            )),
        }
    }
    for message in problems {
        errors.push(SharedSchemaError {
            path: path.to_owned(),
            message,
            hint: format!(
                "add the component, or point the $ref at an existing one ({SHARED_REF_PREFIX}{set}/<name>)"
            ),
        });
    }
    direct
}

/// The registry every contract compiles against.
///
/// One resource per set, the components under its `$defs`: a validator moving from
/// component to component stays inside one resource, which keeps the compiler's cache
/// of already compiled nodes effective (with a resource per component, every path
/// through a dense graph was compiled anew).
fn compiled_registry(
    sets: &BTreeMap<String, BTreeMap<String, Value>>,
) -> Result<Registry<'static>, Vec<SharedSchemaError>> {
    let resources = sets.iter().map(|(set, components)| {
        let defs: Map<String, Value> = components
            .iter()
            .map(|(name, schema)| (name.clone(), for_validator(schema)))
            .collect();
        (
            format!("{SHARED_REF_PREFIX}{set}"),
            json!({ "$defs": defs }),
        )
    });
    Registry::new()
        .draft(Draft::Draft202012)
        .retriever(SchemaFiles::none())
        .extend(resources)
        .and_then(|b| b.prepare())
        .map_err(|e| {
            vec![SharedSchemaError {
                path: "schemas".into(),
                message: format!("the shared schemas cannot be compiled: {e}"),
                hint: "fix the component the message names".into(),
            }]
        })
}

fn rewrite(v: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return v.clone();
    }
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, c)| {
                    if k == "$ref"
                        && let Some(t) = c.as_str().and_then(parse_ref)
                    {
                        let target = format!(
                            "{SHARED_REF_PREFIX}{}#/$defs/{}{}",
                            t.set, t.name, t.pointer
                        );
                        return (k.clone(), Value::String(target));
                    }
                    if crate::keywords::holds_data(k) {
                        return (k.clone(), c.clone());
                    }
                    // A name's schema, not the map itself: its keys are names.
                    if crate::keywords::maps_names(k)
                        && let Value::Object(named) = c
                    {
                        let named = named
                            .iter()
                            .map(|(n, s)| (n.clone(), rewrite(s, depth + 1)))
                            .collect();
                        return (k.clone(), Value::Object(named));
                    }
                    (k.clone(), rewrite(c, depth + 1))
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|c| rewrite(c, depth + 1)).collect()),
        other => other.clone(),
    }
}

/// The `$ref` of a schema that is nothing but one.
fn bare_ref(v: &Value) -> Option<&str> {
    let m = v.as_object()?;
    if m.len() != 1 {
        return None;
    }
    m.get("$ref")?.as_str()
}

fn summarise_refs(shared: &SharedSchemas, v: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Bool(true);
    }
    match v {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(Value::as_str)
                && let Some(t) = parse_ref(r)
            {
                let mut out = Map::new();
                out.insert("title".into(), json!(t.name));
                if let Some(ty) = shared
                    .lookup(r)
                    .and_then(|c| c.get("type"))
                    .filter(|t| t.is_string())
                {
                    out.insert("type".into(), ty.clone());
                }
                return Value::Object(out);
            }
            Value::Object(
                m.iter()
                    .map(|(k, c)| (k.clone(), summarise_refs(shared, c, depth + 1)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|c| summarise_refs(shared, c, depth + 1))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Shared references pointed at the bundle's `$defs` (see [`SharedSchemas::bundle`]).
fn localise(v: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Bool(true);
    }
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, c)| {
                    if k == "$ref"
                        && let Some(t) = c.as_str().and_then(parse_ref)
                    {
                        return (
                            k.clone(),
                            json!(format!("#/$defs/{}.{}{}", t.set, t.name, t.pointer)),
                        );
                    }
                    (k.clone(), localise(c, depth + 1))
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|c| localise(c, depth + 1)).collect()),
        other => other.clone(),
    }
}

/// Every `$ref` string in `v`; `problems` gets a sentence for each one a component
/// may not hold (`#` and file references) and for nesting too deep to search.
fn collect_refs(v: &Value, depth: usize, found: &mut Vec<String>, problems: &mut Vec<String>) {
    if depth > MAX_DEPTH {
        problems.push(format!("nested deeper than {MAX_DEPTH} levels"));
        return;
    }
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                if r.starts_with(SHARED_REF_PREFIX) || r.starts_with("toolgate:") {
                    found.push(r.clone());
                } else {
                    problems.push(format!(
                        "`$ref: {r}`: inside a shared component a $ref names another component as {SHARED_REF_PREFIX}<set>/<name>"
                    ));
                }
            }
            for c in crate::keywords::subschemas(m) {
                collect_refs(c, depth + 1, found, problems);
            }
        }
        Value::Array(items) => {
            for c in items {
                collect_refs(c, depth + 1, found, problems);
            }
        }
        _ => {}
    }
}

/// A JSON pointer from a URI fragment (`%25` → `%`).
fn decode_pointer(p: &str) -> String {
    crate::fragment::percent_decode(p)
}

fn text_hash(v: &Value) -> u64 {
    let mut h = DefaultHasher::new();
    v.to_string().hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests;
