//! Compiling one tool: owner, dependency reference, input schema, request template,
//! and the versioned response contract (inline or from a file).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use http::Method;
use http::header::HeaderName;
use serde_json::{Map, Value, json};
use toolgate_contract::ResponseContract;

use super::{Compiler, Defined, known, limits};
use crate::model::*;
use crate::raw::*;
use crate::template::{
    BodyEncoding, FormStyle, RequestTemplate, Template, json_media_type, text_media_type,
};

impl Compiler<'_> {
    pub(super) fn tool(
        &mut self,
        name: &str,
        raw: RawTool,
        deps: &BTreeMap<String, Arc<Dependency>>,
        defined: &Defined,
        gateway: &GatewayConfig,
    ) -> Option<ToolSpec> {
        let path = format!("tools.{name}");
        if crate::BUILT_IN_TOOLS.contains(&name) {
            self.err(
                &path,
                "`dependency_health` is a built-in tool",
                "give this tool another name",
            );
        }
        if !valid_tool_name(name) {
            self.err(
                &path,
                format!("`{name}` is not a valid tool name"),
                "use 1–64 letters, digits, `_`, `-` or `.`",
            );
        }
        let owner = match raw.owner.as_deref().map(str::trim) {
            // `<…>` is a placeholder (the import writes one when no owner is given).
            Some(o) if o.starts_with('<') && o.ends_with('>') => {
                self.err(
                    format!("{path}.owner"),
                    format!("tool `{name}`'s owner is the placeholder `{o}`"),
                    "set the person or rota in your organisation alerted when its contract drifts (`toolgate import openapi --owner` sets every imported tool's)",
                );
                None
            }
            Some(o) if !o.is_empty() => Some(o.to_string()),
            _ => {
                self.err(format!("{path}.owner"), format!("tool `{name}` has no owner"), "add `owner: alice@example.com` — the person or rota alerted when its contract drifts");
                None
            }
        };
        let dependency = deps.get(&raw.dependency).cloned();
        // A dependency that is written but has errors of its own is reported there;
        // the tools using it are not told it does not exist.
        if dependency.is_none() && !defined.dependencies.contains(&raw.dependency) {
            let names = defined.dependencies.iter().map(String::as_str);
            let help = match known::did_you_mean(&raw.dependency, names.clone()) {
                Some(best) => format!("did you mean `{best}`?"),
                None if defined.dependencies.is_empty() => {
                    "define it under `dependencies:` (none are defined)".to_string()
                }
                None => format!(
                    "define it under `dependencies:` or use one of: {}",
                    names.collect::<Vec<_>>().join(", ")
                ),
            };
            self.err(
                format!("{path}.dependency"),
                format!(
                    "tool `{name}` uses dependency `{}`, which is not defined",
                    raw.dependency
                ),
                &help,
            );
        }
        if let Some(s) = &raw.successor
            && !defined.tools.contains(s)
        {
            let help = match known::did_you_mean(s, defined.tools.iter().map(String::as_str)) {
                Some(best) => format!("did you mean `{best}`?"),
                None => "name a tool defined under `tools:`, or remove `successor`".to_string(),
            };
            self.err(
                format!("{path}.successor"),
                format!("successor `{s}` is not a configured tool"),
                &help,
            );
        }
        let input_schema = self.input_schema(&path, raw.input_schema);
        // A shorter schema for the model, and the full one arguments are checked against.
        let full_input = raw
            .full_input_schema
            .map(|f| self.input_schema_named(&path, "full_input_schema", Some(f)));
        let checked = match &full_input {
            Some(f) => f.as_ref(),
            None => input_schema.as_ref(),
        };
        let request = self.request(&path, raw.request, checked.map(|(s, _)| s));
        let contract = match raw.contract {
            Some(c) => self.contract(&path, c, gateway.learn),
            None => Some(self.learned_contract(
                &format!("{path}.contract"),
                LEARNED_VERSION.to_string(),
                None,
                None,
                gateway.learn,
            )),
        };
        let probe = raw.probe.map(|p| Probe {
            every: self.duration_min(
                format!("{path}.probe.every"),
                p.every.as_ref(),
                Duration::from_secs(3600),
                limits::MIN_PROBE_EVERY,
            ),
            arguments: p.arguments,
        });
        let deadline = self.duration_min(
            format!("{path}.deadline"),
            raw.deadline.as_ref(),
            gateway.deadline,
            limits::MIN_DEADLINE,
        );
        let a = raw.annotations.unwrap_or_default();
        let notes = self.notes_mode(format!("{path}.notes"), raw.notes.as_deref(), gateway.notes);
        let (input_schema, mut input_validator) = input_schema?;
        if let Some(full) = full_input {
            input_validator = full?.1;
        }
        let mut contract = contract?;
        // Without `structuredContent` there is no `outputSchema` to list and no member
        // for the notes: they travel in the text, whatever the mode.
        contract.advertised = raw.structured_content.unwrap_or(gateway.structured_content);
        let notes_member = notes_member(&contract.output_schema).filter(|_| contract.advertised);
        Some(ToolSpec {
            name: name.to_string(),
            dependency: dependency?,
            owner: owner?,
            description: raw
                .description
                .unwrap_or_else(|| format!("Calls {}.", raw.dependency)),
            title: raw.title,
            kind: ToolKind::Http(request?),
            annotations: Annotations {
                read_only: a.read_only_hint,
                destructive: a.destructive_hint,
                idempotent: a.idempotent_hint,
                open_world: a.open_world_hint,
            },
            input_schema,
            input_validator,
            contract,
            probe,
            successor: raw.successor,
            deadline,
            notes,
            notes_member,
        })
    }

    pub(super) fn input_schema(
        &mut self,
        path: &str,
        raw: Option<Value>,
    ) -> Option<(Map<String, Value>, Arc<jsonschema::Validator>)> {
        self.input_schema_named(path, "input_schema", raw)
    }

    fn input_schema_named(
        &mut self,
        path: &str,
        key: &str,
        raw: Option<Value>,
    ) -> Option<(Map<String, Value>, Arc<jsonschema::Validator>)> {
        let schema = raw.unwrap_or_else(|| json!({ "type": "object", "properties": {} }));
        let Value::Object(map) = &schema else {
            self.err(
                format!("{path}.{key}"),
                format!("{key} must be a JSON Schema object"),
                "write `input_schema: { type: object, properties: {...} }`",
            );
            return None;
        };
        if map.get("type").is_some_and(|t| t != "object") {
            self.err(
                format!("{path}.{key}.type"),
                "MCP tool arguments are always an object",
                "set `type: object`",
            );
            return None;
        }
        // Its file $refs obey the same rule as the contract's (see `SchemaFiles`).
        match jsonschema::draft202012::options()
            .with_retriever(self.files.clone())
            .build(&schema)
        {
            Ok(v) => Some((map.clone(), Arc::new(v))),
            Err(e) => {
                self.err(
                    format!("{path}.{key}"),
                    format!("{key} is not a valid JSON Schema: {e}"),
                    "fix the schema (JSON Schema 2020-12)",
                );
                None
            }
        }
    }

    pub(super) fn request(
        &mut self,
        path: &str,
        raw: RawRequest,
        input_schema: Option<&Map<String, Value>>,
    ) -> Option<RequestTemplate> {
        let rpath = format!("{path}.request");
        let method_text = raw
            .method
            .unwrap_or_else(|| "GET".into())
            .to_ascii_uppercase();
        let method = match Method::from_bytes(method_text.as_bytes()) {
            Ok(m) if ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"].contains(&m.as_str()) => {
                Some(m)
            }
            _ => {
                self.err(
                    format!("{rpath}.method"),
                    format!("`{method_text}` is not a supported method"),
                    "use GET, POST, PUT, PATCH, DELETE or HEAD",
                );
                None
            }
        };
        if !raw.path.starts_with('/') {
            self.err(
                format!("{rpath}.path"),
                format!("path `{}` must start with `/`", raw.path),
                "the path is appended to the dependency's base_url; write it like `/v3/search`",
            );
        }
        // A value bound in config (an account id in the path) may come from the
        // environment: `${VAR}` is expanded before `{argument}`s are read.
        let bound = |this: &mut Self, at: String, text: &str| {
            if text.contains("${") {
                this.expand(&at, text)
            } else {
                text.to_string()
            }
        };
        let raw_path = bound(self, format!("{rpath}.path"), &raw.path);
        let query: Vec<(String, Template)> = raw
            .query
            .iter()
            .map(|(k, v)| {
                let v = bound(self, format!("{rpath}.query.{k}"), v);
                (k.clone(), Template::parse(&v))
            })
            .collect();
        let mut headers = Vec::new();
        for (k, v) in raw.headers {
            let v = bound(self, format!("{rpath}.headers.{k}"), &v);
            match HeaderName::from_bytes(k.as_bytes()) {
                Ok(n) => headers.push((n, Template::parse(&v))),
                Err(_) => self.err(
                    format!("{rpath}.headers.{k}"),
                    format!("`{k}` is not a valid header name"),
                    "use letters, digits and `-`",
                ),
            }
        }
        let body_encoding = match raw.body_encoding.as_deref() {
            None | Some("json") => BodyEncoding::Json,
            Some("form") => {
                if raw.body.as_ref().is_some_and(|b| !b.is_object()) {
                    self.err(
                        format!("{rpath}.body"),
                        "a form body must be an object of fields",
                        "write `body: { field: \"{arg}\" }`",
                    );
                }
                BodyEncoding::Form
            }
            Some("text") => {
                if raw.body.as_ref().is_some_and(|b| !b.is_string()) {
                    self.err(
                        format!("{rpath}.body"),
                        "a text body must be a string",
                        "write `body: \"{arg}\"`, the argument holding the text to send",
                    );
                }
                BodyEncoding::Text
            }
            Some(other) => {
                self.err(
                    format!("{rpath}.body_encoding"),
                    format!("unknown body encoding `{other}`"),
                    "use `json` (the default), `form` or `text`",
                );
                BodyEncoding::Json
            }
        };
        let content_type = match raw.content_type.as_deref() {
            None => None,
            Some(_) if body_encoding == BodyEncoding::Form => {
                self.err(
                    format!("{rpath}.content_type"),
                    "content_type applies to json and text bodies only",
                    "remove `content_type`: a form body is application/x-www-form-urlencoded",
                );
                None
            }
            Some(media) if body_encoding == BodyEncoding::Text => match text_media_type(media) {
                Some(value) => Some(value),
                None => {
                    self.err(
                        format!("{rpath}.content_type"),
                        format!("`{media}` is not a media type a body can be sent as"),
                        "use one `type/subtype`, such as `application/xml` or `text/plain; charset=utf-8`",
                    );
                    None
                }
            },
            Some(media) => match json_media_type(media) {
                Some(value) => Some(value),
                None => {
                    self.err(
                        format!("{rpath}.content_type"),
                        format!("`{media}` is not a JSON media type"),
                        "use a `type/json` or `type/subtype+json` media type, such as `application/merge-patch+json`",
                    );
                    None
                }
            },
        };
        let mut form_style = BTreeMap::new();
        for (field, style) in &raw.form_style {
            match FormStyle::parse(style) {
                Some(st) if body_encoding == BodyEncoding::Form => {
                    form_style.insert(field.clone(), st);
                }
                Some(_) => self.err(
                    format!("{rpath}.form_style"),
                    "form_style applies to form bodies only",
                    "add `body_encoding: form`, or remove `form_style`",
                ),
                None => self.err(
                    format!("{rpath}.form_style.{field}"),
                    format!("unknown form style `{style}`"),
                    "use `json`, `repeat`, `comma`, `brackets` or `deep`",
                ),
            }
        }
        let template = RequestTemplate {
            method: method?,
            path: Template::parse(&raw_path),
            query,
            headers,
            body: raw.body,
            body_encoding,
            content_type,
            form_style,
        };
        if let Some(props) = input_schema
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
        {
            let mut missing: Vec<&str> = template
                .arguments()
                .into_iter()
                .filter(|a| !props.contains_key(*a))
                .collect();
            missing.dedup();
            if !missing.is_empty() {
                self.err(&rpath, format!("the request uses {} but input_schema declares no such propert{}", missing.iter().map(|m| format!("{{{m}}}")).collect::<Vec<_>>().join(", "), if missing.len() == 1 { "y" } else { "ies" }), "add the argument to input_schema.properties, or fix the placeholder's spelling");
            }
        }
        Some(template)
    }

    pub(super) fn contract(
        &mut self,
        path: &str,
        raw: RawContract,
        learn: Option<Learn>,
    ) -> Option<Contract> {
        let cpath = format!("{path}.contract");
        if !is_major_minor(&raw.version) {
            self.err(
                format!("{cpath}.version"),
                format!("contract version `{}` is not `major.minor`", raw.version),
                "write it like \"3.1\" (quoted, so YAML keeps it a string)",
            );
        }
        // No schema, or one that declares nothing (`{}`, `true`): learn it.
        let declares_nothing = match &raw.response_schema {
            None | Some(Value::Bool(true)) => true,
            Some(Value::Object(m)) => m.is_empty(),
            Some(_) => false,
        };
        if declares_nothing {
            if raw.origin.is_some() {
                self.err(
                    format!("{cpath}.origin"),
                    "`origin` names who wrote a response_schema, and this contract has none (it is learned)",
                    "remove `origin`, or add the response_schema it names",
                );
            }
            return Some(self.learned_contract(
                &cpath,
                raw.version,
                raw.on_drift.as_deref(),
                raw.learn.as_ref(),
                learn,
            ));
        }
        let origin = self.origin(&cpath, raw.origin.as_deref());
        if raw.learn.is_some() {
            self.err(
                format!("{cpath}.learn"),
                "`learn` applies to contracts without a response_schema",
                "remove `learn`, or remove the response_schema to learn the contract instead",
            );
        }
        let on_drift = self.on_drift(&cpath, raw.on_drift.as_deref(), OnDrift::Fail);
        let (schema, base) = self.load_schema(
            &format!("{cpath}.response_schema"),
            raw.response_schema.unwrap_or(Value::Bool(true)),
        )?;
        let response = match self.contracts.compile(&schema, Some(&base), &self.files) {
            Ok(r) => r,
            Err(e) => {
                self.err(
                    format!("{cpath}.response_schema"),
                    format!("response_schema is not usable: {e}"),
                    "fix the schema (JSON Schema 2020-12)",
                );
                return None;
            }
        };
        // A client cannot follow `toolgate:schemas/…` references: it is shown the
        // components by name, and the contract still enforces them whole.
        let (output_schema, wraps_result) = match response.shared() {
            Some(set) => output_schema(&set.summarise(&schema)),
            None => output_schema(&schema),
        };
        Some(Contract {
            version: raw.version,
            response,
            output_schema,
            wraps_result,
            advertised: true,
            origin,
            on_drift,
            learn: None,
        })
    }

    /// Who wrote a declared `response_schema`: a person (`declared`, the default) or
    /// the OpenAPI import (`imported`).
    fn origin(&mut self, cpath: &str, raw: Option<&str>) -> ContractOrigin {
        match raw {
            None | Some("declared") => ContractOrigin::Declared,
            Some("imported") => ContractOrigin::Imported,
            Some(other) => {
                self.err(
                    format!("{cpath}.origin"),
                    format!("unknown contract origin `{other}`"),
                    "use `declared` (a person wrote the response_schema) or `imported` (taken from an API description)",
                );
                ContractOrigin::Declared
            }
        }
    }

    /// A contract learned from the tool's responses (or none, with learning off): it
    /// accepts anything until it is enforced; the body is advertised wrapped, as for
    /// any schema that is not an object's.
    pub(super) fn learned_contract(
        &mut self,
        cpath: &str,
        version: String,
        on_drift: Option<&str>,
        raw: Option<&RawLearn>,
        base: Option<Learn>,
    ) -> Contract {
        let learn = self.learn(&format!("{cpath}.learn"), raw, base);
        let on_drift = self.on_drift(cpath, on_drift, OnDrift::Warn);
        let anything = json!({});
        let (output_schema, wraps_result) = output_schema(&anything);
        Contract {
            version,
            response: ResponseContract::compile(&anything, None)
                .expect("the empty schema compiles"),
            output_schema,
            wraps_result,
            advertised: true,
            origin: if learn.is_some() {
                ContractOrigin::Learned
            } else {
                ContractOrigin::None
            },
            on_drift,
            learn,
        }
    }

    pub(super) fn on_drift(&mut self, cpath: &str, raw: Option<&str>, default: OnDrift) -> OnDrift {
        match raw {
            None => default,
            Some("fail") => OnDrift::Fail,
            Some("warn") => OnDrift::Warn,
            Some(other) => {
                self.err(
                    format!("{cpath}.on_drift"),
                    format!("unknown on_drift `{other}`"),
                    "use `fail` (the call fails with the diff) or `warn` (the call returns the data with a note)",
                );
                default
            }
        }
    }

    /// Learning settings: each key given replaces the one in `base`; `None` when off.
    pub(super) fn learn(
        &mut self,
        path: &str,
        raw: Option<&RawLearn>,
        base: Option<Learn>,
    ) -> Option<Learn> {
        let Some(raw) = raw else {
            return base;
        };
        let enabled = raw.enabled.unwrap_or(true);
        let mut learn = base.unwrap_or_default();
        if let Some(n) = raw.enforce_after {
            if n == 0 {
                self.err(
                    format!("{path}.enforce_after"),
                    "enforce_after is 0: nothing would be learned before the contract is enforced",
                    "use at least 1 (the default is 20)",
                );
            }
            learn.enforce_after = n.max(1);
        }
        if let Some(n) = raw.max_paths {
            if n == 0 {
                self.err(
                    format!("{path}.max_paths"),
                    "max_paths is 0: no field could be learned",
                    "use at least 1 (the default is 1000)",
                );
            }
            learn.max_paths = (n as usize).max(1);
        }
        enabled.then_some(learn)
    }

    /// Inline schema, or `{ $ref: file }` loaded relative to the config file.
    pub(super) fn load_schema(&mut self, path: &str, raw: Value) -> Option<(Value, PathBuf)> {
        let file_ref = match &raw {
            Value::Object(m) if m.len() == 1 => m
                .get("$ref")
                .and_then(Value::as_str)
                .filter(|r| !r.starts_with('#') && !r.starts_with("toolgate:")),
            _ => None,
        };
        let Some(file_ref) = file_ref else {
            return Some((raw, self.dir.clone()));
        };
        let file = self.dir.join(file_ref);
        let bytes = match self.files.read(&file) {
            Ok(b) => b,
            Err(e) => {
                self.err(
                    format!("{path}.$ref"),
                    format!("cannot use schema file {file_ref}: {e}"),
                    "the path is relative to the config file; files outside its directory need gateway.schema_roots",
                );
                return None;
            }
        };
        // Parse errors say where, never what: the message must not echo the file.
        let parsed: Result<Value, String> = match std::str::from_utf8(&bytes) {
            Err(_) => Err("not UTF-8 text".into()),
            Ok(text) if file_ref.ends_with(".json") => serde_json::from_str(text)
                .map_err(|e| format!("not JSON (line {}, column {})", e.line(), e.column())),
            Ok(text) => yaml_serde::from_str(text).map_err(|e| match e.location() {
                Some(l) => format!("not YAML (line {}, column {})", l.line(), l.column()),
                None => "not YAML".into(),
            }),
        };
        match parsed {
            Ok(v @ (Value::Object(_) | Value::Bool(_))) => Some((
                v,
                file.parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| self.dir.clone()),
            )),
            Ok(_) => {
                self.err(
                    format!("{path}.$ref"),
                    format!("schema file {file_ref} is not a JSON Schema object"),
                    "the file must hold one JSON Schema object, e.g. `{\"type\": \"object\"}`",
                );
                None
            }
            Err(e) => {
                self.err(
                    format!("{path}.$ref"),
                    format!("schema file {file_ref} is {e}"),
                    "fix the file's JSON (or YAML)",
                );
                None
            }
        }
    }
}

/// The `outputSchema` advertised over MCP. MCP requires an object; a contract for a
/// non-object body (an array, a scalar) is wrapped as `{"result": …}`, and so is the body.
pub fn output_schema(schema: &Value) -> (Map<String, Value>, bool) {
    let is_object = schema.get("type").and_then(Value::as_str) == Some("object")
        || (schema.get("type").is_none() && schema.get("properties").is_some());
    if is_object && let Value::Object(m) = schema {
        return (m.clone(), false);
    }
    let mut inner = schema.clone();
    let mut wrapper = Map::new();
    // Definitions must stay at the root for `#/$defs/...` references to resolve.
    for key in ["$schema", "$defs", "definitions"] {
        if let Some(v) = inner.as_object_mut().and_then(|m| m.remove(key)) {
            wrapper.insert(key.to_string(), v);
        }
    }
    wrapper.insert("type".into(), json!("object"));
    wrapper.insert("properties".into(), json!({ "result": inner }));
    wrapper.insert("required".into(), json!(["result"]));
    (wrapper, true)
}

/// The name of the notes member inside `structuredContent`: one the upstream's schema
/// does not use itself, so the member never changes what a declared field means.
pub fn notes_member(output_schema: &Map<String, Value>) -> Option<&'static str> {
    let declared = output_schema.get("properties").and_then(Value::as_object);
    ["toolgate", "_toolgate"]
        .into_iter()
        .find(|name| !declared.is_some_and(|p| p.contains_key(*name)))
}

/// The contract version of a tool that declares no contract.
pub const LEARNED_VERSION: &str = "learned";

fn is_major_minor(v: &str) -> bool {
    let mut parts = v.split('.');
    let ok =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

pub fn valid_tool_name(n: &str) -> bool {
    (1..=64).contains(&n.len())
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_object_contracts_are_wrapped_with_their_definitions_at_the_root() {
        let (s, wrapped) = output_schema(
            &json!({"type": "array", "items": {"$ref": "#/$defs/x"}, "$defs": {"x": {"type": "string"}}}),
        );
        assert!(wrapped);
        assert_eq!(s["$defs"]["x"]["type"], "string");
        assert_eq!(s["properties"]["result"]["type"], "array");
        assert_eq!(s["required"], json!(["result"]));
        let (s, wrapped) = output_schema(&json!({"type": "object", "properties": {}}));
        assert!(!wrapped);
        assert_eq!(s["type"], "object");
    }

    #[test]
    fn the_notes_member_takes_a_name_the_upstream_schema_does_not_use() {
        let m = |v: Value| notes_member(v.as_object().expect("an object"));
        assert_eq!(m(json!({"type": "object"})), Some("toolgate"));
        assert_eq!(
            m(json!({"properties": {"toolgate": {"type": "string"}}})),
            Some("_toolgate")
        );
        assert_eq!(
            m(json!({"properties": {"toolgate": {}, "_toolgate": {}}})),
            None
        );
    }

    fn compile_notes(gateway: &str, tool: &str) -> Result<NotesMode, String> {
        let yaml = format!(
            "{gateway}dependencies:\n  api: {{ base_url: \"http://127.0.0.1:9\" }}\ntools:\n  t:\n    \
             dependency: api\n    owner: o@example.com\n    request: {{ path: /x }}\n{tool}    \
             contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n"
        );
        crate::parse(
            std::path::Path::new("t.yaml"),
            &yaml,
            std::path::Path::new("."),
            &|_| None,
        )
        .map(|c| c.tools["t"].notes)
        .map_err(|e| e.to_string())
    }

    /// Whether the tool lists an `outputSchema` and has a member for its notes.
    fn compile_structured(gateway: &str, tool: &str) -> (bool, Option<&'static str>) {
        let yaml = format!(
            "{gateway}dependencies:\n  api: {{ base_url: \"http://127.0.0.1:9\" }}\ntools:\n  t:\n    \
             dependency: api\n    owner: o@example.com\n    request: {{ path: /x }}\n{tool}    \
             contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n"
        );
        let config = crate::parse(
            std::path::Path::new("t.yaml"),
            &yaml,
            std::path::Path::new("."),
            &|_| None,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let t = &config.tools["t"];
        (t.contract.advertised, t.notes_member)
    }

    #[test]
    fn structured_content_is_on_by_default_the_gateway_turns_it_off_and_a_tool_overrides() {
        assert_eq!(compile_structured("", ""), (true, Some("toolgate")));
        let off = "gateway:\n  structured_content: false\n";
        assert_eq!(compile_structured(off, ""), (false, None));
        assert_eq!(
            compile_structured(off, "    structured_content: true\n"),
            (true, Some("toolgate"))
        );
        assert_eq!(
            compile_structured("", "    structured_content: false\n"),
            (false, None)
        );
    }

    #[test]
    fn notes_default_to_inline_the_gateway_sets_them_and_a_tool_overrides() {
        assert_eq!(compile_notes("", ""), Ok(NotesMode::Inline));
        assert_eq!(
            compile_notes("gateway:\n  notes: text\n", ""),
            Ok(NotesMode::Text)
        );
        assert_eq!(
            compile_notes("gateway:\n  notes: text\n", "    notes: structured\n"),
            Ok(NotesMode::Structured)
        );
        let err = compile_notes("", "    notes: strucutred\n").expect_err("a typo is an error");
        assert!(
            err.contains("tools.t.notes") && err.contains("did you mean `structured`?"),
            "{err}"
        );
        let err = compile_notes("gateway:\n  notes: json\n", "").expect_err("not a mode");
        assert!(
            err.contains("gateway.notes") && err.contains("text"),
            "{err}"
        );
    }

    fn compile_contract(gateway: &str, contract: &str) -> Result<Contract, String> {
        let yaml = format!(
            "{gateway}dependencies:\n  api: {{ base_url: \"http://127.0.0.1:9\" }}\ntools:\n  t:\n    \
             dependency: api\n    owner: o@example.com\n    request: {{ path: /x }}\n{contract}"
        );
        crate::parse(
            std::path::Path::new("t.yaml"),
            &yaml,
            std::path::Path::new("."),
            &|_| None,
        )
        .map(|c| c.tools["t"].contract.clone())
        .map_err(|e| e.to_string())
    }

    #[test]
    fn a_tool_without_a_response_schema_learns_its_contract_and_warns_by_default() {
        let c = compile_contract("", "").expect("no contract at all is fine");
        assert_eq!(c.origin, ContractOrigin::Learned);
        assert_eq!(c.on_drift, OnDrift::Warn);
        assert_eq!(c.learn, Some(Learn::default()));
        let c = compile_contract(
            "",
            "    contract: { version: \"1.0\", response_schema: {} }\n",
        )
        .expect("an empty schema declares nothing");
        assert_eq!(c.origin, ContractOrigin::Learned);
        let c = compile_contract(
            "gateway:\n  learn: { enforce_after: 50 }\n",
            "    contract: { version: \"1.0\", on_drift: fail, learn: { max_paths: 10 } }\n",
        )
        .expect("settings merge key by key");
        assert_eq!(c.on_drift, OnDrift::Fail);
        assert_eq!(
            c.learn,
            Some(Learn {
                enforce_after: 50,
                max_paths: 10
            })
        );
        let c = compile_contract("gateway:\n  learn: { enabled: false }\n", "").expect("off");
        assert_eq!(c.origin, ContractOrigin::None);
        let c = compile_contract(
            "",
            "    contract: { version: \"1.0\", response_schema: { type: object } }\n",
        )
        .expect("declared");
        assert_eq!(
            (c.origin, c.on_drift),
            (ContractOrigin::Declared, OnDrift::Fail)
        );
        let err = compile_contract("", "    contract: { version: \"1.0\", on_drift: ignore }\n")
            .expect_err("not a mode");
        assert!(err.contains("tools.t.contract.on_drift"), "{err}");
        let err =
            compile_contract("gateway:\n  learn: { enforce_after: 0 }\n", "").expect_err("zero");
        assert!(err.contains("gateway.learn.enforce_after"), "{err}");
    }

    #[test]
    fn an_imported_response_schema_is_marked_imported_and_enforced_like_a_declared_one() {
        let c = compile_contract(
            "",
            "    contract: { version: \"1.0\", origin: imported, response_schema: { type: object } }\n",
        )
        .expect("imported");
        assert_eq!(
            (c.origin, c.on_drift, c.learn),
            (ContractOrigin::Imported, OnDrift::Fail, None)
        );
        let c = compile_contract(
            "",
            "    contract: { version: \"1.0\", origin: declared, response_schema: { type: object } }\n",
        )
        .expect("declared by name");
        assert_eq!(c.origin, ContractOrigin::Declared);
        let c = compile_contract(
            "",
            "    contract: { version: \"1.0\", origin: imported, on_drift: warn, response_schema: { type: object } }\n",
        )
        .expect("an imported contract may warn");
        assert_eq!(c.on_drift, OnDrift::Warn);
        let err = compile_contract(
            "",
            "    contract: { version: \"1.0\", origin: openapi, response_schema: { type: object } }\n",
        )
        .expect_err("not an origin");
        assert!(
            err.contains("tools.t.contract.origin") && err.contains("imported"),
            "{err}"
        );
        let err = compile_contract(
            "",
            "    contract: { version: \"1.0\", origin: imported, response_schema: {} }\n",
        )
        .expect_err("nothing was imported");
        assert!(
            err.contains("tools.t.contract.origin") && err.contains("learned"),
            "{err}"
        );
    }

    #[test]
    fn versions() {
        assert!(is_major_minor("3.1"));
        assert!(!is_major_minor("3"));
        assert!(!is_major_minor("3.1.0"));
        assert!(!is_major_minor("v3.1"));
    }

    #[test]
    fn body_encoding_is_json_or_form_and_a_form_body_is_an_object() {
        let cfg = |enc: &str, body: &str| {
            format!(
                "dependencies:\n  d: {{base_url: 'https://x.example.com'}}\ntools:\n  t:\n    dependency: d\n    owner: o@example.com\n    request: {{method: POST, path: /p, body: {body}, body_encoding: {enc}}}\n    input_schema: {{type: object, properties: {{a: {{type: string}}}}}}\n    contract: {{version: '1.0', response_schema: {{type: object}}}}\n"
            )
        };
        let env = |_: &str| None;
        let parse = |text: String| crate::parse(Path::new("t.yaml"), &text, Path::new("."), &env);
        let c = parse(cfg("form", "{a: '{a}'}")).unwrap();
        assert_eq!(
            c.tools["t"].http_request().map(|r| r.body_encoding),
            Some(BodyEncoding::Form)
        );
        let e = parse(cfg("xml", "{a: '{a}'}")).unwrap_err().to_string();
        assert!(e.contains("unknown body encoding `xml`"), "{e}");
        let e = parse(cfg("form", "['{a}']")).unwrap_err().to_string();
        assert!(e.contains("a form body must be an object"), "{e}");
    }

    #[test]
    fn a_text_body_is_the_arguments_text_sent_as_written_with_its_media_type() {
        let cfg = |request: &str| {
            format!(
                "dependencies:\n  d: {{base_url: 'https://x.example.com'}}\ntools:\n  t:\n    dependency: d\n    owner: o@example.com\n    request: {{method: PUT, path: /p, {request}}}\n    input_schema: {{type: object, properties: {{doc: {{type: string}}}}}}\n    contract: {{version: '1.0', response_schema: {{type: object}}}}\n"
            )
        };
        let env = |_: &str| None;
        let parse = |text: String| crate::parse(Path::new("t.yaml"), &text, Path::new("."), &env);
        let render = |request: &str, args: serde_json::Value| {
            let c = parse(cfg(request)).unwrap();
            let t = &c.tools["t"];
            t.http_request()
                .unwrap()
                .render(&t.dependency.base_url, args.as_object().unwrap())
        };
        let xml = "<a x=\"1\">caf\u{e9} &amp; \"q\"</a>\n";
        let r = render(
            "body: '{doc}', body_encoding: text, content_type: application/xml",
            serde_json::json!({"doc": xml}),
        )
        .unwrap();
        assert_eq!(r.body.as_deref(), Some(xml.as_bytes()));
        assert_eq!(r.content_type, "application/xml");
        let r = render(
            "body: '{doc}', body_encoding: text",
            serde_json::json!({"doc": "plain"}),
        )
        .unwrap();
        assert_eq!(r.body.as_deref(), Some(&b"plain"[..]));
        assert_eq!(r.content_type, "text/plain; charset=utf-8");
        // An optional body whose argument is absent is not sent at all.
        let r = render("body: '{doc}', body_encoding: text", serde_json::json!({})).unwrap();
        assert_eq!(r.body, None);
        let e = render(
            "body: '{doc}', body_encoding: text",
            serde_json::json!({"doc": {"a": 1}}),
        )
        .unwrap_err();
        assert!(
            e.0.contains("give it as a string, not an object"),
            "{}",
            e.0
        );
        for (request, why) in [
            (
                "body: {a: '{doc}'}, body_encoding: text",
                "a text body must be a string",
            ),
            (
                "body: '{doc}', body_encoding: text, content_type: 'text/*'",
                "is not a media type a body can be sent as",
            ),
            (
                "body: '{doc}', body_encoding: text, content_type: \"text/plain\\r\\nX-Evil: 1\"",
                "is not a media type a body can be sent as",
            ),
        ] {
            let e = parse(cfg(request)).unwrap_err().to_string();
            assert!(e.contains(why), "{request}: {e}");
        }
    }

    #[test]
    fn a_json_body_is_labelled_with_the_json_media_type_the_tool_names() {
        let cfg = |request: &str| {
            format!(
                "dependencies:\n  d: {{base_url: 'https://x.example.com'}}\ntools:\n  t:\n    dependency: d\n    owner: o@example.com\n    request: {{method: PATCH, path: /p, body: '{{a}}', {request}}}\n    input_schema: {{type: object, properties: {{a: {{type: object}}}}}}\n    contract: {{version: '1.0', response_schema: {{type: object}}}}\n"
            )
        };
        let env = |_: &str| None;
        let parse = |text: String| crate::parse(Path::new("t.yaml"), &text, Path::new("."), &env);
        let sent = |request: &str| {
            let c = parse(cfg(request)).unwrap();
            let t = &c.tools["t"];
            let args = serde_json::json!({"a": {"b": 1}});
            let r = t
                .http_request()
                .unwrap()
                .render(&t.dependency.base_url, args.as_object().unwrap())
                .unwrap();
            assert_eq!(r.body.as_deref(), Some(&br#"{"b":1}"#[..]));
            r.content_type
        };
        assert_eq!(sent("body_encoding: json"), "application/json");
        for media in [
            "application/merge-patch+json",
            "application/vnd.api+json",
            "application/json-patch+json",
            "text/json",
            "application/problem+json; charset=utf-8",
        ] {
            assert_eq!(sent(&format!("content_type: '{media}'")), media);
        }
        for (request, why) in [
            ("content_type: application/xml", "is not a JSON media type"),
            ("content_type: '*/*'", "is not a JSON media type"),
            (
                "content_type: 'application/*+json'",
                "is not a JSON media type",
            ),
            ("content_type: json", "is not a JSON media type"),
            (
                "content_type: \"application/json\\r\\nX-Evil: 1\"",
                "is not a JSON media type",
            ),
            (
                "content_type: application/merge-patch+json, body_encoding: form",
                "content_type applies to json and text bodies only",
            ),
        ] {
            let e = parse(cfg(request)).unwrap_err().to_string();
            assert!(e.contains(why), "{request}: {e}");
        }
    }
}
