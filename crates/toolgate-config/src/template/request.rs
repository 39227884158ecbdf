//! The types a request template is made of and renders into: the compiled template,
//! how its body is encoded and labelled, the finished request and why one could not be
//! made. Apart from the rendering steps, so a reader finds what a template holds without
//! the code that fills a request from it.

use std::collections::BTreeMap;

use http::Method;
use http::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use super::parse::{Template, whole_placeholder};

/// A request template compiled from the config.
#[derive(Debug, Clone)]
pub struct RequestTemplate {
    /// HTTP method.
    pub method: Method,
    /// Path template, appended to the base URL's path.
    pub path: Template,
    /// Query parameters.
    pub query: Vec<(String, Template)>,
    /// Tool-specific headers.
    pub headers: Vec<(HeaderName, Template)>,
    /// Dependency headers this tool does not send.
    pub omit_headers: Vec<HeaderName>,
    /// Query parameters of the base URL this tool does not send, by name.
    pub omit_query: Vec<String>,
    /// JSON body template.
    pub body: Option<Value>,
    /// How the rendered body is encoded.
    pub body_encoding: BodyEncoding,
    /// The media type the body is labelled with instead of its encoding's own: another
    /// JSON type for a `json` body, the declared type (`application/xml`) for a `text` one.
    pub content_type: Option<HeaderValue>,
    /// How form fields holding arrays or objects are sent (default: JSON text).
    pub form_style: BTreeMap<String, FormStyle>,
}

/// How one form field holding an array or object is put in the body. OpenAPI's
/// `style`/`explode` name the first three; the bracket forms are the Rails/PHP
/// convention many form APIs (Stripe's among them) read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormStyle {
    /// JSON text (`a=[1,2]`), as Slack-style form APIs take structures.
    Json,
    /// `a=1&a=2`; an object's members as fields of their own (`form`, exploded).
    Repeat,
    /// `a=1,2`; an object as `k,v,k,v` (`form`, not exploded).
    Comma,
    /// `a[]=1&a[]=2`, `a[k]=v`.
    Brackets,
    /// `a[0]=1`, `a[k][0][j]=v` (`deepObject`, arrays indexed).
    Deep,
}

impl FormStyle {
    /// The config spelling.
    pub fn parse(text: &str) -> Option<FormStyle> {
        Some(match text {
            "json" => FormStyle::Json,
            "repeat" => FormStyle::Repeat,
            "comma" => FormStyle::Comma,
            "brackets" => FormStyle::Brackets,
            "deep" => FormStyle::Deep,
            _ => return None,
        })
    }
}

/// How a request body is put on the wire.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BodyEncoding {
    /// `application/json`.
    #[default]
    Json,
    /// `application/x-www-form-urlencoded`: each top-level field a pair; strings as-is,
    /// numbers and booleans printed, arrays and objects as JSON text (as form APIs such
    /// as Slack's take them).
    Form,
    /// The argument's text, sent as it is (an XML document, a YAML file, plain text):
    /// APIs that read no JSON body take one written in their own media type.
    Text,
    /// `multipart/form-data`: each top-level field a part (see `template/multipart.rs`),
    /// for APIs that read form fields only as the parts of a multipart form.
    Multipart,
}

impl BodyEncoding {
    /// The `Content-Type` the body is sent with.
    pub fn content_type(self) -> &'static str {
        match self {
            BodyEncoding::Json => "application/json",
            BodyEncoding::Form => "application/x-www-form-urlencoded",
            BodyEncoding::Text => "text/plain; charset=utf-8",
            // Rendered with the boundary of each body (see `render`).
            BodyEncoding::Multipart => "multipart/form-data",
        }
    }
}

/// A rendered upstream request.
#[derive(Debug)]
pub struct RenderedRequest {
    /// Method.
    pub method: Method,
    /// Full URL (origin equal to the base URL's).
    pub url: url::Url,
    /// Tool-specific headers.
    pub headers: HeaderMap,
    /// Dependency headers not sent with this request: the tool's `omit_headers`.
    pub omit_headers: Vec<HeaderName>,
    /// Body bytes, encoded as `content_type` says.
    pub body: Option<Vec<u8>>,
    /// `Content-Type` of the body.
    pub content_type: HeaderValue,
}

impl RenderedRequest {
    /// Whether the dependency header `name` goes with this request: not when the tool
    /// omits it, nor when the tool sends one of that name itself, which replaces it.
    pub fn sends_dependency_header(&self, name: &HeaderName) -> bool {
        !self.omit_headers.contains(name) && !self.headers.contains_key(name)
    }
}

/// Why arguments could not be turned into a request. The text is for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RenderError(pub String);

impl RequestTemplate {
    /// Every argument name the template refers to.
    pub fn arguments(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.path.arguments().collect();
        for (_, t) in &self.query {
            names.extend(t.arguments());
        }
        for (_, t) in &self.headers {
            names.extend(t.arguments());
        }
        if let Some(body) = &self.body {
            body_arguments(body, &mut names);
        }
        names
    }
}

pub(super) fn body_arguments<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.extend(whole_placeholder(s)),
        Value::Array(items) => items.iter().for_each(|i| body_arguments(i, out)),
        Value::Object(map) => map.values().for_each(|i| body_arguments(i, out)),
        _ => {}
    }
}
