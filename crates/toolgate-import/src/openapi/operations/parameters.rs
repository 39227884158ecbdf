//! The declared parameters, one by one in the spec's order: which the model never
//! gives (unsendable, credentials, set by the gateway, bound in config), the Swagger 2.0
//! body, values the description fixes, parameters that change the reply's format or
//! transport, headers that steer the request, and `style: deepObject` queries. What is left
//! is an argument (`argument.rs`).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::super::cookie::CookieShape;
use super::super::text::trim_text;
use super::builder::Builder;
use super::reply_format::{ReplyParameter, classify};
use super::text::{carries_text, is_json_any, text_body};
use super::{
    Arg, CREDENTIAL_NAMES, Skip, deep_object, is_any, is_api_version, is_deep_object, is_json,
    is_raw_bytes, json_label, leave_out_body, param_schema, path_value, single_value, text_of,
    unique_arg,
};
use toolgate_config::template::{Template, steers_the_request};

/// One declared parameter, as every stage reads it.
#[derive(Clone, Copy)]
pub(super) struct Param<'p> {
    /// The file its `$ref`s resolve against.
    pub(super) file: &'p Path,
    pub(super) p: &'p Value,
    pub(super) name: &'p str,
    pub(super) location: &'p str,
    /// Required by the spec, or a path parameter.
    pub(super) required: bool,
}

impl Builder<'_> {
    /// Each declared parameter in turn: an argument, a value fixed in the request, or
    /// left out with a note; the operation is skipped when a required one cannot be sent.
    pub(super) fn parameters(&mut self, params: &[(PathBuf, Value)]) -> Result<(), Skip> {
        for (pfile, p) in params {
            let Some(name) = p.get("name").and_then(Value::as_str) else {
                continue;
            };
            let location = p.get("in").and_then(Value::as_str).unwrap_or("");
            let required = p.get("required") == Some(&Value::Bool(true)) || location == "path";
            self.parameter(Param {
                file: pfile,
                p,
                name,
                location,
                required,
            })?;
        }
        self.note_left_out();
        Ok(())
    }

    /// One note for the query parameters left out for the same reason, so a
    /// description that gives every operation the same six switches reads as one line
    /// a tool, not six.
    fn note_left_out(&mut self) {
        let mut reasons: Vec<&'static str> = Vec::new();
        for (_, why) in &self.left_out {
            if !reasons.contains(why) {
                reasons.push(why);
            }
        }
        for why in reasons {
            let names: Vec<String> = self
                .left_out
                .iter()
                .filter(|(_, w)| *w == why)
                .map(|(n, _)| format!("`{n}`"))
                .collect();
            let (are, those) = if names.len() == 1 {
                ("parameter", "is not sent and is no argument")
            } else {
                ("parameters", "are not sent and are no arguments")
            };
            self.notes
                .push(format!("query {are} {} {those}: {why}", names.join(", ")));
        }
    }

    /// One parameter, through the stages that may take it before it is an argument.
    fn parameter(&mut self, param: Param<'_>) -> Result<(), Skip> {
        if !self.sendable(param)? || self.not_the_models(param) || self.bound(param) {
            return Ok(());
        }
        let Param {
            file: pfile,
            p,
            name,
            location,
            required,
        } = param;
        if location == "body" {
            return self.body_parameter(param);
        }
        let raw_schema = param_schema(p, self.cx.dialect);
        if raw_schema.get("type").and_then(Value::as_str) == Some("file") {
            if required {
                return Err(Skip("uploads a file (multipart/form-data)".into()));
            }
            self.notes.push(format!(
                "the optional file parameter `{name}` is not sent: toolgate sends no file uploads"
            ));
            return Ok(());
        }
        if location == "cookie" && self.cookie_object(param, &raw_schema)? {
            return Ok(());
        }
        if self.fixed(param, &raw_schema) || self.reply_format(param, &raw_schema) {
            return Ok(());
        }
        // A header servers and proxies read for where the request goes, its method or
        // its path takes no argument (`check` refuses one): with no single value of the
        // description's own, it is not sent.
        if location == "header" && steers_the_request(name) {
            self.notes.push(format!(
                "header parameter `{name}` is not sent as the description gives it: servers and proxies read it for where the request goes or which method or path it has, so it takes no argument, and the description fixes no value for it"
            ));
            return Ok(());
        }
        // `style: deepObject` sends `filter[kind]=…`: each member the schema names is
        // an argument of its own, sent under its bracketed key; a member the schema does
        // not name has no key the template can write, and is not sent.
        if location == "query" && is_deep_object(p, self.cx.dialect) {
            return self.deep_object_parameter(pfile, p, name, required, &raw_schema);
        }
        self.argument(param, raw_schema)
    }

    /// Whether the parameter's name can be sent at all; a required one that cannot
    /// skips the operation.
    fn sendable(&mut self, param: Param<'_>) -> Result<bool, Skip> {
        let Param {
            name,
            location,
            required,
            ..
        } = param;
        // A header named `""` or `API Key` cannot be sent, nor a nameless query or
        // cookie parameter.
        let unsendable = match location {
            // A cookie's name is a token, as a header's is (RFC 6265 § 4.1.1).
            "header" | "cookie" => !super::super::header::is_header_name(name),
            "query" | "formData" | "path" => name.trim().is_empty(),
            _ => false,
        };
        if unsendable {
            if required {
                return Err(Skip(format!(
                    "needs the {location} parameter `{name}`, whose name cannot be sent"
                )));
            }
            self.notes.push(format!(
                "the optional {location} parameter `{name}` is not sent: its name is not a valid {location} name"
            ));
            return Ok(false);
        }
        Ok(true)
    }

    /// A cookie holding an object, which a template would write as JSON: one with
    /// `explode: false` whose members the schema names is one argument per member
    /// (`color=R,{color_R},G,{color_G}`); one no cookie octets can carry (a `content`
    /// media type, an exploded or free-form object), every call of which would be
    /// refused for its quotes and commas, is left out with a note when optional and
    /// skips the operation when required. `false` for a cookie that is not an object.
    fn cookie_object(&mut self, param: Param<'_>, raw_schema: &Value) -> Result<bool, Skip> {
        let Param {
            file: pfile,
            p,
            name,
            required,
            ..
        } = param;
        let required = required && raw_schema.get("default").is_none();
        let (sfile, styled) = self
            .conv
            .refs_mut()
            .deref(pfile, raw_schema)
            .unwrap_or_else(|_| (pfile.to_path_buf(), raw_schema.clone()));
        match super::super::cookie::shape(p, &styled) {
            CookieShape::Value => Ok(false),
            CookieShape::Members(members) => {
                let mut written = Vec::new();
                for member in members {
                    let member_arg =
                        unique_arg(&mut self.used, &format!("{name}_{member}"), "cookie");
                    let member_schema = styled
                        .get("properties")
                        .and_then(|m| m.get(&member))
                        .map_or_else(|| json!({}), |s| self.conv.part(&sfile, s));
                    self.args.push(Arg {
                        name: member_arg.clone(),
                        schema: super::super::cookie::restricted(member_schema),
                        required,
                    });
                    written.push((member, member_arg));
                }
                self.cookies.members(name, &written, required);
                self.notes.push(format!(
                    "cookie parameter `{name}` is an object: each member is an argument, written `{name}=member,value,member,value`"
                ));
                Ok(true)
            }
            CookieShape::Unsendable(why) if required => Err(Skip(format!(
                "needs the cookie parameter `{name}`, which cannot be sent: {why}"
            ))),
            CookieShape::Unsendable(why) => {
                self.notes.push(format!(
                    "the optional cookie parameter `{name}` is not sent: {why}"
                ));
                Ok(true)
            }
        }
    }

    /// Whether someone else sends the parameter: the path key, the security scheme,
    /// the dependency, the gateway or the request signer.
    fn not_the_models(&mut self, param: Param<'_>) -> bool {
        let Param {
            name,
            location,
            required,
            ..
        } = param;
        let Self {
            cx,
            secured,
            key_query,
            notes,
            ..
        } = self;
        let secured = *secured;
        // The path key fixes this query parameter's value itself.
        if location == "query" && key_query.iter().any(|q| q.name == name && q.is_fixed()) {
            return true;
        }
        let lname = name.to_ascii_lowercase();
        if location == "cookie" && cx.auth_cookies.iter().any(|(c, _)| c == name) {
            return true;
        }
        if matches!(location, "header" | "query" | "formData")
            && (cx.credential_params.contains(name)
                || cx.param_credentials.iter().any(|f| f.is(name, location))
                || (secured && CREDENTIAL_NAMES.contains(&lname.as_str())))
        {
            return true;
        }
        if location == "header"
            && let Some(why) = super::super::header::set_by_gateway(name)
        {
            // Content-Type is documented as dropped and nearly every description has
            // it: only the others are worth a line.
            if lname != "content-type" {
                notes.push(format!(
                    "header parameter `{name}` is not sent as the description gives it: {why}"
                ));
            }
            return true;
        }
        // AWS's signing parameters are computed per request (see the scheme's warning).
        if matches!(location, "header" | "query")
            && !required
            && super::super::credentials::signing_parameter(name)
        {
            return true;
        }
        false
    }

    /// Whether the parameter is bound in config, its value then written in the request.
    fn bound(&mut self, param: Param<'_>) -> bool {
        let Param { name, location, .. } = param;
        let Self {
            cx,
            query,
            headers,
            path_binds,
            key_binds,
            ..
        } = self;
        // A value the model cannot know (an account id) is bound once in config.
        if matches!(location, "path" | "query" | "header")
            && let Some((_, value)) = cx.bind.iter().find(|(n, _)| n == name)
        {
            *cx.bound.entry(name.to_string()).or_default() += 1;
            if matches!(location, "path" | "query") {
                key_binds.push((name.to_string(), value.clone()));
            }
            match location {
                "path" => path_binds.push((name.to_string(), path_value(value))),
                "query" => {
                    query.insert(name.to_string(), json!(value));
                }
                _ => {
                    headers.insert(name.to_string(), json!(value));
                }
            }
            return true;
        }
        false
    }

    /// A Swagger 2.0 `in: body` parameter: the JSON body, or left out when it is bytes.
    fn body_parameter(&mut self, param: Param<'_>) -> Result<(), Skip> {
        let Param {
            file: pfile,
            p,
            required,
            ..
        } = param;
        self.body_name = p
            .get("name")
            .and_then(Value::as_str)
            .and_then(super::builder::body_word);
        let Self {
            consumes,
            conv,
            json_body,
            body_media,
            notes,
            text,
            ..
        } = self;
        let schema = p.get("schema").cloned().unwrap_or(Value::Bool(true));
        // `consumes` says what the body is: JSON, or (for a file, an XML document,
        // an image) bytes a JSON argument cannot carry.
        let any_media = !consumes.is_empty() && !consumes.iter().any(|c| is_json(c) && !is_any(c));
        let resolved = conv
            .refs_mut()
            .deref(pfile, &schema)
            .map(|(_, s)| s)
            .unwrap_or(Value::Null);
        if !consumes.is_empty() && !consumes.iter().any(|c| is_json(c))
            || is_raw_bytes(&resolved, any_media)
        {
            let kinds: Vec<String> = if consumes.iter().any(|c| is_json(c)) {
                consumes
                    .iter()
                    .map(|c| format!("{c} holding raw bytes"))
                    .collect()
            } else {
                consumes
                    .iter()
                    .map(|c| super::super::media::describe(c))
                    .collect()
            };
            let description = p.get("description").and_then(Value::as_str);
            match consumes.iter().find(|c| super::super::media::is_text(c)) {
                Some(media) if !is_json_any(consumes) && carries_text(&resolved) => {
                    *text = Some(text_body(
                        conv,
                        pfile,
                        &schema,
                        &resolved,
                        media,
                        required,
                        description,
                    ));
                }
                _ => leave_out_body(&kinds, required, notes)?,
            }
            return Ok(());
        }
        let converted = conv.part(pfile, &schema);
        let description = p
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string);
        *json_body = Some((converted, required, description));
        *body_media = json_label(consumes.iter().map(String::as_str));
        Ok(())
    }

    /// Whether the description fixes the parameter's value (a single allowed value,
    /// a required header's default, `api-version`): it is then written in the request,
    /// or the cookie parameter becomes an argument of the `Cookie` header.
    fn fixed(&mut self, param: Param<'_>, raw_schema: &Value) -> bool {
        let Param {
            file: pfile,
            p,
            name,
            location,
            required,
        } = param;
        let Self {
            cx,
            conv,
            args,
            used,
            query,
            headers,
            cookies,
            notes,
            ..
        } = self;
        let mut fixed = single_value(conv.refs_mut(), pfile, raw_schema);
        let default = raw_schema.get("default").cloned();
        // Azure's 600-odd descriptions require `api-version` on every operation and
        // give no value: it is the description's own `info.version`, which a model
        // cannot know.
        if fixed.is_none()
            && default.is_none()
            && required
            && matches!(location, "header" | "query")
            && is_api_version(name)
            && let Some(v) = &cx.api_version
        {
            notes.push(format!(
                "`{name}` is sent as `{v}`, the description's info.version"
            ));
            fixed = Some(Value::String(v.clone()));
        }
        match location {
            "cookie" if fixed.is_some() => {
                let value = super::super::escape_env(&Template::escape(&text_of(
                    fixed.as_ref().unwrap_or(&Value::Null),
                )));
                cookies.fixed(name, value);
                true
            }
            "cookie" => {
                let required = required && default.is_none();
                let arg = unique_arg(used, name, location);
                let mut schema = super::super::cookie::restricted(conv.part(pfile, raw_schema));
                let styled = conv
                    .refs_mut()
                    .deref(pfile, raw_schema)
                    .map_or_else(|_| raw_schema.clone(), |(_, s)| s);
                if super::super::cookie::exploded_list(p, &styled) {
                    schema = super::super::cookie::one_item(schema);
                    notes.push(format!(
                        "cookie `{name}` is an exploded list, which OpenAPI writes as the cookie once per item and a server reads one of: it takes one item a call"
                    ));
                }
                if let (Value::Object(m), Some(Value::String(d))) =
                    (&mut schema, p.get("description"))
                {
                    m.entry("description")
                        .or_insert_with(|| Value::String(trim_text(d, 300)));
                }
                cookies.argument(name, &arg, required);
                args.push(Arg {
                    name: arg,
                    schema,
                    required,
                });
                true
            }
            "header" | "query"
                if fixed.is_some() || (required && location == "header" && default.is_some()) =>
            {
                // A literal from the spec: braces in it are text, not placeholders, and `$`
                // is text, not an environment variable (`${VAR}` is expanded in headers
                // and queries when the config loads, before the template is read).
                let value = super::super::escape_env(&Template::escape(&text_of(
                    fixed.as_ref().or(default.as_ref()).unwrap_or(&Value::Null),
                )));
                let target = if location == "header" { headers } else { query };
                target.insert(name.to_string(), Value::String(value));
                true
            }
            _ => false,
        }
    }

    /// Whether the parameter changes how the reply is written or sent
    /// (`reply_format.rs`): a format choice is then sent as its JSON value,
    /// anything else is not sent, and a note says which.
    fn reply_format(&mut self, param: Param<'_>, raw_schema: &Value) -> bool {
        let Param {
            file: pfile,
            p,
            name,
            location,
            required,
        } = param;
        let schema = self
            .conv
            .refs_mut()
            .deref(pfile, raw_schema)
            .map_or_else(|_| raw_schema.clone(), |(_, s)| s);
        let description = p.get("description").and_then(Value::as_str).unwrap_or("");
        match classify(name, location, required, description, &schema) {
            None => false,
            Some(ReplyParameter::Json(value)) => {
                self.notes.push(format!(
                    "{location} parameter `{name}` is always sent as `{value}`: it picks the reply's format, and the contract checks JSON"
                ));
                let value = super::super::escape_env(&Template::escape(&value));
                self.query.insert(name.to_string(), Value::String(value));
                true
            }
            Some(ReplyParameter::LeftOut(why)) => {
                self.left_out.push((name.to_string(), why));
                true
            }
        }
    }

    /// A `style: deepObject` query parameter: one argument per member the schema names.
    fn deep_object_parameter(
        &mut self,
        pfile: &Path,
        p: &Value,
        name: &str,
        required: bool,
        raw_schema: &Value,
    ) -> Result<(), Skip> {
        let Self {
            conv,
            args,
            used,
            query,
            notes,
            ..
        } = self;
        let deep = deep_object(conv.refs_mut(), pfile, raw_schema, name, required);
        match deep {
            Ok((leaves, deep_notes)) => {
                let shared_description = p.get("description").and_then(Value::as_str);
                for leaf in leaves {
                    let arg = unique_arg(used, &leaf.arg, "query");
                    let mut schema = conv.part(&leaf.file, &leaf.schema);
                    if let (Value::Object(m), Some(d)) = (&mut schema, shared_description) {
                        m.entry("description")
                            .or_insert_with(|| Value::String(trim_text(d, 300)));
                    }
                    let value = if leaf.list {
                        format!("{{{arg}*}}")
                    } else {
                        format!("{{{arg}}}")
                    };
                    query.insert(leaf.key, Value::String(value));
                    args.push(Arg {
                        name: arg,
                        schema,
                        required: leaf.required,
                    });
                }
                notes.extend(deep_notes);
            }
            Err(why) if required => {
                return Err(Skip(format!(
                    "needs the `style: deepObject` query parameter `{name}`, which cannot be sent: {why}"
                )));
            }
            Err(why) => notes.push(format!(
                "the optional `style: deepObject` query parameter `{name}` is not sent: {why}"
            )),
        }
        Ok(())
    }
}
