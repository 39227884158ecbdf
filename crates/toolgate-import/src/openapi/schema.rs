//! Swagger 2.0 / OpenAPI 3.0 / 3.1 schemas → JSON Schema 2020-12.
//!
//! Every `$ref` to a named schema becomes `#/$defs/<name>` inside the generated
//! document, with the definition converted once: recursive schemas stay finite, and a
//! component used by many operations reads the same everywhere. `readOnly` properties
//! are dropped from request schemas and `writeOnly` ones from response schemas, where
//! the other side never sends them.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::refs::{Refs, Target};

/// Which generation of the spec a schema is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Swagger 2.0 (`x-nullable`, `type: file`, `definitions`).
    Swagger2,
    /// OpenAPI 3.0.x (`nullable`, boolean `exclusiveMinimum`).
    Oas30,
    /// OpenAPI 3.1.x (JSON Schema 2020-12 already, `$ref` siblings allowed).
    Oas31,
}

/// Which side of the exchange the schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// What the client sends: `readOnly` properties are left out.
    Request,
    /// What the server answers: `writeOnly` properties are left out.
    Response,
}

/// Nesting depth beyond which a schema is accepted as anything rather than followed.
const MAX_DEPTH: usize = 48;

/// The most `allOf` branches looked into for the members they hide, per schema.
const MAX_BRANCHES_LOOKED_AT: usize = 256;

/// Keywords copied as they are (after their sub-schemas are converted elsewhere).
const PLAIN: &[&str] = &[
    "type",
    "enum",
    "const",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "required",
    "default",
    "contentEncoding",
    "contentMediaType",
    "dependentRequired",
    "minContains",
    "maxContains",
];

/// Keywords holding one sub-schema.
const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
];

/// A named schema held where it lies: its name, file, document and pointer.
type Named = (String, PathBuf, Arc<Value>, String);

/// What converting one named schema did: the result, the warnings it gave (`true`
/// for one given once per document) and the named schemas it referred to, in order.
#[derive(Debug)]
struct Conversion {
    value: Value,
    warnings: Vec<(String, bool)>,
    refers: Vec<Named>,
}

/// Named schemas converted by the converters of one import, for the next converter
/// that meets one: each tool's input schema carries its own `$defs`, and converting
/// them anew for every tool converts an API whose components reach each other once
/// per operation. Replaying a conversion gives what converting again would.
#[derive(Debug, Default)]
pub struct Conversions {
    done: HashMap<(Side, String), Conversion>,
    /// Conversions made (not replayed), for tests holding the count to the number of
    /// definitions.
    #[cfg(test)]
    pub(crate) made: usize,
}

/// One conversion: a tool's request or response schema and the definitions it uses.
#[derive(Debug)]
pub struct Converter<'a> {
    refs: &'a mut Refs,
    dialect: Dialect,
    side: Side,
    defs: BTreeMap<String, Value>,
    /// Named schemas referenced and not converted yet: converted one after another by
    /// `drain`, each from depth 0, so a long chain of references neither nests the
    /// conversion (the stack) nor depends on where the chain was entered. Each is
    /// held as its document and pointer: converted in place, never copied.
    queue: Vec<Named>,
    pending: HashSet<String>,
    /// Definitions converted since the last look for `$ref` loops: a loop among older
    /// ones was found then, so only these need following (a whole import's shared set
    /// is not walked again for every operation).
    fresh: Vec<String>,
    /// Problems met (unresolvable `$ref`s); the schema is weakened there, not refused.
    pub warnings: Vec<String>,
    /// Conversions shared with the import's other converters.
    conversions: Option<&'a mut Conversions>,
    /// What the named schema being converted does, while `conversions` is kept.
    log: Option<Conversion>,
}

impl<'a> Converter<'a> {
    /// A converter for one document.
    pub fn new(refs: &'a mut Refs, dialect: Dialect, side: Side) -> Self {
        Converter {
            refs,
            dialect,
            side,
            defs: BTreeMap::new(),
            queue: Vec::new(),
            pending: HashSet::new(),
            fresh: Vec::new(),
            warnings: Vec::new(),
            conversions: None,
            log: None,
        }
    }

    /// Converts each named schema once for all the converters sharing `conversions`.
    pub fn sharing(mut self, conversions: &'a mut Conversions) -> Self {
        self.conversions = Some(conversions);
        self
    }

    /// Converts `schema` (found in `file`) as the root of a document: a root that is a
    /// bare `$ref` is replaced by its definition, and `$defs` holds what is referenced.
    pub fn root(mut self, file: &Path, schema: &Value) -> (Value, Vec<String>) {
        let mut converted = self.convert(file, schema, 0);
        self.drain();
        self.break_ref_cycles();
        if let Some(name) = bare_def_ref(&converted)
            && let Some(def) = self.defs.get(&name)
        {
            // A recursive root still refers to itself through `$defs`; otherwise the
            // definition now lives at the root only.
            converted = def.clone();
            let target = format!("#/$defs/{name}");
            let used = holds_string(&converted, &target)
                || self
                    .defs
                    .iter()
                    .any(|(k, v)| *k != name && holds_string(v, &target));
            if !used {
                self.defs.remove(&name);
            }
        }
        let converted = self.attach(converted);
        (converted, self.warnings)
    }

    /// Converts `schema` (found in `file`) with its named schemas going to `shared`
    /// instead of the document's `$defs`: one set for a whole import, each named schema
    /// converted once however many schemas refer to it. The result refers to them as
    /// `#/$defs/<name>`; the caller points those references at wherever the set is kept.
    pub fn shared_root(
        mut self,
        shared: &mut BTreeMap<String, Value>,
        file: &Path,
        schema: &Value,
    ) -> (Value, Vec<String>) {
        self.defs = std::mem::take(shared);
        let converted = self.convert(file, schema, 0);
        self.drain();
        self.break_ref_cycles();
        *shared = std::mem::take(&mut self.defs);
        (converted, self.warnings)
    }

    /// Converts the named schemas referenced so far, and those they reference.
    fn drain(&mut self) {
        while let Some((name, file, doc, pointer)) = self.queue.pop() {
            let key = (self.side, name.clone());
            let done = self.conversions.as_ref().and_then(|c| c.done.get(&key));
            let converted = if let Some(done) = done {
                let value = done.value.clone();
                let warnings = done.warnings.clone();
                let refers = done.refers.clone();
                for (note, once) in warnings {
                    if once {
                        self.warn_once(note);
                    } else {
                        self.warnings.push(note);
                    }
                }
                for (n, f, d, p) in refers {
                    self.enqueue(n, f, d, p);
                }
                value
            } else {
                let target = Target::In(doc, pointer);
                if self.conversions.is_some() {
                    self.log = Some(Conversion {
                        value: Value::Null,
                        warnings: Vec::new(),
                        refers: Vec::new(),
                    });
                }
                let converted = self.convert(&file, target.get(), 0);
                if let (Some(conversions), Some(mut log)) =
                    (self.conversions.as_deref_mut(), self.log.take())
                {
                    log.value = converted.clone();
                    conversions.done.insert(key, log);
                    #[cfg(test)]
                    {
                        conversions.made += 1;
                    }
                }
                converted
            };
            self.pending.remove(&name);
            self.fresh.push(name.clone());
            self.defs.insert(name, converted);
        }
    }

    /// Converts a sub-schema that will be placed inside a document built by the caller
    /// (an `inputSchema` property); the definitions are returned by [`Converter::finish`].
    pub fn part(&mut self, file: &Path, schema: &Value) -> Value {
        self.convert(file, schema, 0)
    }

    /// The resolver, for lookups between conversions.
    pub fn refs_mut(&mut self) -> &mut Refs {
        self.refs
    }

    /// The definitions collected by [`Converter::part`] calls, and the warnings.
    pub fn finish(mut self) -> (BTreeMap<String, Value>, Vec<String>) {
        self.drain();
        self.break_ref_cycles();
        (self.defs, self.warnings)
    }

    /// Definitions that are only `$ref`s to each other in a loop (`A: {$ref: B}`,
    /// `B: {$ref: A}`) describe nothing, and a validator would follow them forever:
    /// they accept anything instead.
    fn break_ref_cycles(&mut self) {
        let fresh = std::mem::take(&mut self.fresh);
        break_ref_loops(&mut self.defs, fresh, &mut self.warnings);
    }

    fn attach(&mut self, converted: Value) -> Value {
        if self.defs.is_empty() {
            return converted;
        }
        let defs = Value::Object(std::mem::take(&mut self.defs).into_iter().collect());
        match converted {
            Value::Object(mut m) => {
                m.insert("$defs".into(), defs);
                Value::Object(m)
            }
            // `true` with definitions: an empty object schema means the same.
            other => json!({ "allOf": [other], "$defs": defs }),
        }
    }

    fn convert(&mut self, file: &Path, schema: &Value, depth: usize) -> Value {
        let Value::Object(s) = schema else {
            return match schema {
                Value::Bool(_) => schema.clone(),
                _ => Value::Bool(true),
            };
        };
        if depth > MAX_DEPTH {
            return Value::Bool(true);
        }
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            return self.convert_ref(file, s, r, depth);
        }
        let mut out = self.plain_keywords(s);
        self.describe(s, &mut out);
        if s.get("type").and_then(Value::as_str) == Some("file") {
            out.insert("type".into(), json!("string"));
            out.insert("contentEncoding".into(), json!("base64"));
        }
        exclusive_bounds(s, &mut out);
        self.convert_properties(file, s, depth, &mut out);
        if let Some(Value::Array(req)) = out.get("required")
            && req.is_empty()
        {
            out.remove("required");
        }
        self.convert_subschemas(file, s, depth, &mut out);
        self.unrequire_hidden_in_branches(file, s, &mut out);
        // An enum AutoRest models as a string (`x-ms-enum: {modelAsString: true}`, as
        // most of Azure's are) lists the values known when the description was
        // written, not every one the service will send: a new provisioning state or
        // unit arrives without a new description. A response's value outside the list
        // is no drift; a request keeps the list, which tells the model what to send.
        if self.side == Side::Response && is_open_enum(s) {
            out.remove("enum");
        }
        scalar_enum_to_items(&mut out);
        self.convert_schema_lists(file, s, depth, &mut out);
        self.convert_branches(file, s, depth, &mut out);
        let out = Value::Object(out);
        if self.nullable(s) {
            with_null(out)
        } else {
            out
        }
    }

    /// A schema that is a `$ref`: the shared definition, with (in 3.1) what its
    /// siblings add.
    fn convert_ref(&mut self, file: &Path, s: &Map<String, Value>, r: &str, depth: usize) -> Value {
        let target = self.reference(file, r);
        // Before 3.1, siblings of `$ref` are ignored by definition, but for one: a
        // `nullable: true` (`x-nullable` in 2.0) beside it is how generators and
        // vendors write "this property is a `User`, or null" (1,026 times in 39 of
        // the 3.0 descriptions of the APIs.guru collection), and the API sends the
        // null: leaving it out would call every such reply drift.
        let nullable = self.nullable(s);
        let siblings: Map<String, Value> = s
            .iter()
            .filter(|(k, _)| {
                !matches!(
                    k.as_str(),
                    "$ref"
                        | "description"
                        | "summary"
                        | "title"
                        | "example"
                        | "examples"
                        | "nullable"
                ) && !k.starts_with("x-")
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if self.dialect != Dialect::Oas31 {
            return if nullable { with_null(target) } else { target };
        }
        let target = if nullable { with_null(target) } else { target };
        let mut out = if siblings.is_empty() {
            target
        } else {
            let rest = self.convert(file, &Value::Object(siblings), depth + 1);
            json!({ "allOf": [target, rest] })
        };
        // In 3.1 a `description` or `title` beside `$ref` says what this use of the
        // shared schema is (`buyer` and `seller` both a `PersonId`): the model reads
        // it, where the shared schema's own text says only what the type is.
        if let Value::Object(m) = &mut out {
            self.describe(s, m);
        }
        out
    }

    /// The keywords that carry over as they are (those of the wrong shape dropped, with
    /// a warning), a `default` not of the schema's type mended or left out, and a
    /// `pattern` that names a format read as that format.
    fn plain_keywords(&mut self, s: &Map<String, Value>) -> Map<String, Value> {
        let mut out = Map::new();
        for key in PLAIN {
            if let Some(v) = s.get(*key) {
                // Swagger 2.0's `type: file` is handled apart.
                if *key == "type" && v == "file" {
                    continue;
                }
                match super::keywords::conform(key, v) {
                    Some(kept) => {
                        out.insert((*key).to_string(), kept);
                    }
                    None => self.warn_once(super::keywords::dropped(key, v)),
                }
            }
        }
        if let (Some(Value::String(t)), Some(d)) = (out.get("type"), out.get("default"))
            && let Some(fixed) = default_of_type(t, d)
        {
            match fixed {
                Some(v) => {
                    out.insert("default".into(), v);
                }
                None => {
                    let note = format!(
                        "a schema's `default: {d}` is not of its type `{t}`; it is left out"
                    );
                    self.warn_once(note);
                    out.remove("default");
                }
            }
        }
        if let Some(Value::String(p)) = out.get("pattern")
            && FORMAT_NAMES.contains(&p.as_str())
        {
            let format = p.clone();
            self.warn_once(format!(
                "a schema's `pattern: {format}` names a format, not a regular expression: read as `format: {format}`"
            ));
            out.remove("pattern");
            out.entry("format").or_insert(Value::String(format));
        }
        out
    }

    /// A warning, unless the same one was given already.
    fn warn_once(&mut self, note: String) {
        if let Some(log) = &mut self.log {
            log.warnings.push((note.clone(), true));
        }
        if !self.warnings.contains(&note) {
            self.warnings.push(note);
        }
    }

    /// On the request side, the schema's `description` and `title` (trimmed): the
    /// model reads them.
    fn describe(&self, s: &Map<String, Value>, out: &mut Map<String, Value>) {
        if self.side != Side::Request {
            return;
        }
        for key in ["description", "title"] {
            if let Some(Value::String(d)) = s.get(key) {
                out.insert(key.into(), Value::String(super::text::trim_text(d, 300)));
            }
        }
        // A deprecated member, as the standard says it or a vendor does (`x-deprecated:
        // true`, `x-is-deprecated`, a version it was deprecated in, the sentence saying
        // what replaces it): the model is told, so it prefers the replacement.
        if let Some(d) = super::operations::deprecation::of_map(s) {
            out.insert("deprecated".into(), Value::Bool(true));
            if let Some(said) = d.member_sentence() {
                append_description(out, &said);
            }
        }
    }

    /// The properties, each converted, but for those hidden on this side (read-only
    /// in a request, write-only in a response).
    fn convert_properties(
        &mut self,
        file: &Path,
        s: &Map<String, Value>,
        depth: usize,
        out: &mut Map<String, Value>,
    ) {
        let Some(Value::Object(props)) = s.get("properties") else {
            return;
        };
        let mut converted = Map::new();
        let mut hidden = Vec::new();
        // A closed object must still allow its read-only fields: a client that
        // sends one back (as documented examples do) is ignored by the API, not
        // refused. They are only left out of `required`.
        let closed = ["additionalProperties", "unevaluatedProperties"]
            .iter()
            .any(|k| s.get(*k) == Some(&Value::Bool(false)));
        for (name, p) in props {
            if self.hidden_on_this_side(file, p) {
                hidden.push(name.clone());
                if !closed {
                    continue;
                }
            }
            converted.insert(name.clone(), self.convert(file, p, depth + 1));
        }
        out.insert("properties".into(), Value::Object(converted));
        if !hidden.is_empty()
            && let Some(Value::Array(req)) = out.get_mut("required")
        {
            req.retain(|r| !r.as_str().is_some_and(|r| hidden.iter().any(|h| h == r)));
        }
    }

    /// Leaves out of this schema's `required` the members its `allOf` branches hide on
    /// this side: `required: [id, name]` beside `allOf: [{$ref: Base}]` whose `id` is
    /// read-only must not ask the model for the `id` the server assigns (nor a reply
    /// for a write-only `password`).
    fn unrequire_hidden_in_branches(
        &mut self,
        file: &Path,
        s: &Map<String, Value>,
        out: &mut Map<String, Value>,
    ) {
        if !matches!(out.get("required"), Some(Value::Array(r)) if !r.is_empty()) {
            return;
        }
        let mut hidden = HashSet::new();
        let mut budget = MAX_BRANCHES_LOOKED_AT;
        self.hidden_in_branches(file, s, 0, &mut budget, &mut hidden);
        if hidden.is_empty() {
            return;
        }
        if let Some(Value::Array(req)) = out.get_mut("required") {
            req.retain(|r| !r.as_str().is_some_and(|r| hidden.contains(r)));
            if req.is_empty() {
                out.remove("required");
            }
        }
    }

    /// The members `allOf` branches (followed through `$ref`s and their own `allOf`,
    /// a few levels deep) hide on this side.
    fn hidden_in_branches(
        &mut self,
        file: &Path,
        s: &Map<String, Value>,
        depth: usize,
        budget: &mut usize,
        hidden: &mut HashSet<String>,
    ) {
        // Bounded in depth and in branches looked at: a hostile description nests,
        // loops or fans out `allOf` without end.
        if depth > 8 {
            return;
        }
        let Some(Value::Array(all)) = s.get("allOf") else {
            return;
        };
        for b in all {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            let Ok((bfile, target)) = self.refs.follow(file, b) else {
                continue;
            };
            let Some(branch) = target.get().as_object() else {
                continue;
            };
            if let Some(Value::Object(props)) = branch.get("properties") {
                for (name, p) in props {
                    if !hidden.contains(name) && self.hidden_on_this_side(&bfile, p) {
                        hidden.insert(name.clone());
                    }
                }
            }
            self.hidden_in_branches(&bfile, branch, depth + 1, budget, hidden);
        }
    }

    /// The keywords that hold one schema (`items`, `additionalProperties`, `not`, …),
    /// each converted; `items` as a list is 2020-12's `prefixItems`.
    fn convert_subschemas(
        &mut self,
        file: &Path,
        s: &Map<String, Value>,
        depth: usize,
        out: &mut Map<String, Value>,
    ) {
        for key in ONE {
            // A response with a field the spec does not list is still a valid response:
            // vendors add fields without a new spec, and a rename is caught anyway by
            // the required field that goes missing.
            if self.side == Side::Response
                && matches!(*key, "additionalProperties" | "unevaluatedProperties")
                && s.get(*key) == Some(&Value::Bool(false))
            {
                continue;
            }
            match s.get(*key) {
                Some(Value::Array(tuple)) if *key == "items" => {
                    let items: Vec<Value> = tuple
                        .iter()
                        .map(|i| self.convert(file, i, depth + 1))
                        .collect();
                    out.insert("prefixItems".into(), Value::Array(items));
                }
                Some(v @ (Value::Object(_) | Value::Bool(_))) => {
                    let c = self.convert(file, v, depth + 1);
                    out.insert((*key).to_string(), c);
                }
                _ => {}
            }
        }
    }

    /// The keywords that hold schemas by name (`patternProperties`,
    /// `dependentSchemas`) or in a list (`prefixItems`, `allOf`), each converted.
    fn convert_schema_lists(
        &mut self,
        file: &Path,
        s: &Map<String, Value>,
        depth: usize,
        out: &mut Map<String, Value>,
    ) {
        for key in ["patternProperties", "dependentSchemas"] {
            if let Some(Value::Object(m)) = s.get(key) {
                let c: Map<String, Value> = m
                    .iter()
                    .map(|(k, v)| (k.clone(), self.convert(file, v, depth + 1)))
                    .collect();
                out.insert(key.into(), Value::Object(c));
            }
        }
        if let Some(Value::Array(p)) = s.get("prefixItems") {
            let items: Vec<Value> = p.iter().map(|i| self.convert(file, i, depth + 1)).collect();
            out.insert("prefixItems".into(), Value::Array(items));
        }
        if let Some(Value::Array(all)) = s.get("allOf") {
            let c: Vec<Value> = all
                .iter()
                .map(|b| self.convert(file, b, depth + 1))
                .collect();
            out.insert("allOf".into(), Value::Array(c));
        }
    }

    /// `oneOf` and `anyOf` branches, converted (each tagged by a discriminator when
    /// there is one) into one `anyOf`.
    fn convert_branches(
        &mut self,
        file: &Path,
        s: &Map<String, Value>,
        depth: usize,
        out: &mut Map<String, Value>,
    ) {
        let discriminator = s.get("discriminator");
        for key in ["oneOf", "anyOf"] {
            let Some(Value::Array(branches)) = s.get(key) else {
                continue;
            };
            let c: Vec<Value> = branches
                .iter()
                .map(|b| {
                    let converted = self.convert(file, b, depth + 1);
                    match discriminator {
                        Some(d) => self.tag_branch(file, d, b, converted),
                        None => converted,
                    }
                })
                .collect();
            // Vendor `oneOf`s often list overlapping alternatives (an object and a
            // looser object), so exactly-one would reject valid responses. With a
            // discriminator each branch is pinned to its tags, which already makes a
            // tagged instance match one branch; an instance without the (often
            // optional) tag property must not then fail for matching several.
            let keyword = "anyOf";
            match out.get_mut(keyword) {
                Some(Value::Array(existing)) => existing.extend(c),
                _ => {
                    out.insert(keyword.into(), Value::Array(c));
                }
            }
        }
    }

    /// Whether the schema also allows `null` the way its dialect says it. 3.1 says it
    /// in `type`, which carries over, and has no `nullable`; but a 3.1 description
    /// that still writes `nullable: true` (one converted from 3.0 by changing its
    /// version line) can mean nothing else by it, and the API sends the null.
    fn nullable(&self, s: &Map<String, Value>) -> bool {
        let says = |k: &str| s.get(k) == Some(&Value::Bool(true));
        match self.dialect {
            Dialect::Swagger2 => says("x-nullable"),
            Dialect::Oas30 | Dialect::Oas31 => says("nullable") || says("x-nullable"),
        }
    }

    /// A `$ref` becomes `#/$defs/<name>`, converting the target the first time.
    fn reference(&mut self, file: &Path, r: &str) -> Value {
        let (loc, doc) = match self.refs.locate(file, r) {
            Ok(t) => t,
            Err(e) => {
                if let Some(log) = &mut self.log {
                    log.warnings.push((e.clone(), false));
                }
                self.warnings.push(e);
                return Value::Bool(true);
            }
        };
        let name = self.refs.def_name(&loc);
        let reference = json!({ "$ref": format!("#/$defs/{name}") });
        if let Some(log) = &mut self.log {
            log.refers
                .push((name.clone(), loc.0.clone(), doc.clone(), loc.1.clone()));
        }
        self.enqueue(name, loc.0, doc, loc.1);
        reference
    }

    /// Queues a named schema to be converted, once.
    fn enqueue(&mut self, name: String, file: PathBuf, doc: Arc<Value>, pointer: String) {
        if !self.defs.contains_key(&name) && !self.pending.contains(&name) {
            // Converted once, later, where it lies in its document.
            self.pending.insert(name.clone());
            self.queue.push((name, file, doc, pointer));
        }
    }

    /// Whether property schema `p` is `readOnly` in a request, or in a response
    /// `writeOnly` or never read (AutoRest's `x-ms-mutability` without `read`).
    fn hidden_on_this_side(&mut self, file: &Path, p: &Value) -> bool {
        let side = self.side;
        let hidden = |p: &Value| match side {
            Side::Request => p.get("readOnly") == Some(&Value::Bool(true)),
            Side::Response => p.get("writeOnly") == Some(&Value::Bool(true)) || never_read(p),
        };
        if hidden(p) {
            return true;
        }
        if p.get("$ref").is_some() {
            return self
                .refs
                .follow(file, p)
                .is_ok_and(|(_, t)| hidden(t.get()));
        }
        false
    }

    /// Pins a discriminated branch to the tag values that select it: the `mapping`
    /// entries naming it; else the values the branch itself allows for the property
    /// (`role: {enum: [user]}`, `const`); else, as the standard says for an implicit
    /// mapping, the schema's name.
    fn tag_branch(
        &mut self,
        file: &Path,
        discriminator: &Value,
        raw: &Value,
        converted: Value,
    ) -> Value {
        let Some(prop) = discriminator.get("propertyName").and_then(Value::as_str) else {
            return converted;
        };
        let r = raw.get("$ref").and_then(Value::as_str);
        let mut tags: Vec<Value> = match r {
            Some(r) => discriminator
                .get("mapping")
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .filter(|(_, target)| {
                            target.as_str().is_some_and(|t| {
                                t == r || r.ends_with(&format!("/{t}")) || t.ends_with(r)
                            })
                        })
                        .map(|(k, _)| Value::String(k.clone()))
                        .collect()
                })
                .unwrap_or_default(),
            None => Vec::new(),
        };
        if tags.is_empty() {
            tags = self.own_tags(file, raw, prop, 0);
        }
        if tags.is_empty() {
            match r {
                Some(r) => tags.push(Value::String(r.rsplit('/').next().unwrap_or(r).to_string())),
                // An inline branch with no tag of its own cannot be pinned.
                None => return converted,
            }
        }
        json!({ "allOf": [converted, { "properties": { prop: { "enum": tags } } }] })
    }

    /// The values a branch allows for property `prop` by `enum` or `const`, looking
    /// through `$ref`s and `allOf` parts.
    fn own_tags(&mut self, file: &Path, branch: &Value, prop: &str, depth: usize) -> Vec<Value> {
        if depth > 8 {
            return Vec::new();
        }
        let Ok((file, b)) = self.refs.follow(file, branch) else {
            return Vec::new();
        };
        let b = b.get();
        if let Some(p) = b.pointer(&format!(
            "/properties/{}",
            prop.replace('~', "~0").replace('/', "~1")
        )) && let Ok((_, p)) = self.refs.follow(&file, p)
        {
            let p = p.get();
            if let Some(c) = p.get("const") {
                return vec![c.clone()];
            }
            if let Some(Value::Array(e)) = p.get("enum") {
                let e: Vec<Value> = e.iter().filter(|v| !v.is_null()).cloned().collect();
                if !e.is_empty() {
                    return e;
                }
            }
        }
        for part in b
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let found = self.own_tags(&file, part, prop, depth + 1);
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }
}

/// Makes a generated schema one toolgate compiles: `pattern`s the regex engine rejects
/// (vendor specs carry ECMAScript-only or broken ones) are dropped, and a schema that
/// still does not compile is replaced by `fallback`. The notes say what was weakened.
pub fn usable(
    schema: Value,
    mut compiles: impl FnMut(&Value) -> Result<(), String>,
    fallback: Value,
) -> (Value, Vec<String>) {
    if compiles(&schema).is_ok() {
        return (schema, Vec::new());
    }
    let mut notes = Vec::new();
    let mut fixed = schema;
    drop_bad_patterns(&mut fixed, &mut notes);
    match compiles(&fixed) {
        Ok(()) => (fixed, notes),
        Err(e) => {
            notes.push(format!(
                "the schema is not usable ({e}); it accepts anything instead"
            ));
            (fallback, notes)
        }
    }
}

/// `format` names a description can write as its `pattern` by mistake (`pattern:
/// date-time`): read as a regular expression it refuses every real value (a date holds
/// no `date-time`), so it is the format it names.
const FORMAT_NAMES: &[&str] = &[
    "date",
    "date-time",
    "time",
    "email",
    "uri",
    "url",
    "uuid",
    "hostname",
    "ipv4",
    "ipv6",
    "int32",
    "int64",
    "float",
    "double",
    "byte",
    "binary",
];

/// 2.0 and 3.0 write `exclusiveMinimum: true` next to `minimum`; 2020-12 makes the
/// bound itself exclusive.
fn exclusive_bounds(s: &Map<String, Value>, out: &mut Map<String, Value>) {
    for (flag, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        match s.get(flag) {
            Some(Value::Bool(true)) => {
                if let Some(b) = out.remove(bound) {
                    out.insert(flag.into(), b);
                }
            }
            Some(n @ Value::Number(_)) => {
                out.insert(flag.into(), n.clone());
            }
            _ => {}
        }
    }
}

/// A `default` the schema's own `type` refuses (`type: boolean, default: "1"`, `type:
/// integer, default: "100"`), which a model copying it would be refused for: `None` when
/// it is of the type already, else `Some` of the same value as that type (`true`,
/// `100`), or `Some(None)` when it has no such reading.
/// An array whose `enum` or `default` is a scalar (`type: array, enum: [Active, Closed]`,
/// `default: Active`), as descriptions converted from Swagger 2.0 parameters often
/// write the item values on the list: no list equals a scalar, so as written no value is
/// valid, neither the model's arguments nor the API's responses. The values are the
/// items' `enum`, and a scalar default is the one-item list.
fn scalar_enum_to_items(out: &mut Map<String, Value>) {
    let is_array = match out.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
        _ => false,
    };
    if !is_array {
        return;
    }
    if let Some(Value::Array(values)) = out.get("enum")
        && values.iter().any(|v| !v.is_null())
        && values.iter().all(|v| !v.is_array())
    {
        let item_values: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
        out.remove("enum");
        match out.get_mut("items") {
            Some(Value::Object(items)) => {
                items
                    .entry("enum")
                    .or_insert_with(|| Value::Array(item_values));
            }
            // `items: false` admits no item: nothing to narrow.
            Some(Value::Bool(false)) => {}
            _ => {
                out.insert("items".into(), json!({ "enum": item_values }));
            }
        }
    }
    if let Some(d) = out.get("default")
        && !d.is_array()
        && !d.is_null()
    {
        let one = json!([d]);
        out.insert("default".into(), one);
    }
}

/// Whether AutoRest's `x-ms-mutability` leaves out `read`: the property is sent on
/// create or update and never answered (a job credential's `password`, a VPN
/// package's upload URI), so a response that lacks it is no drift, as for `writeOnly`.
fn never_read(p: &Value) -> bool {
    p.get("x-ms-mutability")
        .and_then(Value::as_array)
        .is_some_and(|m| !m.is_empty() && !m.iter().any(|v| v == "read"))
}

/// Whether the schema's `enum` is open: AutoRest's `x-ms-enum` with `modelAsString:
/// true`, whose generated clients take any string ("no validation will happen").
fn is_open_enum(s: &Map<String, Value>) -> bool {
    s.get("x-ms-enum")
        .and_then(|e| e.get("modelAsString"))
        .and_then(Value::as_bool)
        == Some(true)
}

fn default_of_type(kind: &str, d: &Value) -> Option<Option<Value>> {
    let fits = match kind {
        "boolean" => d.is_boolean(),
        "integer" => d.is_i64() || d.is_u64(),
        "number" => d.is_number(),
        "string" => d.is_string(),
        _ => true,
    };
    if fits || d.is_null() {
        return None;
    }
    let text = match d {
        Value::String(t) => t.trim().to_string(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => return Some(None),
    };
    Some(match kind {
        "boolean" => match text.to_ascii_lowercase().as_str() {
            "true" | "1" => Some(Value::Bool(true)),
            "false" | "0" => Some(Value::Bool(false)),
            _ => None,
        },
        "integer" => text
            .parse::<i64>()
            .ok()
            .or_else(|| {
                // `5.0`: a whole number written as a decimal.
                let f = text.parse::<f64>().ok()?;
                (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i64)
            })
            .map(Value::from),
        "number" => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
        "string" => Some(Value::String(text)),
        _ => None,
    })
}

fn drop_bad_patterns(v: &mut Value, notes: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(p)) = m.get("pattern")
                && jsonschema::draft202012::new(&json!({ "pattern": p })).is_err()
            {
                notes.push(format!(
                    "the pattern `{p}` is not a usable regular expression; dropped"
                ));
                m.remove("pattern");
            }
            if let Some(Value::Object(pp)) = m.get_mut("patternProperties") {
                let bad: Vec<String> = pp
                    .keys()
                    .filter(|k| jsonschema::draft202012::new(&json!({ "pattern": k })).is_err())
                    .cloned()
                    .collect();
                for k in bad {
                    notes.push(format!(
                        "the property pattern `{k}` is not a usable regular expression; dropped"
                    ));
                    pp.remove(&k);
                }
            }
            for c in subschemas_mut(m) {
                drop_bad_patterns(c, notes);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|c| drop_bad_patterns(c, notes)),
        _ => {}
    }
}

/// What may hold schemas under the schema object `m`: every keyword's value but the
/// data ones (`enum`, `const`, `default`, `example(s)`: a `$ref` or `pattern` key in
/// them is a value), and of the keywords mapping names to schemas (`properties`,
/// `$defs`, …) each schema, never the map itself, whose keys are names: a property
/// called `default` or `enum` is a schema like any other.
fn subschemas_mut(m: &mut Map<String, Value>) -> impl Iterator<Item = &mut Value> {
    m.iter_mut().flat_map(|(k, c)| -> Vec<&mut Value> {
        match (k.as_str(), c) {
            ("const" | "enum" | "default" | "example" | "examples", _) => Vec::new(),
            (
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas",
                Value::Object(named),
            ) => named.values_mut().collect(),
            (_, c) => vec![c],
        }
    })
}

/// Points every `#/$defs/<name>` reference in `v` at component `<name>` of the shared
/// set `set` (`toolgate:schemas/<set>/<name>`).
pub fn to_shared(v: &mut Value, set: &str) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get_mut("$ref")
                && let Some(name) = r.strip_prefix("#/$defs/")
            {
                *r = toolgate_contract::ref_to(set, name);
            }
            for c in subschemas_mut(m) {
                to_shared(c, set);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|c| to_shared(c, set)),
        _ => {}
    }
}

/// Drops the `pattern`s the regex engine rejects, as [`usable`] does, with its notes.
pub fn drop_unusable_patterns(v: &mut Value) -> Vec<String> {
    let mut notes = Vec::new();
    drop_bad_patterns(v, &mut notes);
    notes
}

/// `{"$ref": "#/$defs/x"}` and nothing else → `x`.
/// Whether `text` is a string or a key anywhere in `v`: found by walking the value,
/// where serialising each definition to search its text would write out the whole
/// set again for every schema.
fn holds_string(v: &Value, text: &str) -> bool {
    match v {
        Value::String(s) => s == text,
        Value::Array(a) => a.iter().any(|x| holds_string(x, text)),
        Value::Object(m) => m.iter().any(|(k, x)| k == text || holds_string(x, text)),
        _ => false,
    }
}

/// Replaces with `true` every definition among `starts` whose chain of bare `$ref`s
/// (`A: {$ref: B}`, `B: {$ref: C}`, …) runs into a loop, with the definitions on the
/// way; returns the number of links followed.
///
/// Each definition's chain is followed once: a walk stops at a definition an earlier
/// walk passed through, whose end is known (a definition or a loop already broken).
/// Following every chain to its end from each start instead followed 50 million links
/// for a 10,000-link chain, each compared with the links before it on its way: over two
/// minutes of import.
fn break_ref_loops(
    defs: &mut BTreeMap<String, Value>,
    starts: Vec<String>,
    warnings: &mut Vec<String>,
) -> usize {
    let mut walked: HashSet<String> = HashSet::new();
    let mut links = 0;
    for start in starts {
        if walked.contains(&start) {
            continue;
        }
        let mut path = vec![start.clone()];
        let mut on_path: HashSet<String> = HashSet::from([start.clone()]);
        let mut at = start.clone();
        while let Some(next) = defs.get(&at).and_then(bare_def_ref) {
            links += 1;
            if on_path.contains(&next) {
                for n in &path {
                    defs.insert(n.clone(), Value::Bool(true));
                }
                warnings.push(format!("`{start}` only refers to itself through `$ref`s"));
                break;
            }
            if walked.contains(&next) {
                break;
            }
            on_path.insert(next.clone());
            path.push(next.clone());
            at = next;
        }
        walked.extend(path);
    }
    links
}

fn bare_def_ref(v: &Value) -> Option<String> {
    let m = v.as_object()?;
    if m.len() != 1 {
        return None;
    }
    m.get("$ref")?
        .as_str()?
        .strip_prefix("#/$defs/")
        .map(str::to_string)
}

/// Adds `null` to what a schema accepts.
fn with_null(schema: Value) -> Value {
    let Value::Object(mut m) = schema else {
        return schema;
    };
    if let Some(Value::Array(e)) = m.get_mut("enum")
        && !e.contains(&Value::Null)
    {
        e.push(Value::Null);
    }
    match m.get("type").cloned() {
        Some(Value::String(t)) => {
            m.insert("type".into(), json!([t, "null"]));
            Value::Object(m)
        }
        Some(Value::Array(mut ts)) => {
            if !ts.contains(&json!("null")) {
                ts.push(json!("null"));
            }
            m.insert("type".into(), Value::Array(ts));
            Value::Object(m)
        }
        _ => json!({ "anyOf": [Value::Object(m), { "type": "null" }] }),
    }
}

#[cfg(test)]
mod tests;

/// Adds a sentence after a converted schema's description (or as it), the whole kept
/// as short as descriptions are.
pub(crate) fn append_description(out: &mut Map<String, Value>, said: &str) {
    let text = match out.get("description").and_then(Value::as_str) {
        Some(d) => format!("{d} {said}"),
        None => said.to_string(),
    };
    out.insert(
        "description".into(),
        Value::String(super::text::trim_text(&text, 600)),
    );
}
