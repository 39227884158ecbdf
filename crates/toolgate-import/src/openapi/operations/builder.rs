//! The state of one tool while `build` makes it: what each stage has gathered of its
//! arguments and its request, and the stages that set the request's path and query.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::super::cookie::Cookies;
use super::super::credentials::Found;
use super::super::media;
use super::super::schema::{Converter, Dialect, Side};
use super::super::text::trim_text;
use super::text::TextBody;
use super::{
    Arg, CREDENTIAL_NAMES, Context, KeyQuery, RawOperation, Skip, consumes, has_security,
    rename_in_key_query, split_path_key, undeclared, unique_arg,
};

/// What the spec says beside the operation, read by its stages; the resolver is the
/// converter's while the tool is built, so `Context` lends its other parts one by one.
pub(super) struct Spec<'b> {
    pub(super) dialect: Dialect,
    pub(super) credential_params: &'b HashSet<String>,
    pub(super) param_credentials: &'b [Found],
    pub(super) auth_cookies: &'b [(String, String)],
    pub(super) api_version: &'b Option<String>,
    pub(super) resource_names: bool,
    pub(super) bind: &'b [(String, String)],
    pub(super) bound: &'b mut BTreeMap<String, usize>,
}

/// One tool in the making: owns its arguments and the names they took, the request's
/// path, query, headers, cookies and body as the stages find them, the bound values
/// written into path and query at the end, the request side's schema converter, and
/// the notes and warnings that explain what the tool does not do.
pub(super) struct Builder<'b> {
    pub(super) cx: Spec<'b>,
    pub(super) raw: &'b RawOperation,
    /// The operation has a security requirement: credential-named parameters are the
    /// scheme's.
    pub(super) secured: bool,
    /// Swagger 2.0 `consumes`, the operation's or the spec's.
    pub(super) consumes: Vec<String>,
    /// The notes on a `consumes` media type read with its missing `/` put back, for
    /// an operation that sends a body.
    pub(super) consumes_repaired: Vec<String>,
    pub(super) conv: Converter<'b>,
    pub(super) args: Vec<Arg>,
    pub(super) used: HashSet<String>,
    pub(super) path: String,
    pub(super) key_query: Vec<KeyQuery>,
    pub(super) query: Map<String, Value>,
    pub(super) headers: Map<String, Value>,
    pub(super) form: Vec<(String, String)>,
    /// The form's fields are the parts of a `multipart/form-data` body.
    pub(super) multipart: bool,
    pub(super) json_body: Option<(Value, bool, Option<String>)>,
    /// The name the description gives the body (Swagger 2.0's `in: body` parameter),
    /// for the body argument's title.
    pub(super) body_name: Option<String>,
    /// The JSON body's media type when it is not `application/json` (see `json_label`).
    pub(super) body_media: Option<String>,
    /// A body that is text in a media type of its own (see `text::text_body`).
    pub(super) text: Option<TextBody>,
    pub(super) form_required: Vec<String>,
    pub(super) form_style: Map<String, Value>,
    pub(super) path_binds: Vec<(String, String)>,
    /// Bound values for the path key's query, as written (a query value is not encoded).
    pub(super) key_binds: Vec<(String, String)>,
    pub(super) cookies: Cookies,
    /// Query parameters left out for how they change the reply or its transport, with
    /// why: told in one note (`parameters.rs`).
    pub(super) left_out: Vec<(String, &'static str)>,
    pub(super) warnings: Vec<String>,
    pub(super) notes: Vec<String>,
}

/// What the built request leaves for the input schema: the arguments, the named
/// schemas they use, and every note and warning so far.
pub(super) struct Finished {
    pub(super) args: Vec<Arg>,
    pub(super) defs: BTreeMap<String, Value>,
    pub(super) notes: Vec<String>,
    pub(super) warnings: Vec<String>,
}

impl<'b> Builder<'b> {
    /// A tool with nothing in it yet but the cookies the security scheme sends.
    pub(super) fn new(
        cx: &'b mut Context<'_>,
        raw: &'b RawOperation,
        warnings: Vec<String>,
    ) -> Self {
        let op = &raw.op;
        let secured = has_security(cx.root, op);
        let mut consumes_repaired = Vec::new();
        let consumes = consumes(cx.root, op, &mut consumes_repaired);
        let spec = Spec {
            dialect: cx.dialect,
            credential_params: &cx.credential_params,
            param_credentials: &cx.param_credentials,
            auth_cookies: &cx.auth_cookies,
            api_version: &cx.api_version,
            resource_names: cx.resource_names,
            bind: &cx.bind,
            bound: &mut cx.bound,
        };
        let conv = Converter::new(cx.refs, cx.dialect, Side::Request).sharing(&mut cx.conversions);
        let mut cookies = Cookies::default();
        for (name, value) in spec.auth_cookies {
            // `${VAR}` as written: expanded from the environment when the config loads.
            cookies.fixed(name, value.clone());
        }
        Builder {
            cx: spec,
            raw,
            secured,
            consumes,
            consumes_repaired,
            conv,
            args: Vec::new(),
            used: HashSet::new(),
            path: String::new(),
            key_query: Vec::new(),
            query: Map::new(),
            headers: Map::new(),
            form: Vec::new(),
            multipart: false,
            json_body: None,
            body_name: None,
            body_media: None,
            text: None,
            form_required: Vec::new(),
            form_style: Map::new(),
            path_binds: Vec::new(),
            key_binds: Vec::new(),
            cookies,
            left_out: Vec::new(),
            warnings,
            notes: Vec::new(),
        }
    }

    /// The path and the query the path key itself writes, before any parameter is read.
    pub(super) fn path_key(&mut self, params: &[(PathBuf, Value)]) {
        let Self {
            cx,
            raw,
            secured,
            path,
            key_query,
            notes,
            ..
        } = self;
        let secured = *secured;
        // `/alerts?lat={lat}&lon={lon}`, `/#Action=AddTagsToResource`: the key is more than
        // a path, and copied whole its `?` and `#` would be encoded into the path.
        (*path, *key_query) = split_path_key(&raw.path);
        // `/places/${place}`: a JavaScript template literal's `$` left in the key. The
        // parameter is `{place}`; kept, the `$` would be sent before its value, and `${…}`
        // read as an environment variable when the config loads. With no `${` left, any
        // other `$` in the path is text.
        if path.contains("${") {
            notes.push(
                "the path key writes `${…}`: read as the path parameter `{…}`, without the `$`"
                    .to_string(),
            );
            *path = path.replace("${", "{");
        }
        // A fragment's `k=v` only says what the request must carry; a parameter the
        // operation declares under that name says it (and where: `X-Amz-Target` is a header).
        // A credential is the dependency's to send, wherever the key names it.
        key_query.retain(|q| {
            !(cx.credential_params.contains(&q.name)
                || cx.param_credentials.iter().any(|f| f.is(&q.name, "query"))
                || secured && CREDENTIAL_NAMES.contains(&q.name.to_ascii_lowercase().as_str()))
        });
        key_query.retain(|q| {
            !q.from_fragment
                || !params
                    .iter()
                    .any(|(_, p)| p.get("name").and_then(Value::as_str) == Some(q.name.as_str()))
        });
        for q in key_query.iter().filter(|q| q.from_fragment) {
            notes.push(format!(
                "`{}={}` from the path key's `#…` is sent as a query parameter",
                q.name, q.value
            ));
        }
    }

    /// Path placeholders the spec forgot to declare are still arguments.
    pub(super) fn undeclared_placeholders(&mut self) {
        let Self {
            args,
            used,
            path,
            key_query,
            path_binds,
            key_binds,
            notes,
            ..
        } = self;
        let key_text: Vec<String> = key_query.iter().map(|q| q.value.clone()).collect();
        let mut missing = undeclared(path, args);
        for seg in undeclared(&key_text.join("&"), args) {
            if !missing.contains(&seg) {
                missing.push(seg);
            }
        }
        for seg in missing {
            if path_binds
                .iter()
                .chain(key_binds.iter())
                .any(|(n, _)| *n == seg)
            {
                continue;
            }
            let in_path = path.contains(&format!("{{{seg}}}"));
            let arg = unique_arg(used, &seg, "path");
            *path = path.replace(&format!("{{{seg}}}"), &format!("{{{arg}}}"));
            rename_in_key_query(key_query, &seg, &arg);
            args.push(Arg {
                name: arg,
                schema: json!({"type": "string"}),
                required: true,
            });
            notes.push(if in_path {
                format!("path parameter `{seg}` is not declared in the spec; taken as a string")
            } else {
                format!("query parameter `{seg}` of the path key is not declared in the spec; taken as a string")
            });
        }
    }

    /// The one `Cookie` header the cookie parameters make, unless the operation
    /// declares a `Cookie` header of its own.
    pub(super) fn cookie_header(&mut self) {
        let Self {
            args,
            headers,
            cookies,
            notes,
            ..
        } = self;
        let cookies = std::mem::take(cookies).finish();
        for (cookie, arg) in &cookies.left_out {
            args.retain(|a| a.name != *arg);
            notes.push(format!(
                "the optional cookie parameter `{cookie}` is not sent: a request has one Cookie header, and its template is not sent when an argument in it is left out"
            ));
        }
        if let Some(header) = cookies.header {
            if headers.keys().any(|k| k.eq_ignore_ascii_case("cookie")) {
                notes.push("the cookie parameters are not sent: the operation's own `Cookie` header parameter is".into());
                let sent: Vec<&str> = header.split("; ").collect();
                args.retain(|a| {
                    !sent
                        .iter()
                        .any(|p| p.ends_with(&format!("={{{}}}", a.name)))
                });
            } else {
                headers.insert("Cookie".into(), Value::String(header));
            }
        }
    }

    /// Bound values written into the path, and the path key's query put before the
    /// declared parameters'.
    pub(super) fn bound_path_and_key_query(&mut self) {
        let Self {
            path,
            key_query,
            query,
            path_binds,
            key_binds,
            ..
        } = self;
        for (name, value) in path_binds.iter() {
            *path = path.replace(&format!("{{{name}}}"), value);
        }
        if !key_query.is_empty() {
            // The path key's own query first, in its order; a declared parameter of the
            // same name does not replace it.
            let mut all: Map<String, Value> = key_query
                .iter()
                .map(|q| {
                    let mut value = q.template();
                    for (name, bound) in key_binds.iter() {
                        value = value.replace(&format!("{{{name}}}"), bound);
                    }
                    (q.name.clone(), Value::String(value))
                })
                .collect();
            for (k, v) in std::mem::take(query) {
                all.entry(k).or_insert(v);
            }
            *query = all;
        }
    }

    /// The config entry's `request:`: method, path, query, headers and the body, a
    /// JSON argument or form fields.
    pub(super) fn request(&mut self) -> Result<Map<String, Value>, Skip> {
        let Self {
            raw,
            args,
            used,
            path,
            query,
            headers,
            json_body,
            body_media,
            ..
        } = self;
        let mut body_encoding = None;
        let mut request = Map::new();
        request.insert("method".into(), json!(raw.method.to_uppercase()));
        request.insert("path".into(), json!(path));
        if !query.is_empty() {
            request.insert("query".into(), Value::Object(std::mem::take(query)));
        }
        if !headers.is_empty() {
            request.insert("headers".into(), Value::Object(std::mem::take(headers)));
        }
        if let Some((schema, required, description)) = json_body.take() {
            let arg = unique_arg(used, "body", "body");
            request.insert("body".into(), json!(format!("{{{arg}}}")));
            if let Some(media) = body_media.take() {
                request.insert("content_type".into(), json!(media));
            }
            let mut schema = schema;
            if let (Value::Object(m), Some(d)) = (&mut schema, description) {
                m.entry("description")
                    .or_insert_with(|| Value::String(trim_text(&d, 300)));
            }
            // The argument stays `body` whatever the description calls it: one name in
            // every tool, never taken by a parameter of the same name, and unchanged
            // when a description's generator renames it. The description's name
            // (`pet`, `users`) is the argument's title, as its documentation says it.
            let named = self
                .body_name
                .take()
                .or_else(|| body_name_extension(&raw.op));
            if let (Value::Object(m), Some(n)) = (&mut schema, named)
                && !n.eq_ignore_ascii_case("body")
            {
                m.entry("title").or_insert(Value::String(n));
            }
            args.push(Arg {
                name: arg,
                schema,
                required,
            });
        } else if !self.form.is_empty() {
            self.form_body(&mut request)?;
            body_encoding = Some(if self.multipart { "multipart" } else { "form" });
        }
        if let Some(t) = self.text.take().filter(|_| !request.contains_key("body")) {
            let arg = unique_arg(&mut self.used, "body", "body");
            request.insert("body".into(), json!(format!("{{{arg}}}")));
            request.insert("content_type".into(), json!(t.media));
            body_encoding = Some("text");
            self.notes.extend(t.note);
            self.args.push(Arg {
                name: arg,
                schema: t.schema,
                required: t.required,
            });
        }
        if let Some(enc) = body_encoding {
            request.insert("body_encoding".into(), json!(enc));
        }
        if request.contains_key("body") {
            let repaired = std::mem::take(&mut self.consumes_repaired);
            self.notes.extend(repaired);
        }
        Ok(request)
    }

    /// The form fields as the request's body. Swagger 2.0 `formData` is URL-encoded
    /// unless the operation only takes multipart: `multipart/form-data` (or its
    /// misspelling) sends the fields as its parts; another multipart type cannot be sent.
    fn form_body(&mut self, request: &mut Map<String, Value>) -> Result<(), Skip> {
        let Self {
            consumes,
            form,
            form_style,
            multipart,
            notes,
            ..
        } = self;
        if !consumes.is_empty() && consumes.iter().all(|c| media::is_multipart(c)) {
            let Some(kind) = consumes.iter().find(|c| media::is_form_data(c)) else {
                let described: Vec<String> = consumes.iter().map(|c| media::describe(c)).collect();
                return Err(Skip(format!(
                    "takes only a multipart body ({})",
                    described.join(", ")
                )));
            };
            if media::is_misspelled_multipart(kind) && !*multipart {
                notes.push(format!(
                    "the body's media type `{kind}` is {}",
                    media::READ_AS_MULTIPART
                ));
            }
            *multipart = true;
        }
        if *multipart {
            // A part holds an array or object by OpenAPI's multipart defaults, not by a
            // form style.
            form_style.clear();
        }
        let body: Map<String, Value> = form
            .iter()
            .map(|(k, a)| (k.clone(), json!(format!("{{{a}}}"))))
            .collect();
        request.insert("body".into(), Value::Object(body));
        form_style.retain(|k, _| form.iter().any(|(f, _)| f == k));
        if !form_style.is_empty() {
            request.insert(
                "form_style".into(),
                Value::Object(std::mem::take(form_style)),
            );
        }
        Ok(())
    }

    /// The arguments and what the converter gathered, the converter's warnings last.
    pub(super) fn finish(self) -> Finished {
        let Self {
            conv,
            args,
            mut warnings,
            notes,
            ..
        } = self;
        let (defs, conv_warnings) = conv.finish();
        warnings.extend(conv_warnings);
        Finished {
            args,
            defs,
            notes,
            warnings,
        }
    }
}

/// The name an OpenAPI 3 description converted from Swagger 2.0 keeps for its body
/// (`x-codegen-request-body-name`, `x-bodyName`), or that a vendor's extension gives it
/// (`x-github.requestBodyParameterName`): a short word, or none.
fn body_name_extension(op: &Value) -> Option<String> {
    let named = ["x-codegen-request-body-name", "x-bodyName", "x-body-name"]
        .iter()
        .find_map(|k| op.get(*k))
        .or_else(|| {
            op.as_object()?
                .iter()
                .filter(|(k, _)| k.starts_with("x-"))
                .find_map(|(_, v)| v.get("requestBodyParameterName"))
        })?;
    body_word(named.as_str()?)
}

/// `name` when it can title an argument: a short word of letters, digits, `_`, `-`
/// or `.`.
pub(super) fn body_word(name: &str) -> Option<String> {
    let name = name.trim();
    let word = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    word.then(|| name.to_string())
}
