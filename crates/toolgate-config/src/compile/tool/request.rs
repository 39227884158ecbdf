//! A tool's request template: method, path, query, headers and body, with the body's
//! encoding, media type and form styles, and every placeholder declared in the input
//! schema.

use std::collections::{BTreeMap, BTreeSet};

use http::Method;
use http::header::{HeaderName, HeaderValue};
use serde_json::{Map, Value};

use crate::compile::Compiler;
use crate::raw::*;
use crate::template::{
    BodyEncoding, FormStyle, RequestTemplate, Template, json_media_type, steers_the_request,
    text_media_type,
};

impl Compiler<'_> {
    /// Every part is checked even when an earlier one failed; the placeholders are
    /// compared with the input schema only once the request is whole.
    pub(super) fn request(
        &mut self,
        path: &str,
        raw: RawRequest,
        input_schema: Option<&Map<String, Value>>,
    ) -> Option<RequestTemplate> {
        let rpath = format!("{path}.request");
        let method = self.method(&rpath, raw.method);
        if !raw.path.starts_with('/') {
            self.err(
                format!("{rpath}.path"),
                format!("path `{}` must start with `/`", raw.path),
                "the path is appended to the dependency's base_url; write it like `/v3/search`",
            );
        }
        let raw_path = self.bound(format!("{rpath}.path"), &raw.path);
        let query = self.query_templates(&rpath, &raw.query);
        let headers = self.header_templates(&rpath, raw.headers);
        let omit_headers = self.omitted_headers(&rpath, &raw.omit_headers);
        let body_encoding =
            self.body_encoding(&rpath, raw.body_encoding.as_deref(), raw.body.as_ref());
        let content_type = self.content_type(&rpath, raw.content_type.as_deref(), body_encoding);
        let form_style = self.form_styles(&rpath, &raw.form_style, body_encoding);
        let template = RequestTemplate {
            method: method?,
            path: Template::parse(&raw_path),
            query,
            headers,
            omit_headers,
            omit_query: raw.omit_query,
            body: raw.body,
            body_encoding,
            content_type,
            form_style,
        };
        self.placeholders_declared(&rpath, &template, input_schema);
        Some(template)
    }

    fn method(&mut self, rpath: &str, raw: Option<String>) -> Option<Method> {
        let method_text = raw.unwrap_or_else(|| "GET".into()).to_ascii_uppercase();
        match Method::from_bytes(method_text.as_bytes()) {
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
        }
    }

    /// A value bound in config (an account id in the path) may come from the
    /// environment: `${VAR}` is expanded before `{argument}`s are read.
    fn bound(&mut self, at: String, text: &str) -> String {
        if text.contains("${") {
            self.expand(&at, text)
        } else {
            text.to_string()
        }
    }

    fn query_templates(
        &mut self,
        rpath: &str,
        raw: &BTreeMap<String, String>,
    ) -> Vec<(String, Template)> {
        raw.iter()
            .map(|(k, v)| {
                let v = self.bound(format!("{rpath}.query.{k}"), v);
                (k.clone(), Template::parse(&v))
            })
            .collect()
    }

    /// A header that steers the request (`template/steering_headers.rs`) takes no
    /// argument.
    fn header_templates(
        &mut self,
        rpath: &str,
        raw: BTreeMap<String, String>,
    ) -> Vec<(HeaderName, Template)> {
        let mut headers = Vec::new();
        for (k, v) in raw {
            let v = self.bound(format!("{rpath}.headers.{k}"), &v);
            match HeaderName::from_bytes(k.as_bytes()) {
                Ok(n) => {
                    let template = Template::parse(&v);
                    if let Some(argument) = template.arguments().next()
                        && steers_the_request(n.as_str())
                    {
                        self.err(
                            format!("{rpath}.headers.{k}"),
                            format!(
                                "header `{k}` cannot take an argument ({{{argument}}}): servers and \
                                 proxies read it for where the request goes, which method or \
                                 path it has, or where its body ends, so the model would choose that"
                            ),
                            "write a fixed value, or send the argument in the path, query or body",
                        );
                    }
                    headers.push((n, template));
                }
                Err(_) => self.err(
                    format!("{rpath}.headers.{k}"),
                    format!("`{k}` is not a valid header name"),
                    "use letters, digits and `-`",
                ),
            }
        }
        headers
    }

    /// The dependency headers a tool does not send, by name; whether the dependency
    /// sends each is checked once both are compiled ([`Compiler::omitted_are_sent`]).
    fn omitted_headers(&mut self, rpath: &str, raw: &[String]) -> Vec<HeaderName> {
        let mut names = Vec::new();
        for (i, k) in raw.iter().enumerate() {
            match HeaderName::from_bytes(k.as_bytes()) {
                Ok(n) if !names.contains(&n) => names.push(n),
                Ok(_) => {}
                Err(_) => self.err(
                    format!("{rpath}.omit_headers[{i}]"),
                    format!("`{k}` is not a valid header name"),
                    "name a header the dependency sends, e.g. `Authorization`",
                ),
            }
        }
        names
    }

    /// Every header (and base URL query parameter) a tool omits is one its dependency
    /// sends: a name that is not (a typo, a header since removed) would leave the
    /// credential it meant to hold back on every call.
    pub(in crate::compile) fn omitted_are_sent(
        &mut self,
        path: &str,
        request: &RequestTemplate,
        dependency: &crate::model::Dependency,
    ) {
        for name in &request.omit_headers {
            if !dependency.headers.iter().any(|(h, _)| h == name) {
                self.err(
                    format!("{path}.request.omit_headers"),
                    format!("dependency `{}` sends no header `{name}`", dependency.name),
                    "name one of the dependency's `headers`, or remove it",
                );
            }
        }
        for name in &request.omit_query {
            if !dependency
                .base_url
                .query_pairs()
                .any(|(k, _)| k == name.as_str())
            {
                self.err(
                    format!("{path}.request.omit_query"),
                    format!(
                        "the base_url of dependency `{}` has no query parameter `{name}`",
                        dependency.name
                    ),
                    "name a query parameter of the dependency's `base_url`, or remove it",
                );
            }
        }
    }

    /// How the body is sent, and whether the body has the shape that encoding needs.
    fn body_encoding(
        &mut self,
        rpath: &str,
        raw: Option<&str>,
        body: Option<&Value>,
    ) -> BodyEncoding {
        match raw {
            None | Some("json") => BodyEncoding::Json,
            Some("form") => {
                if body.is_some_and(|b| !b.is_object()) {
                    self.err(
                        format!("{rpath}.body"),
                        "a form body must be an object of fields",
                        "write `body: { field: \"{arg}\" }`",
                    );
                }
                BodyEncoding::Form
            }
            Some("multipart") => {
                if body.is_some_and(|b| !b.is_object()) {
                    self.err(
                        format!("{rpath}.body"),
                        "a multipart body must be an object of fields",
                        "write `body: { field: \"{arg}\" }`",
                    );
                }
                BodyEncoding::Multipart
            }
            Some("text") => {
                if body.is_some_and(|b| !b.is_string()) {
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
                    "use `json` (the default), `form`, `multipart` or `text`",
                );
                BodyEncoding::Json
            }
        }
    }

    /// The body's media type, which must be one the encoding can be sent as.
    fn content_type(
        &mut self,
        rpath: &str,
        raw: Option<&str>,
        body_encoding: BodyEncoding,
    ) -> Option<HeaderValue> {
        match raw {
            None => None,
            Some(_) if body_encoding == BodyEncoding::Form => {
                self.err(
                    format!("{rpath}.content_type"),
                    "content_type applies to json and text bodies only",
                    "remove `content_type`: a form body is application/x-www-form-urlencoded",
                );
                None
            }
            Some(_) if body_encoding == BodyEncoding::Multipart => {
                self.err(
                    format!("{rpath}.content_type"),
                    "content_type applies to json and text bodies only",
                    "remove `content_type`: a multipart body is multipart/form-data with its own boundary",
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
        }
    }

    /// How each structured form field is sent; only a form body has fields.
    fn form_styles(
        &mut self,
        rpath: &str,
        raw: &BTreeMap<String, String>,
        body_encoding: BodyEncoding,
    ) -> BTreeMap<String, FormStyle> {
        let mut form_style = BTreeMap::new();
        for (field, style) in raw {
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
        form_style
    }

    /// A placeholder the input schema does not declare could never be given: the model
    /// is shown only the schema's properties.
    fn placeholders_declared(
        &mut self,
        rpath: &str,
        template: &RequestTemplate,
        input_schema: Option<&Map<String, Value>>,
    ) {
        let Some(props) = input_schema
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
        else {
            return;
        };
        // Each named once, in the order the request first uses them: a placeholder may
        // appear in the path and the query alike.
        let mut named = BTreeSet::new();
        let missing: Vec<&str> = template
            .arguments()
            .into_iter()
            .filter(|a| !props.contains_key(*a) && named.insert(*a))
            .collect();
        if !missing.is_empty() {
            self.err(
                rpath,
                format!(
                    "the request uses {} but input_schema declares no such propert{}",
                    missing
                        .iter()
                        .map(|m| format!("{{{m}}}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    if missing.len() == 1 { "y" } else { "ies" }
                ),
                "add the argument to input_schema.properties, or fix the placeholder's spelling",
            );
        }
    }
}
