//! One operation of the spec → one tool: arguments from path, query and header
//! parameters and the request body; the success response's schema as the contract;
//! documented response headers; deprecation. An operation that cannot become a working
//! tool is skipped with its reason.

mod argument;
mod body;
mod builder;
pub(crate) mod deprecation;
mod paging;
mod parameters;
mod path;
mod preview;
mod reply_format;
mod success;
mod text;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::refs::Refs;
use super::schema::{Converter, Dialect, Side};
use builder::Builder;
use toolgate_config::template::Template;

/// Methods a tool can use, in the order a path item lists them.
pub const METHODS: &[&str] = &["get", "put", "post", "delete", "patch", "head"];

/// Parameter names that carry credentials: the dependency sends them, never the model.
/// On an operation with a security requirement, the scheme is taken to carry them.
pub(crate) const CREDENTIAL_NAMES: &[&str] = &[
    "authorization",
    "token",
    "access_token",
    "api_key",
    "apikey",
    "x-api-key",
];

/// An operation as found in the spec, with the file it lives in.
#[derive(Debug, Clone)]
pub struct RawOperation {
    /// Lower-case method.
    pub method: String,
    /// Path template as written in the spec.
    pub path: String,
    /// File against which the operation's relative `$ref`s resolve.
    pub file: PathBuf,
    /// The operation object.
    pub op: Value,
    /// Path-level parameters, each with its file.
    pub shared_params: Vec<(PathBuf, Value)>,
    /// Path-level `servers`.
    pub path_servers: Option<Value>,
}

/// A generated tool, ready to be written out.
#[derive(Debug, Clone)]
pub struct Tool {
    /// Unique MCP name (set by the caller).
    pub name: String,
    /// `operationId`, when the spec gives one.
    pub operation_id: Option<String>,
    /// Upper-case method.
    pub method: String,
    /// Spec path.
    pub path: String,
    /// Tags.
    pub tags: Vec<String>,
    /// For the model.
    pub description: String,
    /// `request:` of the config entry.
    pub request: Map<String, Value>,
    /// `input_schema:`, what the model sees.
    pub input_schema: Value,
    /// The full input schema arguments are checked against, when the model sees a
    /// compact form of it (`--compact`).
    pub full_input_schema: Option<Value>,
    /// The contract's response schema; `None` when the spec gives no JSON success schema.
    pub response_schema: Option<Value>,
    /// `annotations:`.
    pub annotations: Map<String, Value>,
    /// Marked `deprecated` in the spec.
    pub deprecated: bool,
    /// When the spec says the operation goes away, as written (a date-time cut to its
    /// date): the owner reads it in the comment above the tool, as the model does in its
    /// description.
    pub removal: Option<String>,
    /// What the spec names as the replacement, as written.
    pub successor_hint: Option<String>,
    /// How the model pages through the list the operation answers one page of, told
    /// at the end of `description` (kept there when `--compact` shortens it).
    pub paging: Option<String>,
    /// Why the tool is weaker than the operation (for a comment above it).
    pub notes: Vec<String>,
    /// Response header names the spec documents for it.
    pub response_headers: Vec<String>,
    /// The operation's own server (`servers` on the operation or its path), if any.
    pub server: Option<String>,
    /// The dependency it calls, when not the main one.
    pub dependency: Option<String>,
}

/// Why an operation is not a tool.
#[derive(Debug, Clone)]
pub struct Skip(pub String);

/// Everything about the spec that operations share.
#[derive(Debug)]
pub struct Context<'a> {
    /// Resolver.
    pub refs: &'a mut Refs,
    /// Spec generation.
    pub dialect: Dialect,
    /// Root document.
    pub root: &'a Value,
    /// Names of `apiKey` parameters: credentials, never arguments.
    pub credential_params: HashSet<String>,
    /// Credentials the spec declares as ordinary parameters, which the dependency
    /// sends (or, of alternatives, leaves out): never arguments.
    pub param_credentials: Vec<super::credentials::Found>,
    /// Cookies the security scheme sends, as (cookie name, `${VAR}`): the first pairs of
    /// every tool's `Cookie` header, never arguments.
    pub auth_cookies: Vec<(String, String)>,
    /// `info.version`, when it can be the value of an `api-version` parameter.
    pub api_version: Option<String>,
    /// Whether the API names its resources by paths (Google's: `/v1/{name}` takes
    /// `projects/p/locations/l`), so that such a parameter keeps its `/`.
    pub resource_names: bool,
    /// Parameters bound in config (name, constant or `${VAR}`), never arguments.
    pub bind: Vec<(String, String)>,
    /// How many tools each bound parameter was found in.
    pub bound: BTreeMap<String, usize>,
    /// The named schemas of every response contract, written once for the whole API
    /// (the config's `schemas.<set>`), with the set's name.
    pub shared: Option<(String, BTreeMap<String, Value>)>,
    /// Whether an input schema compiles, by the fingerprint of its text: operations of
    /// one resource often take the same body, and compiling a large inlined one is most
    /// of its cost. The texts themselves are not kept: together they are as large as
    /// the config.
    pub input_verdicts: HashMap<(u64, u64, usize), Result<(), String>>,
    /// The keys of `input_verdicts`.
    pub fingerprints: super::json_bytes::Fingerprints,
    /// The named schemas of input schemas, each converted once for all the tools.
    pub conversions: super::schema::Conversions,
    /// Why the description cannot be imported, found while converting an operation (a
    /// request schema's `$ref` chain past [`super::ref_chain::MAX_LINKS`]).
    pub refused: Option<String>,
}

/// Where a spec lists its path items. AutoRest's `x-ms-paths` holds the operations
/// whose path differs from another's only by a fixed query (Azure Storage's
/// `/{containerName}?restype=container` beside `/{containerName}/{blob}`, which
/// `paths` cannot hold, its keys being paths alone): operations like any other, whose
/// keys' queries become fixed query parameters.
const PATH_LISTS: [&str; 2] = ["paths", "x-ms-paths"];

/// Every path item of the spec, `paths` first, with its key.
pub fn path_items(root: &Value) -> impl Iterator<Item = (&String, &Value)> {
    PATH_LISTS
        .iter()
        .filter_map(|k| root.get(*k).and_then(Value::as_object))
        .flatten()
}

/// Lists the operations of the spec in its own order. A path item or operation that is
/// a `$ref` the import cannot read (another file that is missing, or outside the
/// folders it may read) fails the import, naming it: its operations would otherwise be
/// missing from the config with nothing but a comment to say so.
pub fn list(
    refs: &mut Refs,
    root_file: &Path,
    root: &Value,
) -> Result<(Vec<RawOperation>, Vec<String>), String> {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    if PATH_LISTS
        .iter()
        .all(|k| root.get(*k).is_none_or(|v| !v.is_object()))
    {
        warnings.push("the spec has no `paths`".into());
        return Ok((out, warnings));
    }
    let unreadable = |what: String, e: String| {
        format!(
            "{what} cannot be read: {e}; its operations would be missing from the config. Put the file where the `$ref` points (a folder beside the spec's needs `--allow-dir`), or remove the path from the description"
        )
    };
    for (path, item) in path_items(root) {
        let (file, item) = match refs.deref(root_file, item) {
            Ok(x) => x,
            Err(e) => return Err(unreadable(format!("the path `{path}`"), e)),
        };
        let shared_params = params_of(refs, &file, item.get("parameters"), &mut warnings);
        let Some(obj) = item.as_object() else {
            continue;
        };
        for (method, op) in obj {
            let lower = method.to_ascii_lowercase();
            if !METHODS.contains(&lower.as_str()) && !matches!(lower.as_str(), "options" | "trace")
            {
                continue;
            }
            let (op_file, op) = match refs.deref(&file, op) {
                Ok(x) => x,
                Err(e) => {
                    let what = format!("the operation `{} {path}`", method.to_uppercase());
                    return Err(unreadable(what, e));
                }
            };
            out.push(RawOperation {
                method: lower,
                path: path.clone(),
                file: op_file,
                op,
                shared_params: shared_params.clone(),
                path_servers: item.get("servers").cloned(),
            });
        }
    }
    Ok((out, warnings))
}

fn params_of(
    refs: &mut Refs,
    file: &Path,
    list: Option<&Value>,
    warnings: &mut Vec<String>,
) -> Vec<(PathBuf, Value)> {
    let mut out = Vec::new();
    for p in list.and_then(Value::as_array).into_iter().flatten() {
        match refs.deref(file, p) {
            Ok((at, mut found)) => {
                with_reference_text(p, &mut found);
                out.push((at, found));
            }
            Err(e) => warnings.push(e),
        }
    }
    out
}

/// OpenAPI 3.1 lets a reference say what this use of a shared parameter is: a
/// `description` or `summary` beside its `$ref` replaces the component's. Before 3.1
/// no reference has such siblings, and one written there anyway says the same thing
/// about this use, so it is read in every version.
fn with_reference_text(reference: &Value, found: &mut Value) {
    if reference.get("$ref").is_none() {
        return;
    }
    if let (Some(Value::String(d)), Value::Object(m)) = (reference.get("description"), found) {
        m.insert("description".into(), Value::String(d.clone()));
    }
}

/// One argument of the tool being built.
struct Arg {
    name: String,
    schema: Value,
    required: bool,
}

/// Builds the tool for one operation: its stages, in the order they must run.
pub fn build(cx: &mut Context<'_>, raw: &RawOperation) -> Result<Tool, Skip> {
    // A method a tool cannot use makes no tool, whatever else the operation says.
    if !METHODS.contains(&raw.method.as_str()) {
        return Err(Skip(unsupported_method(&raw.method)));
    }
    let op = &raw.op;
    // An unusable server of its own skips the operation before anything else is read.
    let server = server(raw)?;
    // The parameters are read before the request's schema converter holds the resolver.
    let mut warnings = Vec::new();
    let params = declared_parameters(cx.refs, raw, &mut warnings);
    let mut tool = Builder::new(cx, raw, warnings);
    // The path key first: its query fixes values no parameter gives again.
    tool.path_key(&params);
    // Each parameter takes its place in the path, query, headers, cookies or form.
    tool.parameters(&params)?;
    // After the parameters: only the placeholders none of them fills are left.
    tool.undeclared_placeholders();
    // The OpenAPI 3 body's fields after the parameters, whose names they yield to.
    tool.request_body()?;
    // Every cookie parameter and bound value is known only now.
    tool.cookie_header();
    // A preview media type the operation requires, in place of an `Accept` argument.
    tool.required_previews();
    tool.bound_path_and_key_query();
    // The JSON body's argument is named last: a parameter called `body` keeps its name.
    let request = tool.request()?;
    // The converter's named schemas are complete once every argument is converted.
    let builder::Finished {
        args,
        defs,
        mut notes,
        mut warnings,
    } = tool.finish();
    // Arguments are checked by following the input schema's `$ref`s one inside another,
    // as a contract is: a chain past the bound refuses the description, as one among
    // the contracts' does.
    if let Some((start, links)) = super::ref_chain::too_long(&defs) {
        let why = super::ref_chain::refusal(&start, links);
        let refusal = format!(
            "the request schema of {} {}: {why}",
            raw.method.to_uppercase(),
            raw.path
        );
        cx.refused.get_or_insert(refusal);
        return Err(Skip(format!("its request schema: {why}")));
    }
    // Told only with the argument names the model has.
    let arg_names: Vec<&str> = args.iter().map(|a| a.name.as_str()).collect();
    let paging = paging::of(cx.refs, &raw.file, op, &params, &arg_names).sentence();
    // The input's notes before the contract's, then every weakening met on the way.
    let input = input_schema(cx, args, defs, &mut notes);
    let (response_schema, response_headers) = response_contract(cx, raw, &mut warnings, &mut notes);
    for w in warnings {
        notes.push(format!("weakened: {w}"));
    }
    let deprecation = deprecation::of(op);
    let deprecated = deprecation.is_some();
    let description = describe(
        op,
        &raw.method,
        &raw.path,
        deprecation.as_ref(),
        paging.as_deref(),
    );
    let successor_hint = match &deprecation {
        Some(d) => successor_hint(op).or_else(|| {
            // A vendor's deprecation sentence may name the replacement too.
            let note = d.note.as_deref()?;
            successor_hint(&json!({ "description": note }))
        }),
        None => None,
    };
    Ok(Tool {
        name: String::new(),
        operation_id: op
            .get("operationId")
            .and_then(Value::as_str)
            .map(str::to_string),
        method: raw.method.to_uppercase(),
        path: raw.path.clone(),
        tags: op
            .get("tags")
            .and_then(Value::as_array)
            .map(|t| {
                t.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
        description,
        request,
        input_schema: input,
        full_input_schema: None,
        response_schema,
        annotations: annotations(&raw.method),
        deprecated,
        removal: deprecation.as_ref().and_then(|d| d.removal.clone()),
        successor_hint,
        paging,
        notes,
        response_headers,
        server,
        dependency: None,
    })
}

/// A `servers` list that says something: an empty one overrides nothing (as the
/// repeated-prefix check reads it too), so the operation is served from its path's
/// servers, else from the spec's.
fn listed(servers: Option<&Value>) -> Option<&Value> {
    servers.filter(|s| !s.as_array().is_some_and(Vec::is_empty))
}

/// The operation's own server (`servers` on the operation or its path), when it has
/// one: an address, or a path (InfluxDB's `""` for `/health`, beside its `/api/v2`)
/// on the origin the description is served from, which the user gives as the spec's
/// own relative server's; a server that is neither skips the operation.
fn server(raw: &RawOperation) -> Result<Option<String>, Skip> {
    let op = &raw.op;
    let server = match listed(op.get("servers")).or(listed(raw.path_servers.as_ref())) {
        None => None,
        Some(list) => {
            let url = list
                .as_array()
                .and_then(|l| l.first())
                .and_then(super::server_url)
                .unwrap_or_default();
            // Scheme-relative and bare-host URLs are addresses too; a path alone names
            // no host to give this operation a dependency of its own.
            let usable = match super::server::classify(&url) {
                super::server::Server::Absolute(u) => url::Url::parse(&u)
                    .is_ok_and(|p| {
                        matches!(p.scheme(), "http" | "https")
                            && p.host_str().is_some_and(|h| !h.is_empty())
                    })
                    .then(|| super::prefer_https(&u, list.as_array().map_or(&[], Vec::as_slice))),
                // Relative to where the description is served (OpenAPI 3's rule), as
                // a relative server of the whole spec is: behind the origin variable.
                // (`https://` with no host reads as the path `https:`: a scheme, not
                // a path.)
                super::server::Server::Relative(path)
                    if !url
                        .split('/')
                        .next()
                        .is_some_and(|first| first.contains(':')) =>
                {
                    Some(path.trim_end_matches('/').to_string())
                }
                _ => None,
            };
            match usable {
                Some(u) => Some(u),
                None => {
                    return Err(Skip(format!(
                        "its server URL `{url}` is not a usable base URL"
                    )));
                }
            }
        }
    };
    Ok(server)
}

/// The operation's parameters, then the path-level ones it does not override.
fn declared_parameters(
    refs: &mut Refs,
    raw: &RawOperation,
    warnings: &mut Vec<String>,
) -> Vec<(PathBuf, Value)> {
    let op = &raw.op;
    let mut params = params_of(refs, &raw.file, op.get("parameters"), warnings);
    // Operation parameters override path-level ones of the same name and location.
    for (f, shared) in &raw.shared_params {
        let key = (shared.get("name").cloned(), shared.get("in").cloned());
        if !params
            .iter()
            .any(|(_, p)| (p.get("name").cloned(), p.get("in").cloned()) == key)
        {
            params.push((f.clone(), shared.clone()));
        }
    }
    params
}

/// `input_schema:` from the arguments, or a permissive one (with a note) when the
/// result does not compile.
fn input_schema(
    cx: &mut Context<'_>,
    args: Vec<Arg>,
    defs: BTreeMap<String, Value>,
    notes: &mut Vec<String>,
) -> Value {
    let mut input = Map::new();
    input.insert("type".into(), json!("object"));
    let mut props = Map::new();
    let mut required = Vec::new();
    for a in args {
        if a.required {
            required.push(json!(a.name));
        }
        props.insert(a.name, a.schema);
    }
    input.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        input.insert("required".into(), Value::Array(required));
    }
    if !defs.is_empty() {
        input.insert("$defs".into(), Value::Object(defs.into_iter().collect()));
    }

    let verdicts = &mut cx.input_verdicts;
    let fingerprints = &cx.fingerprints;
    let (input, input_notes) = super::schema::usable(
        Value::Object(input),
        |s| {
            verdicts
                .entry(fingerprints.of(s))
                .or_insert_with(|| {
                    jsonschema::draft202012::new(s)
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                })
                .clone()
        },
        json!({"type": "object"}),
    );
    notes.extend(input_notes.into_iter().map(|n| format!("input: {n}")));
    input
}

/// Why an operation of a method no tool sends is skipped.
fn unsupported_method(method: &str) -> String {
    match method {
        // What a resource allows is said in the answer's headers (`Allow`, CORS), and a
        // client asks it before a call: nothing an agent acts on.
        "options" => "method OPTIONS asks which methods and origins a resource allows, answered in headers a client reads before a call, not a result for an agent: no tool".into(),
        // TRACE echoes the request, the dependency's credentials with it.
        "trace" => "method TRACE echoes the request back, the dependency's credentials with it: no tool".into(),
        m => format!("method {} is not supported by toolgate", m.to_uppercase()),
    }
}

/// The contract's response schema and the documented response headers; `None` for a
/// schema that does not compile or declares nothing, which `serve` learns instead.
fn response_contract(
    cx: &mut Context<'_>,
    raw: &RawOperation,
    warnings: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> (Option<Value>, Vec<String>) {
    let (response_schema, response_headers, response_notes) = response(cx, raw, warnings);
    // A HEAD answer has no body (RFC 9110 § 9.3.2), whatever schema the description
    // copied from the GET beside it: a body contract would fail on every answer.
    if raw.method == "head" {
        notes.push(
            "HEAD: the answer is its status and headers, with no body to hold to a contract".into(),
        );
        return (None, response_headers);
    }
    let response_schema = response_schema.and_then(|s| {
        // A contract naming shared components is checked once they are all converted
        // (see `shared::finish`).
        let (s, n) = if cx.shared.is_some() {
            (s, Vec::new())
        } else {
            super::schema::usable(
                s,
                |s| {
                    toolgate_contract::ResponseContract::compile(s, None)
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                },
                // Null marks "not usable": the tool then gets the permissive contract.
                Value::Null,
            )
        };
        notes.extend(n.into_iter().map(|n| format!("contract: {n}")));
        // A schema that declares nothing (`{}`, `true`) is no contract: `serve` learns
        // the tool's instead, as it does without one.
        let nothing = match &s {
            Value::Null | Value::Bool(true) => true,
            Value::Object(m) => m.is_empty(),
            _ => false,
        };
        (!nothing).then_some(s)
    });
    notes.extend(response_notes);
    (response_schema, response_headers)
}

/// MCP's hints from the method: what a GET, PUT or DELETE promises.
fn annotations(method: &str) -> Map<String, Value> {
    let mut annotations = Map::new();
    match method {
        "get" | "head" => {
            annotations.insert("readOnlyHint".into(), json!(true));
        }
        "put" => {
            annotations.insert("idempotentHint".into(), json!(true));
        }
        "delete" => {
            annotations.insert("idempotentHint".into(), json!(true));
            annotations.insert("destructiveHint".into(), json!(true));
        }
        _ => {}
    }
    annotations
}

/// The success response's JSON schema, the documented headers of every response.
fn response(
    cx: &mut Context<'_>,
    raw: &RawOperation,
    warnings: &mut Vec<String>,
) -> (Option<Value>, Vec<String>, Vec<String>) {
    let mut notes = Vec::new();
    let mut headers = Vec::new();
    let Some(responses) = raw.op.get("responses").and_then(Value::as_object) else {
        notes.push(
            "the spec documents no responses: the contract is learned from the tool's responses"
                .into(),
        );
        return (None, headers, notes);
    };
    let mut resolved: Vec<(String, PathBuf, Value)> = Vec::new();
    for (code, r) in responses {
        match cx.refs.deref(&raw.file, r) {
            Ok((f, v)) => {
                if let Some(h) = v.get("headers").and_then(Value::as_object) {
                    for k in h.keys() {
                        if !headers.iter().any(|x: &String| x.eq_ignore_ascii_case(k)) {
                            headers.push(k.clone());
                        }
                    }
                }
                resolved.push((code.clone(), f, v));
            }
            Err(e) => warnings.push(format!("response {code}: {e}")),
        }
    }
    let order = ["200", "201", "202", "203", "206", "2XX", "2xx"];
    let success = order
        .iter()
        .find_map(|c| resolved.iter().find(|(k, _, _)| k == c))
        .or_else(|| {
            resolved
                .iter()
                .find(|(k, _, _)| k.starts_with('2') && !success::never_has_content(k))
        })
        .or_else(|| resolved.iter().find(|(k, _, _)| k.starts_with('2')))
        .or_else(|| {
            let any_2xx = resolved.iter().any(|(k, _, _)| k.starts_with('2'));
            (!any_2xx)
                .then(|| resolved.iter().find(|(k, _, _)| k == "default"))
                .flatten()
        });
    let Some((code, file, resp)) = success else {
        notes.push(
            "no success response is documented: the contract is learned from the tool's responses"
                .into(),
        );
        return (None, headers, notes);
    };
    // Whether the body may be anything at all (`*/*`), rather than a JSON type.
    let mut any_media = false;
    let schema = match cx.dialect {
        // Whatever content the description lists for it (ShipEngine's `204` with an
        // empty object's schema, AWS's `204` with a list of tags), such an answer
        // arrives empty: a schema would call each one drift.
        _ if success::never_has_content(code) => None,
        Dialect::Swagger2 => {
            // A repaired media type is worth a note only on the answer it is read for.
            let mut repaired = Vec::new();
            let produces = produces(cx.root, &raw.op, &mut repaired);
            any_media = !produces.is_empty() && !produces.iter().any(|p| is_json(p) && !is_any(p));
            if !produces.is_empty() && !produces.iter().any(|p| is_json(p)) {
                None
            } else {
                let schema = resp.get("schema").cloned();
                if schema.is_some() {
                    notes.extend(repaired);
                }
                schema
            }
        }
        _ => resp
            .get("content")
            .and_then(Value::as_object)
            .map(|c| super::media::read_content(c, &mut notes))
            .and_then(|c| {
                c.iter()
                    .find(|(k, _)| is_json(k) && !is_any(k))
                    .or_else(|| c.iter().find(|(k, _)| is_json(k)))
                    .map(|(k, m)| {
                        any_media = is_any(k);
                        m.clone()
                    })
            })
            .and_then(|m| m.get("schema").cloned()),
    };
    let Some(schema) = schema else {
        let why = if success::never_has_content(code)
            || resp.get("content").is_none() && resp.get("schema").is_none()
        {
            format!("the {code} response has no body")
        } else {
            format!("the {code} response is not JSON")
        };
        notes.push(format!(
            "{why}: the contract accepts anything, drift cannot be detected for this tool"
        ));
        return (None, headers, notes);
    };
    // A file (`type: file`, `format: binary`), or a string under `*/*`, arrives as raw
    // bytes, never as a JSON string: a `type: string` contract would refuse every one.
    let raw_bytes = cx
        .refs
        .follow(file, &schema)
        .is_ok_and(|(_, s)| is_raw_bytes(s.get(), any_media));
    if raw_bytes {
        notes.push("the response is a file: the contract accepts anything, drift cannot be detected for this tool".into());
        return (None, headers, notes);
    }
    // Every 2xx reply is checked against this one contract: it takes each body the
    // operation documents for a 2xx status, and an empty one when a status has none.
    let others = success::others(cx.dialect, &resolved, code);
    if let Some((other, _)) = others.iter().find(|(_, o)| *o == success::Other::AnyJson) {
        notes.push(format!(
            "the {other} response may be any JSON value: the contract accepts anything, drift cannot be detected for this tool"
        ));
        return (None, headers, notes);
    }
    let mut bodies: Vec<(&Path, &Value)> = vec![(file, &schema)];
    let mut answered_by = vec![code.as_str()];
    let mut empty = Vec::new();
    for (other, answer) in &others {
        match answer {
            success::Other::Body(f, s) => {
                // A file is not JSON: the gateway never checks it against the contract.
                let is_file = cx
                    .refs
                    .follow(f, s)
                    .is_ok_and(|(_, s)| is_raw_bytes(s.get(), false));
                if !is_file && !bodies.iter().any(|(bf, bs)| bf == f && bs == s) {
                    bodies.push((f, s));
                    answered_by.push(other);
                }
            }
            success::Other::Empty => empty.push(*other),
            success::Other::AnyJson => {}
        }
    }
    let mut branches: Vec<Value> = Vec::with_capacity(bodies.len() + 1);
    let mut defs = Map::new();
    for (f, s) in bodies {
        let converter = Converter::new(cx.refs, cx.dialect, Side::Response);
        let (mut converted, w) = match &mut cx.shared {
            Some((set, shared)) => {
                let (mut converted, w) = converter.shared_root(shared, f, s);
                super::schema::to_shared(&mut converted, set);
                (converted, w)
            }
            None => converter.root(f, s),
        };
        warnings.extend(w);
        // Roots converted apart each carry the definitions they use; side by side
        // under `anyOf` they share the document's.
        if let Some(Value::Object(d)) = converted.as_object_mut().and_then(|m| m.remove("$defs")) {
            defs.extend(d);
        }
        if !branches.contains(&converted) {
            branches.push(converted);
        }
    }
    if answered_by.len() > 1 {
        notes.push(format!(
            "the contract accepts the body of each of the {} responses",
            answered_by.join(", ")
        ));
    }
    if !empty.is_empty() {
        notes.push(format!(
            "the contract accepts an empty body, as the {} response has none",
            empty.join(", ")
        ));
        branches.push(json!({ "type": "null" }));
    }
    let mut converted = match branches.len() {
        1 => branches.pop().unwrap_or(Value::Bool(true)),
        _ => json!({ "anyOf": branches }),
    };
    if !defs.is_empty()
        && let Value::Object(m) = &mut converted
    {
        m.insert("$defs".into(), Value::Object(defs));
    }
    (Some(converted), headers, notes)
}

/// Whether a body with schema `resolved` is raw bytes rather than a JSON value: a file
/// (`type: file`, `type: string` with `format: binary`, or as OpenAPI 3.1 writes one,
/// with JSON Schema's `contentEncoding: binary` or a `contentMediaType` that is not
/// text and no `contentEncoding`: base64 is text), or any string when the media type is
/// a range (`*/*`) that also admits bytes of any kind.
fn is_raw_bytes(resolved: &Value, any_media: bool) -> bool {
    let of_type = |t: &str| match resolved.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(a)) => a.iter().any(|x| x == t),
        _ => false,
    };
    let binary = resolved.get("format").and_then(Value::as_str) == Some("binary");
    let encoding = resolved.get("contentEncoding").and_then(Value::as_str);
    let octets = match encoding {
        Some(e) => e.eq_ignore_ascii_case("binary"),
        None => resolved
            .get("contentMediaType")
            .and_then(Value::as_str)
            .is_some_and(|m| !(super::media::is_text(m) || is_json(m) && !is_any(m))),
    };
    of_type("file") || of_type("string") && (binary || octets || any_media)
}

/// A request body of `kinds` that is neither JSON nor a form (`application/octet-stream`,
/// `application/x-tar`, an image, XML, plain text): a tool's arguments are JSON values
/// and toolgate sends no raw bytes, so a required one skips the operation, saying what
/// it takes, and an optional one is left out with a comment.
fn leave_out_body(kinds: &[String], required: bool, notes: &mut Vec<String>) -> Result<(), Skip> {
    let kinds = if kinds.is_empty() {
        "undescribed".to_string()
    } else {
        kinds.join(", ")
    };
    if required {
        return Err(Skip(format!(
            "request body is {kinds} (only JSON and form bodies are supported)"
        )));
    }
    notes.push(format!("the optional {kinds} request body is not sent"));
    Ok(())
}

fn has_security(root: &Value, op: &Value) -> bool {
    let req = op.get("security").or_else(|| root.get("security"));
    req.and_then(Value::as_array).is_some_and(|r| !r.is_empty())
}

fn consumes(root: &Value, op: &Value, notes: &mut Vec<String>) -> Vec<String> {
    strings(op.get("consumes").or_else(|| root.get("consumes")), notes)
}

fn produces(root: &Value, op: &Value, notes: &mut Vec<String>) -> Vec<String> {
    strings(op.get("produces").or_else(|| root.get("produces")), notes)
}

/// Swagger 2.0's `consumes` or `produces`, a media type missing its `/` read as meant
/// (`applicationjson` is `application/json`: [`super::media::repaired`]), with the
/// note an OpenAPI 3 `content` key read so gets ([`super::media::read_content`]).
fn strings(v: Option<&Value>, notes: &mut Vec<String>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(|m| match super::media::repaired(m) {
                    Some(r) => {
                        notes.push(super::media::missing_slash(m, &r));
                        r
                    }
                    None => m.to_string(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `application/json`, `application/problem+json`, `text/json; charset=utf-8`, `*/*`.
pub fn is_json(media: &str) -> bool {
    let m = media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    m == "*/*" || m.is_empty() || m.ends_with("/json") || m.ends_with("+json")
}

/// The `Content-Type` a JSON body is labelled with when the description does not take
/// `application/json` for it: the first other JSON media type it declares (a JSON
/// Merge Patch, `application/merge-patch+json`; JSON:API's `application/vnd.api+json`),
/// which such an API may require, refusing `application/json` with a 415. `None`
/// where `application/json` or a range (`*/*`, `application/*`) is declared:
/// `application/json` is sent, as it always was.
fn json_label<'a>(declared: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut first = None;
    for media in declared {
        let essence = media
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if essence == "application/json" || essence.contains('*') {
            return None;
        }
        if first.is_none() && toolgate_config::template::json_media_type(media).is_some() {
            first = Some(media.trim().to_string());
        }
    }
    first
}

/// `*/*`: any media type at all.
fn is_any(media: &str) -> bool {
    // A `content` key that is empty (`""`: Spoonacular's) names no media type, so it
    // restricts the body no more than the range `*/*` does.
    matches!(media.split(';').next().unwrap_or("").trim(), "*/*" | "")
}

/// The schema of a non-body parameter: 3.x `schema`, or 2.0's inline type keywords.
/// How a query parameter's list or object goes on the wire.
enum QueryStyle {
    /// `{arg*}`: the parameter once per item, or once per member of an object.
    Repeat,
    /// `{arg}`: a list comma-separated (a scalar as itself).
    Comma,
    /// A list joined by another separator (`|`, a space, a tab): asked of the model as
    /// text already joined, with the separator named and how the spec says it.
    Joined(&'static str, String),
    /// An object with `explode: false`: `color=R,100,G,200`, its members' names and
    /// values in one comma-separated list. A template writes an object as JSON, so the
    /// model writes the list as text.
    Pairs,
    /// A serialisation toolgate's templates do not have (`deepObject`, `pipeDelimited`).
    Unsupported(String),
}

/// The query serialisation a parameter declares. OpenAPI 3's default for a query
/// parameter is `style: form` with `explode: true` — a list as the parameter repeated
/// (`tag=a&tag=b`), an object as its members — which is what most APIs read; `explode:
/// false` is comma-separated. Swagger 2.0 says `collectionFormat` (`multi` repeats,
/// `csv`, the default, is commas).
fn query_style(p: &Value, schema: &Value, dialect: Dialect) -> QueryStyle {
    let kind =
        super::list_format::single_type(schema).or_else(|| p.get("type").and_then(Value::as_str));
    let structured = matches!(kind, Some("array" | "object"))
        || schema.get("items").is_some()
        || schema.get("properties").is_some();
    // A parameter with `content` is its media type's text (JSON), not form-styled.
    if !structured || p.get("content").is_some() {
        return QueryStyle::Comma;
    }
    let list = kind == Some("array") || schema.get("items").is_some();
    if dialect == Dialect::Swagger2 {
        let format = p.get("collectionFormat").and_then(Value::as_str);
        let how = || format!("`collectionFormat: {}`", format.unwrap_or_default());
        return match format {
            Some("multi") => QueryStyle::Repeat,
            None | Some("csv") => QueryStyle::Comma,
            Some("pipes") if list => QueryStyle::Joined("`|`", how()),
            Some("ssv") if list => QueryStyle::Joined("a space", how()),
            Some("tsv") if list => QueryStyle::Joined("a tab", how()),
            Some(_) => QueryStyle::Unsupported(how()),
        };
    }
    let style = p.get("style").and_then(Value::as_str).unwrap_or("form");
    let explode = p
        .get("explode")
        .and_then(Value::as_bool)
        .unwrap_or(style == "form");
    let how = || format!("`style: {style}`");
    match (style, explode) {
        ("form", true) => QueryStyle::Repeat,
        ("form", false) if !list => QueryStyle::Pairs,
        ("form", false) => QueryStyle::Comma,
        // Exploded, a delimited list is the parameter repeated, as `form` is.
        ("pipeDelimited" | "spaceDelimited", true) if list => QueryStyle::Repeat,
        ("pipeDelimited", false) if list => QueryStyle::Joined("`|`", how()),
        ("spaceDelimited", false) if list => QueryStyle::Joined("a space", how()),
        _ => QueryStyle::Unsupported(how()),
    }
}

/// Whether a query parameter is sent as `style: deepObject` (OpenAPI 3; a parameter
/// with `content` is its media type's text instead).
fn is_deep_object(p: &Value, dialect: Dialect) -> bool {
    dialect != Dialect::Swagger2
        && p.get("content").is_none()
        && p.get("style").and_then(Value::as_str) == Some("deepObject")
}

/// One query parameter a `deepObject` parameter is sent as: `filter[kind]`, filled by
/// the argument `filter_kind`.
#[derive(Debug)]
struct DeepLeaf {
    /// The query key, brackets and all.
    key: String,
    /// The argument's name before it is made unique.
    arg: String,
    /// The file its schema resolves against.
    file: PathBuf,
    /// Its schema.
    schema: Value,
    /// Whether the operation needs it.
    required: bool,
    /// A list, sent as the key repeated with `[]` (`expand[]=a&expand[]=b`), the bracket
    /// form the APIs that use `deepObject` read.
    list: bool,
}

/// Object nesting a `deepObject` parameter is read to (`a[b][c][d]`).
const DEEP_DEPTH: usize = 3;
/// Members a `deepObject` parameter may be sent as; a larger one is no query parameter.
const DEEP_LEAVES: usize = 32;

/// What a `deepObject` parameter is sent as: one query parameter per member its schema
/// names (`filter[kind]`, nested `filter[range][gte]`, a list `expand[]`), and a scalar
/// form it may take instead (Stripe's `created`, an integer or a range) as itself; with
/// notes on members left out. An error when nothing of it can be sent: members the
/// schema does not name are the caller's to choose, and a template cannot write a key
/// from an argument.
fn deep_object(
    refs: &mut Refs,
    file: &Path,
    schema: &Value,
    name: &str,
    required: bool,
) -> Result<(Vec<DeepLeaf>, Vec<String>), String> {
    let mut leaves = Vec::new();
    let mut notes = Vec::new();
    let (sfile, resolved) = refs.deref(file, schema)?;
    let alternatives: Vec<Value> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| resolved.get(*k).and_then(Value::as_array))
        .flatten()
        .cloned()
        .collect();
    if resolved.get("properties").is_none() && !alternatives.is_empty() {
        // Either form may be given, so no member is required.
        let mut scalar_taken = false;
        for alt in &alternatives {
            // Bounded: past the limit the parameter is refused below anyway.
            if leaves.len() > DEEP_LEAVES {
                break;
            }
            if object_shape(refs, &sfile, alt)?.0 {
                deep_members(
                    refs,
                    &sfile,
                    alt,
                    name,
                    name,
                    false,
                    0,
                    &mut leaves,
                    &mut notes,
                )?;
            } else if !scalar_taken {
                scalar_taken = true;
                leaves.push(deep_leaf(
                    refs,
                    &sfile,
                    alt,
                    name.to_string(),
                    name.to_string(),
                    false,
                )?);
            }
        }
        if required && leaves.len() > 1 {
            notes.push(format!(
                "the query parameter `{name}` is required in one of its forms; the model is not told which"
            ));
        }
    } else if object_shape(refs, file, schema)?.0 {
        deep_members(
            refs,
            file,
            schema,
            name,
            name,
            required,
            0,
            &mut leaves,
            &mut notes,
        )?;
    } else {
        leaves.push(deep_leaf(
            refs,
            file,
            schema,
            name.to_string(),
            name.to_string(),
            required,
        )?);
    }
    if leaves.is_empty() {
        return Err(
            "its schema names no member, and a request template cannot write a member name the model chooses into a `name[member]` key".into(),
        );
    }
    if leaves.len() > DEEP_LEAVES {
        return Err(format!(
            "its schema names {} members, more than the {DEEP_LEAVES} a tool takes as arguments",
            leaves.len()
        ));
    }
    Ok((leaves, notes))
}

/// Whether a schema is an object (`type: object`, or members named directly or through
/// `allOf`), and whether it names members.
fn object_shape(refs: &mut Refs, file: &Path, schema: &Value) -> Result<(bool, bool), String> {
    let (_, s) = refs.deref(file, schema)?;
    let typed = match s.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(a)) => a.iter().any(|t| t == "object"),
        _ => false,
    };
    let mut fields = FormFields::default();
    fields.collect(refs, file, schema, 0)?;
    let named = !fields.props.is_empty();
    Ok((typed || named, named))
}

/// The members of an object under `key`, each a leaf or, when an object itself, its
/// members in turn.
#[allow(clippy::too_many_arguments)]
fn deep_members(
    refs: &mut Refs,
    file: &Path,
    schema: &Value,
    key: &str,
    arg: &str,
    required: bool,
    depth: usize,
    leaves: &mut Vec<DeepLeaf>,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let mut fields = FormFields::default();
    fields.collect(refs, file, schema, 0)?;
    let (_, resolved) = refs.deref(file, schema)?;
    let open = !matches!(
        resolved.get("additionalProperties"),
        None | Some(Value::Bool(false))
    );
    if open && !fields.props.is_empty() {
        notes.push(format!(
            "`{key}` may hold members its schema does not name: only the named ones are sent"
        ));
    }
    for (member, mfile, mschema) in &fields.props {
        // Bounded: a hostile or recursive schema stops adding once the tool is too big.
        if leaves.len() > DEEP_LEAVES {
            return Ok(());
        }
        let member_key = format!("{key}[{member}]");
        let member_arg = format!("{arg}_{member}");
        let member_required = required && fields.required.contains(member);
        let (object, named) = object_shape(refs, mfile, mschema)?;
        if object {
            if depth + 1 >= DEEP_DEPTH || !named {
                if member_required {
                    return Err(format!(
                        "its member `{member_key}` is an object whose members cannot be sent"
                    ));
                }
                notes.push(format!(
                    "the member `{member_key}` is not sent: an object {}",
                    if named {
                        format!("nested more than {DEEP_DEPTH} deep")
                    } else {
                        "whose members the schema does not name".into()
                    }
                ));
                continue;
            }
            deep_members(
                refs,
                mfile,
                mschema,
                &member_key,
                &member_arg,
                member_required,
                depth + 1,
                leaves,
                notes,
            )?;
            continue;
        }
        match deep_leaf(
            refs,
            mfile,
            mschema,
            member_key.clone(),
            member_arg,
            member_required,
        ) {
            Ok(leaf) => leaves.push(leaf),
            Err(why) if member_required => return Err(why),
            Err(why) => notes.push(format!("the member `{member_key}` is not sent: {why}")),
        }
    }
    Ok(())
}

/// A member sent as itself (`key=v`), or a list as `key[]` repeated; a list of objects
/// has no form a template can write.
fn deep_leaf(
    refs: &mut Refs,
    file: &Path,
    schema: &Value,
    key: String,
    arg: String,
    required: bool,
) -> Result<DeepLeaf, String> {
    let (sfile, s) = refs.deref(file, schema)?;
    let list = match s.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(a)) => a.iter().any(|t| t == "array"),
        _ => false,
    } || s.get("items").is_some();
    if list
        && let Some(items) = s.get("items")
        && (object_shape(refs, &sfile, items)?.0
            || refs
                .deref(&sfile, items)
                .is_ok_and(|(_, i)| i.get("items").is_some()))
    {
        return Err(format!("`{key}` is a list of objects or lists"));
    }
    Ok(DeepLeaf {
        key: if list { format!("{key}[]") } else { key },
        arg,
        file: file.to_path_buf(),
        schema: schema.clone(),
        required,
        list,
    })
}

fn param_schema(p: &Value, dialect: Dialect) -> Value {
    if let Some(s) = p.get("schema") {
        return s.clone();
    }
    if dialect != Dialect::Swagger2 {
        // A 3.x parameter with `content` instead of `schema`: the schema of its media
        // type (there is exactly one), else any value.
        return p
            .get("content")
            .and_then(Value::as_object)
            .and_then(|c| c.values().find_map(|m| m.get("schema")))
            .cloned()
            .unwrap_or_else(|| json!({}));
    }
    let mut s = Map::new();
    if let Some(m) = p.as_object() {
        for (k, v) in m {
            if !matches!(
                k.as_str(),
                "name" | "in" | "required" | "description" | "collectionFormat" | "allowEmptyValue"
            ) && !k.starts_with("x-")
                || k == "x-nullable"
            {
                s.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(s)
}

/// The fields of a form body: its `properties` and `required`, merged through `$ref`
/// and `allOf` (a form is often a shared object plus a few fields of its own).
#[derive(Debug, Default)]
struct FormFields {
    /// (name, file its schema resolves against, schema); the first definition wins.
    props: Vec<(String, PathBuf, Value)>,
    required: Vec<String>,
    /// `oneOf`/`anyOf` keywords whose alternatives' fields were offered side by side.
    alternatives: Vec<&'static str>,
}

impl FormFields {
    fn collect(
        &mut self,
        refs: &mut Refs,
        file: &Path,
        schema: &Value,
        depth: usize,
    ) -> Result<(), String> {
        // A cycle of `allOf`s names no further field.
        if depth > 32 {
            return Ok(());
        }
        let (sfile, resolved) = refs.deref(file, schema)?;
        for r in resolved
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !self.required.iter().any(|x| x == r) {
                self.required.push(r.to_string());
            }
        }
        for (name, ps) in resolved
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if !self.props.iter().any(|(n, _, _)| n == name) {
                self.props.push((name.clone(), sfile.clone(), ps.clone()));
            }
        }
        for part in resolved
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.collect(refs, &sfile, part, depth + 1)?;
        }
        // Alternatives (`oneOf: [{card fields}, {bank fields}]`): every alternative's
        // fields are offered, a field required only when every alternative requires
        // it; the model sends those of the one it means.
        for keyword in ["oneOf", "anyOf"] {
            let Some(branches) = resolved.get(keyword).and_then(Value::as_array) else {
                continue;
            };
            let mut in_every: Option<Vec<String>> = None;
            for branch in branches {
                let mut alt = FormFields::default();
                alt.collect(refs, &sfile, branch, depth + 1)?;
                for (name, f, ps) in alt.props {
                    if !self.props.iter().any(|(n, _, _)| *n == name) {
                        self.props.push((name, f, ps));
                    }
                }
                in_every = Some(match in_every {
                    None => alt.required,
                    Some(so_far) => so_far
                        .into_iter()
                        .filter(|r| alt.required.contains(r))
                        .collect(),
                });
                for k in alt.alternatives {
                    if !self.alternatives.contains(&k) {
                        self.alternatives.push(k);
                    }
                }
            }
            for r in in_every.unwrap_or_default() {
                if !self.required.contains(&r) {
                    self.required.push(r);
                }
            }
            if !branches.is_empty() && !self.alternatives.contains(&keyword) {
                self.alternatives.push(keyword);
            }
        }
        Ok(())
    }
}

/// One `k=v` of a path key's query or fragment.
#[derive(Debug, Clone, PartialEq)]
struct KeyQuery {
    /// Query parameter name, as written.
    name: String,
    /// Its value as written: fixed text, or with `{param}` placeholders (renamed to
    /// the tool's arguments as they are found).
    value: String,
    /// From the `#fragment` rather than the `?query`.
    from_fragment: bool,
}

impl KeyQuery {
    fn is_fixed(&self) -> bool {
        !self.value.contains(['{', '}'])
    }

    /// The value as a request template: placeholders kept, the text between them
    /// literal (braces and `$` escaped).
    fn template(&self) -> String {
        let mut out = String::new();
        let mut rest = self.value.as_str();
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}') else {
                break;
            };
            out.push_str(&super::escape_env(&Template::escape(&rest[..open])));
            out.push_str(&rest[open..=open + close]);
            rest = &rest[open + close + 1..];
        }
        out.push_str(&super::escape_env(&Template::escape(rest)));
        out
    }
}

/// A path key split into the path and the query it names. Keys must be unique, so
/// specs write `/alerts?lat={lat}&lon={lon}` beside `/alerts?city={city}`, and
/// `/#Action=AddTagsToResource` for every action of a one-URL API. A URL's fragment
/// is never sent: a fixed `k=v` in it is kept as a query parameter (the request must
/// carry it), a bare word (`#uploadId`) only told two keys apart and is dropped.
fn split_path_key(key: &str) -> (String, Vec<KeyQuery>) {
    let (before, fragment) = match key.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (key, None),
    };
    let (path, query) = match before.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (before, None),
    };
    let mut out: Vec<KeyQuery> = Vec::new();
    for pair in query.into_iter().flat_map(|q| q.split('&')) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if !name.is_empty() && !out.iter().any(|q| q.name == name) {
            out.push(KeyQuery {
                name: name.to_string(),
                value: value.to_string(),
                from_fragment: false,
            });
        }
    }
    for pair in fragment.into_iter().flat_map(|f| f.split('&')) {
        if let Some((name, value)) = pair.split_once('=')
            && !name.is_empty()
            && !value.is_empty()
            && !value.contains(['{', '}'])
            && !out.iter().any(|q| q.name == name)
        {
            out.push(KeyQuery {
                name: name.to_string(),
                value: value.to_string(),
                from_fragment: true,
            });
        }
    }
    let path = if path.is_empty() { "/" } else { path };
    (path.to_string(), out)
}

/// Renames placeholder `{name}` to `{arg}` in the path key's query; whether it was there.
fn rename_in_key_query(key_query: &mut [KeyQuery], name: &str, arg: &str) -> bool {
    let from = format!("{{{name}}}");
    let mut found = false;
    for q in key_query.iter_mut() {
        if q.value.contains(&from) {
            q.value = q.value.replace(&from, &format!("{{{arg}}}"));
            found = true;
        }
    }
    found
}

/// A bound path value: a `${VAR}` reference stays as written (the config expands it
/// when it is loaded); a constant is percent-encoded as one path segment.
fn path_value(value: &str) -> String {
    if value.contains("${") {
        value.to_string()
    } else {
        percent_encoding::utf8_percent_encode(value, percent_encoding::NON_ALPHANUMERIC)
            .to_string()
            .replace("%2D", "-")
            .replace("%2E", ".")
            .replace("%5F", "_")
            .replace("%7E", "~")
    }
}

/// Whether a form field holds an array or object, which a form has no one way to send.
fn is_structured(schema: &Value) -> bool {
    let ty = |t: &str| match schema.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(a)) => a.iter().any(|x| x == t),
        _ => false,
    };
    ty("array")
        || ty("object")
        || schema.get("properties").is_some()
        || schema.get("items").is_some()
}

/// How a structured form field is sent, from its OpenAPI `encoding` entry: `style:
/// deepObject` → `deep` (`a[b]=`, `a[0][b]=`), `form` with `explode: false` → `comma`,
/// `form` exploded (the default) → `repeat` (`a=1&a=2`).
fn form_style_of(encoding: Option<&Value>) -> Result<FormFieldStyle, String> {
    let style = encoding
        .and_then(|e| e.get("style"))
        .and_then(Value::as_str);
    let explode = encoding
        .and_then(|e| e.get("explode"))
        .and_then(Value::as_bool);
    // A field whose encoding names a JSON media type and no style is that type's text
    // (OpenAPI 3.1.1 § 4.8.15: `contentType` applies unless a style is given).
    let json_type = encoding
        .and_then(|e| e.get("contentType"))
        .and_then(Value::as_str)
        .is_some_and(|t| t.split(',').any(|t| is_json(t.trim()) && !is_any(t.trim())));
    if json_type && style.is_none() && explode.is_none() {
        return Ok(FormFieldStyle::Json);
    }
    let style = style.unwrap_or("form");
    let explode = explode.unwrap_or(style == "form");
    match (style, explode) {
        ("deepObject", _) => Ok(FormFieldStyle::Template("deep")),
        ("form", false) => Ok(FormFieldStyle::Template("comma")),
        // Exploded, a delimited list is the field repeated, as `form` is.
        ("form" | "pipeDelimited" | "spaceDelimited", true) => {
            Ok(FormFieldStyle::Template("repeat"))
        }
        (other, _) => Err(other.to_string()),
    }
}

/// How a URL-encoded form field holding a list or object is sent.
#[derive(Debug, PartialEq, Eq)]
enum FormFieldStyle {
    /// A style the form template writes (`request.form_style`): `repeat`, `comma`, `deep`.
    Template(&'static str),
    /// The field's value as JSON text, as its `encoding.contentType` says.
    Json,
}

/// Whether a path parameter's value is a path of its own: Google's resource names
/// (`Format: \`projects/…/locations/…\``, a `pattern` with `/`), Azure's
/// `x-ms-skip-url-encoding`. A request template sends a value as one segment.
/// Puts `placeholder` where the path key names `name`. RFC 6570 operator expressions
/// keep their separator as literal text: `{.format}` is sent as `.json` and `{/id}` as
/// `/7`, not `json` and `7` glued to what precedes them; `{;v}` becomes `;v=2`, and
/// `{+name}` stays a reserved expansion. Some published descriptions name the
/// parameter with the operator (`.format`), others without it (`format`).
/// `path` with the parameter `name` (`{name}`, or the key's own `{.name}`/`{;name}`)
/// replaced by `written`, which already carries the style's prefix.
fn written_in_place_of(path: &str, name: &str, written: &str) -> String {
    ["", ".", ";"].iter().fold(path.to_string(), |path, op| {
        path.replace(&format!("{{{op}{name}}}"), written)
    })
}

fn with_operator_expressions(path: &str, name: &str, placeholder: &str) -> String {
    let mut path = path.replace(&format!("{{{name}}}"), &{
        let bare = name.trim_start_matches(['.', '/', ';']);
        match name.chars().next() {
            Some(op @ ('.' | '/')) if !bare.is_empty() => format!("{op}{placeholder}"),
            Some(';') if !bare.is_empty() => format!(";{bare}={placeholder}"),
            _ => placeholder.to_string(),
        }
    });
    for op in ['.', '/'] {
        path = path.replace(&format!("{{{op}{name}}}"), &format!("{op}{placeholder}"));
    }
    path = path.replace(&format!("{{;{name}}}"), &format!(";{name}={placeholder}"));
    let reserved = placeholder.replacen('{', "{+", 1).replacen("{++", "{+", 1);
    path.replace(&format!("{{+{name}}}"), &reserved)
}

fn holds_slashes(p: &Value, schema: &Value) -> bool {
    let pattern_has_slash = schema
        .get("pattern")
        .and_then(Value::as_str)
        .is_some_and(|x| x.contains('/'));
    let format_has_slash = p
        .get("description")
        .and_then(Value::as_str)
        .is_some_and(|d| {
            d.split('`')
                .skip(1)
                .step_by(2)
                .any(|code| code.contains('/'))
        });
    pattern_has_slash
        || format_has_slash
        || p.get("x-ms-skip-url-encoding") == Some(&Value::Bool(true))
}

/// Whether `{name}` is a whole segment right after a version segment (`/v1/{name}`,
/// `/v1beta1/{parent}/jobs`, `/v2/{resource}:getIamPolicy`): in an API that names its
/// resources by path (Google's), such a parameter is a resource name, `projects/p/…`.
fn names_a_resource(path: &str, name: &str) -> bool {
    let placeholder = format!("{{{name}}}");
    path.match_indices(&placeholder).any(|(at, _)| {
        let before = path[..at].strip_suffix('/').unwrap_or("x");
        let version = before.rsplit('/').next().unwrap_or("");
        let after = &path[at + placeholder.len()..];
        is_version_segment(version) && (after.is_empty() || after.starts_with(['/', ':']))
    })
}

/// `v1`, `v2beta`, `v1beta1`, `v1alpha2`.
fn is_version_segment(segment: &str) -> bool {
    segment
        .strip_prefix('v')
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        && segment.chars().all(|c| c.is_ascii_alphanumeric())
}

/// `api-version`, `api_version`, `apiVersion`, `x-api-version`.
fn is_api_version(name: &str) -> bool {
    let lower = name.to_ascii_lowercase().replace(['-', '_'], "");
    lower == "apiversion" || lower == "xapiversion"
}

/// The only value a parameter may take (`enum: [v]` or `const: v`), if there is one.
fn single_value(refs: &mut Refs, file: &Path, schema: &Value) -> Option<Value> {
    let (_, s) = refs.deref(file, schema).ok()?;
    if let Some(c) = s.get("const") {
        return Some(c.clone());
    }
    match s.get("enum").and_then(Value::as_array) {
        Some(e) if e.len() == 1 => Some(e[0].clone()),
        _ => None,
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An argument name the request template accepts (`[A-Za-z0-9_-]`), unique in the tool.
fn unique_arg(used: &mut HashSet<String>, name: &str, location: &str) -> String {
    let mut base: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if base.is_empty() {
        base = "arg".into();
    }
    if used.insert(base.clone()) {
        return base;
    }
    let located = format!("{base}_{location}");
    if used.insert(located.clone()) {
        return located;
    }
    let mut n = 2;
    loop {
        let c = format!("{located}_{n}");
        if used.insert(c.clone()) {
            return c;
        }
        n += 1;
    }
}

fn undeclared(path: &str, args: &[Arg]) -> Vec<String> {
    let template = toolgate_config::template::Template::parse(path);
    let mut out: Vec<String> = template
        .arguments()
        .filter(|a| !args.iter().any(|x| x.name == *a))
        .map(str::to_string)
        .collect();
    out.dedup();
    out
}

/// The model's description: summary, then description, trimmed; deprecation first,
/// with its dates and the vendor's sentence about it when the description gives them;
/// how to page last, after the cut, so a long description never loses it.
fn describe(
    op: &Value,
    method: &str,
    path: &str,
    deprecation: Option<&deprecation::Deprecation>,
    paging: Option<&str>,
) -> String {
    // Read as text before they are compared and joined: a summary in `<p>` is still
    // the start of the description, and its full stop still ends it.
    let summary = super::text::plain(op.get("summary").and_then(Value::as_str).unwrap_or(""));
    let summary = summary.trim();
    let description =
        super::text::plain(op.get("description").and_then(Value::as_str).unwrap_or(""));
    let description = description.trim();
    let mut text = match (summary.is_empty(), description.is_empty()) {
        (true, true) => format!("{} {path}.", method.to_uppercase()),
        (false, true) => summary.to_string(),
        (true, false) => description.to_string(),
        (false, false) if description.starts_with(summary) => description.to_string(),
        // "…a lat/lon." then the description: no second full stop.
        (false, false) if summary.ends_with(['.', '!', '?', ':', ';', '…']) => {
            format!("{summary} {description}")
        }
        (false, false) => format!("{summary}. {description}"),
    };
    if let Some(d) = deprecation {
        text = format!("{} {text}", d.sentence());
    }
    with_tail(&text, paging, 1000)
}

/// `text` cut near `max` characters with `tail` after it, whole: the tail is what the
/// model must not lose to the cut.
pub(crate) fn with_tail(text: &str, tail: Option<&str>, max: usize) -> String {
    let Some(tail) = tail else {
        return super::text::cut(text, max);
    };
    let room = max.saturating_sub(tail.chars().count() + 1).max(max / 4);
    match super::text::cut(text, room) {
        head if head.is_empty() => tail.to_string(),
        head => format!("{head} {tail}"),
    }
}

/// What a deprecated operation names as its replacement: an `x-` field, or a "use X
/// instead" / "replaced by X" phrase in its description.
pub fn successor_hint(op: &Value) -> Option<String> {
    if let Some(m) = op.as_object() {
        for (k, v) in m {
            let k = k.to_ascii_lowercase();
            if k.starts_with("x-")
                && [
                    "successor",
                    "replac",
                    "supersed",
                    "deprecated-by",
                    "deprecatedby",
                    "alternative",
                ]
                .iter()
                .any(|w| k.contains(w))
                && let Some(s) = v.as_str()
            {
                return Some(s.trim().to_string());
            }
        }
    }
    let text = op.get("description").and_then(Value::as_str)?;
    let lower = text.to_ascii_lowercase();
    for cue in [
        "use the ",
        "use ",
        "replaced by ",
        "superseded by ",
        "in favor of ",
        "in favour of ",
    ] {
        let mut from = 0;
        while let Some(i) = lower[from..].find(cue) {
            let start = from + i + cue.len();
            from = start;
            let rest = &text[start..];
            let word = if let Some(r) = rest.strip_prefix('`') {
                r.split('`').next()
            } else {
                rest.split(|c: char| c.is_whitespace() || c == ',' || c == ')')
                    .next()
            };
            if let Some(w) = word.map(|w| w.trim_end_matches(['.', ';', ':']))
                && !w.is_empty()
                && (w.contains('/') || w.contains('_') || w.contains('.') || rest.starts_with('`'))
            {
                return Some(w.to_string());
            }
        }
    }
    None
}

/// Response-header names → the rate-limit header family to expect (`None`: let
/// toolgate detect it per response).
pub fn header_family(names: &[String]) -> Option<&'static str> {
    let lower: Vec<String> = names.iter().map(|n| n.to_ascii_lowercase()).collect();
    let has = |n: &str| lower.iter().any(|x| x == n);
    let prefix = |p: &str| lower.iter().any(|x| x.starts_with(p));
    if has("x-ratelimit-reset-after") || has("x-ratelimit-bucket") {
        Some("discord")
    } else if prefix("anthropic-ratelimit-") {
        Some("anthropic")
    } else if has("x-ratelimit-limit-requests") || has("x-ratelimit-remaining-tokens") {
        Some("openai")
    } else if prefix("x-hubspot-ratelimit") {
        Some("hubspot")
    } else if prefix("x-sentry-rate-limit") {
        Some("sentry")
    } else if has("sforce-limit-info") {
        Some("salesforce")
    } else if has("x-rate-limit-limit") || has("x-rate-limit-remaining") {
        Some("okta")
    } else if has("ratelimit-observed") || has("ratelimit-resettime") {
        Some("gitlab")
    } else if has("ratelimit")
        || has("ratelimit-policy")
        || has("ratelimit-limit")
        || has("ratelimit-remaining")
    {
        Some("ietf")
    } else if has("x-ratelimit-limit") || has("x-ratelimit-remaining") {
        Some("github")
    } else {
        None
    }
}

/// Headers that announce lifecycle signals toolgate reads whatever the family.
pub fn lifecycle_headers(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = names
        .iter()
        .filter(|n| {
            let l = n.to_ascii_lowercase();
            matches!(
                l.as_str(),
                "retry-after" | "deprecation" | "sunset" | "warning"
            )
        })
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Grouped skip reasons, most frequent first.
pub fn group(skipped: &[(String, String)]) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, reason) in skipped {
        *counts.entry(reason.as_str()).or_default() += 1;
    }
    let mut v: Vec<(String, usize)> = counts
        .into_iter()
        .map(|(k, n)| (k.to_string(), n))
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn header_families_from_documented_headers() {
        assert_eq!(
            header_family(&names(&[
                "X-RateLimit-Limit",
                "X-RateLimit-Remaining",
                "X-RateLimit-Reset-After",
                "X-RateLimit-Bucket"
            ])),
            Some("discord")
        );
        assert_eq!(
            header_family(&names(&[
                "X-RateLimit-Limit",
                "X-RateLimit-Remaining",
                "X-RateLimit-Reset"
            ])),
            Some("github")
        );
        assert_eq!(
            header_family(&names(&[
                "ratelimit-limit",
                "ratelimit-remaining",
                "ratelimit-reset"
            ])),
            Some("ietf")
        );
        assert_eq!(
            header_family(&names(&["RateLimit-Policy", "RateLimit"])),
            Some("ietf")
        );
        assert_eq!(
            header_family(&names(&["RateLimit-Limit", "RateLimit-Observed"])),
            Some("gitlab")
        );
        assert_eq!(
            header_family(&names(&["x-ratelimit-limit-requests"])),
            Some("openai")
        );
        assert_eq!(
            header_family(&names(&["X-Rate-Limit-Remaining"])),
            Some("okta")
        );
        assert_eq!(
            header_family(&names(&["anthropic-ratelimit-requests-limit"])),
            Some("anthropic")
        );
        assert_eq!(header_family(&names(&["ETag", "Link"])), None);
        assert_eq!(
            lifecycle_headers(&names(&["Sunset", "ETag", "Retry-After", "Deprecation"])),
            names(&["Deprecation", "Retry-After", "Sunset"])
        );
    }

    #[test]
    fn successor_from_description_or_extension() {
        let op = json!({"description": "**Note: This endpoint is deprecated. Please use the `/v2/registries` endpoint instead.**"});
        assert_eq!(successor_hint(&op).as_deref(), Some("/v2/registries"));
        let op = json!({"description": "Deprecated; replaced by conversations.list."});
        assert_eq!(successor_hint(&op).as_deref(), Some("conversations.list"));
        let op = json!({"x-replaced-by": "list_things_v2", "description": "old"});
        assert_eq!(successor_hint(&op).as_deref(), Some("list_things_v2"));
        assert_eq!(
            successor_hint(&json!({"description": "Use with care."})),
            None
        );
    }

    #[test]
    fn json_media_types() {
        assert!(is_json("application/json; charset=utf-8"));
        assert!(is_json("application/problem+json"));
        assert!(!is_json("text/html"));
    }
}
