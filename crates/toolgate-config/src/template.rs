//! Request templates: how a tool's arguments become an upstream HTTP request.
//!
//! `{name}` placeholders are replaced by arguments. The scheme, host and port always
//! come from the dependency's `base_url`: arguments are percent-encoded into the path
//! (so `/`, `?`, `#` and `@` cannot escape their segment), `.`/`..` segments are refused,
//! and the finished URL's origin is compared with the base URL's before any request.
//!
//! `{name*}` (RFC 6570's explode modifier) as a whole query value sends a list as the
//! parameter repeated (`tag=a&tag=b`) and an object as one parameter per member
//! (`color=red&size=m`): OpenAPI's default for query arrays (`style: form, explode:
//! true`), which most APIs expect. `{name}` joins a list with commas (`tag=a,b`).
//!
//! `{+name}` (RFC 6570's reserved expansion) in the path sends a value that is a path
//! of its own, such as Google's resource names (`projects/p/locations/l`), with its `/`
//! kept: each `/`-separated part is encoded as a segment, and empty, `.` and `..` parts
//! are refused, so the value can add segments but never climb out of the tool's path.
//! Anywhere else it reads as `{name}`.

use std::collections::BTreeMap;

use http::Method;
use http::header::{HeaderMap, HeaderName, HeaderValue};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value};

mod dot_segments;
use dot_segments::could_name_a_dot_segment;

/// Everything but RFC 3986 unreserved characters is encoded inside a path segment.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The longest URL toolgate sends (8 KiB). Servers and proxies commonly refuse longer
/// request lines (414, or a reset), and the HTTP client refuses far longer ones
/// locally: either way a call that cannot be sent must be refused before admission, as
/// the model's `client_error`, never mistaken for a failing upstream.
pub const MAX_URL_BYTES: usize = 8 << 10;
/// The largest value one argument may have (64 KiB, as JSON text for non-strings).
pub const MAX_ARGUMENT_BYTES: usize = 64 << 10;
/// The largest request body toolgate sends (1 MiB).
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// One piece of a template string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal text from the config.
    Lit(String),
    /// An argument placeholder.
    Arg(String),
    /// `{name*}`: an argument exploded, one query parameter per list item or object
    /// member; anywhere else it reads as `{name}`.
    Each(String),
    /// `{+name}`: an argument whose `/` separate path segments; anywhere but the path it
    /// reads as `{name}`.
    Segments(String),
}

/// A parsed template string such as `/v3/items/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Template(pub Vec<Part>);

impl Template {
    /// Parses `{name}`, `{name*}` and `{+name}` placeholders; `{{` and `}}` are a literal
    /// `{` and `}`; anything else is literal.
    pub fn parse(text: &str) -> Template {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut rest = text;
        while let Some(at) = rest.find(['{', '}']) {
            lit.push_str(&rest[..at]);
            let here = &rest[at..];
            if here.starts_with("{{") || here.starts_with("}}") {
                lit.push_str(&here[..1]);
                rest = &here[2..];
                continue;
            }
            let after = &here[1..];
            let inner = after.find('}').map(|c| &after[..c]);
            let part = inner.filter(|_| here.starts_with('{')).and_then(|n| {
                let (part, name): (fn(String) -> Part, &str) =
                    if let Some(each) = n.strip_suffix('*') {
                        (Part::Each, each)
                    } else if let Some(segments) = n.strip_prefix('+') {
                        (Part::Segments, segments)
                    } else {
                        (Part::Arg, n)
                    };
                is_identifier(name).then(|| (part(name.to_string()), n.len()))
            });
            match part {
                Some((part, len)) => {
                    if !lit.is_empty() {
                        parts.push(Part::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(part);
                    rest = &after[len + 1..];
                }
                None => {
                    lit.push_str(&here[..1]);
                    rest = after;
                }
            }
        }
        lit.push_str(rest);
        if !lit.is_empty() {
            parts.push(Part::Lit(lit));
        }
        Template(parts)
    }

    /// `text` written so that [`Template::parse`] reads it back as literal text: a value
    /// taken from elsewhere (an API description) never becomes a placeholder.
    pub fn escape(text: &str) -> String {
        text.replace('{', "{{").replace('}', "}}")
    }

    /// Names of the arguments this template uses.
    pub fn arguments(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(|p| match p {
            Part::Arg(n) | Part::Each(n) | Part::Segments(n) => Some(n.as_str()),
            Part::Lit(_) => None,
        })
    }

    /// Renders with each argument passed through `encode` (given the argument's text,
    /// a list's items each on their own, and told whether the placeholder was
    /// `{+name}`); `None` if an argument is absent or null.
    fn render(
        &self,
        args: &Map<String, Value>,
        encode: impl Fn(&[String], bool) -> Result<String, RenderError>,
    ) -> Result<Option<String>, RenderError> {
        self.render_with(args, str::to_string, encode)
    }

    /// [`Template::render`] with the literal text passed through `literal` too.
    fn render_with(
        &self,
        args: &Map<String, Value>,
        literal: impl Fn(&str) -> String,
        encode: impl Fn(&[String], bool) -> Result<String, RenderError>,
    ) -> Result<Option<String>, RenderError> {
        let mut out = String::new();
        for part in &self.0 {
            match part {
                Part::Lit(l) => out.push_str(&literal(l)),
                Part::Arg(name) | Part::Each(name) | Part::Segments(name) => {
                    match args.get(name).map(item_texts) {
                        None | Some(None) => return Ok(None),
                        Some(Some(items)) => {
                            out.push_str(&encode(&items, matches!(part, Part::Segments(_)))?)
                        }
                    }
                }
            }
        }
        Ok(Some(out))
    }
}

/// An argument's text where a header is written: a list's items joined by commas.
fn comma_joined(items: &[String]) -> Result<String, RenderError> {
    Ok(items.join(","))
}

/// `text` encoded as `application/x-www-form-urlencoded` writes a name or a value.
fn form_encoded(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A list in a query value or form field (OpenAPI's `form` style unexploded, Swagger
/// 2.0's `csv`): each item form-encoded, the commas between them literal, so a server
/// tells `a,b` (two items) from `a%2Cb` (one item holding a comma), as in a path.
fn form_list(items: &[String]) -> String {
    items
        .iter()
        .map(|item| form_encoded(item))
        .collect::<Vec<_>>()
        .join(",")
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Text form of an argument for a URL or header: strings as-is, numbers and booleans
/// printed, arrays joined by commas, objects as JSON; `null` counts as absent.
fn scalar_text(v: &Value) -> Option<String> {
    item_texts(v).map(|items| items.join(","))
}

/// The text of each item of a list argument (one item for anything else): the comma
/// between items is the list's separator (OpenAPI's `simple` and `form` styles, RFC
/// 6570's `{list}`), which a path writes literally while an item's own comma is
/// percent-encoded, so a server can tell `a,b` (two items) from `a%2Cb` (one).
fn item_texts(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(vec![s.clone()]),
        Value::Array(items) => Some(
            items
                .iter()
                .map(|item| match item {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect(),
        ),
        other => Some(vec![other.to_string()]),
    }
}

/// The query pairs of an exploded argument (`{name*}`): a list is the parameter once per
/// item, an object one parameter per member (OpenAPI `style: form, explode: true`),
/// anything else the parameter once; absent or `null` is no parameter.
fn exploded<'a>(name: &'a str, value: Option<&'a Value>) -> Vec<(&'a str, String)> {
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| Some((name, scalar_text(item)?)))
            .collect(),
        Some(Value::Object(members)) => members
            .iter()
            .filter_map(|(k, v)| Some((k.as_str(), scalar_text(v)?)))
            .collect(),
        Some(other) => scalar_text(other).map(|t| (name, t)).into_iter().collect(),
    }
}

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
}

impl BodyEncoding {
    /// The `Content-Type` the body is sent with.
    pub fn content_type(self) -> &'static str {
        match self {
            BodyEncoding::Json => "application/json",
            BodyEncoding::Form => "application/x-www-form-urlencoded",
            BodyEncoding::Text => "text/plain; charset=utf-8",
        }
    }
}

/// `media` as the `Content-Type` of a JSON body, when it is a JSON media type: a
/// `type/json` or `type/subtype+json` (RFC 6839), with any parameters it carries
/// (`application/vnd.api+json`, `application/merge-patch+json; charset=utf-8`). A
/// range (`*/*`, `application/*`) names no type to send; anything else is not JSON.
pub fn json_media_type(media: &str) -> Option<HeaderValue> {
    let media = media.trim();
    let essence = media.split(';').next().unwrap_or("").trim();
    let (kind, subtype) = essence.split_once('/')?;
    let token = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    let subtype_lower = subtype.to_ascii_lowercase();
    let json = subtype_lower == "json" || subtype_lower.ends_with("+json");
    (token(kind) && token(subtype) && json)
        .then(|| HeaderValue::from_str(media).ok())
        .flatten()
}

/// `media` as the `Content-Type` of a `text` body: one concrete `type/subtype` (a range
/// such as `text/*` names no type to send), with any parameters it carries.
pub fn text_media_type(media: &str) -> Option<HeaderValue> {
    let media = media.trim();
    let essence = media.split(';').next().unwrap_or("").trim();
    let (kind, subtype) = essence.split_once('/')?;
    let token = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    (token(kind) && token(subtype))
        .then(|| HeaderValue::from_str(media).ok())
        .flatten()
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
    /// Body bytes, encoded as `content_type` says.
    pub body: Option<Vec<u8>>,
    /// `Content-Type` of the body.
    pub content_type: HeaderValue,
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

    /// Whether `key` is a query parameter the base URL or the tool's template sets.
    fn sets_query(&self, base: &url::Url, key: &str) -> bool {
        self.query.iter().any(|(n, _)| n == key) || base.query_pairs().any(|(k, _)| k == key)
    }

    /// Builds the request for `args` against `base`.
    pub fn render(
        &self,
        base: &url::Url,
        args: &Map<String, Value>,
    ) -> Result<RenderedRequest, RenderError> {
        for (name, value) in args {
            let size = match value {
                Value::String(s) => s.len(),
                other => other.to_string().len(),
            };
            if size > MAX_ARGUMENT_BYTES {
                return Err(RenderError(format!(
                    "the argument `{name}` is {size} bytes, over the {} limit for one argument value",
                    kib(MAX_ARGUMENT_BYTES)
                )));
            }
        }
        let path = self
            .path
            .render(args, |items, segments| {
                let text = &items.join(",");
                if segments {
                    return path_of_segments(text);
                }
                if text.is_empty() || could_name_a_dot_segment(text) {
                    return Err(RenderError(format!(
                        "the value {text:?} cannot be used as a path segment{}",
                        if text.is_empty() { "" } else { CLIMBS }
                    )));
                }
                // Each item encoded on its own, the separating commas kept literal.
                let encoded: Vec<String> = items
                    .iter()
                    .map(|item| utf8_percent_encode(item, SEGMENT).to_string())
                    .collect();
                Ok(encoded.join(","))
            })?
            .ok_or_else(|| {
                let missing: Vec<&str> = self
                    .path
                    .arguments()
                    .filter(|n| !has_value(args, n))
                    .collect();
                RenderError(format!("missing required argument {}", missing.join(", ")))
            })?;
        let mut url = base.clone();
        let joined = format!(
            "{}/{}",
            base.path().trim_end_matches('/'),
            path.trim_start_matches('/')
        );
        url.set_path(&joined);
        // Written pair by pair, already encoded: a serializer would encode the commas
        // between a list's items as well as those inside them.
        let mut pairs: Vec<String> = Vec::new();
        if let Some(q) = base.query() {
            for (k, v) in url::form_urlencoded::parse(q.as_bytes()) {
                pairs.push(format!("{}={}", form_encoded(&k), form_encoded(&v)));
            }
        }
        for (name, template) in &self.query {
            if let [Part::Each(arg)] = template.0.as_slice() {
                for (key, value) in exploded(name, args.get(arg)) {
                    // An object's member names come from the caller: none may set a
                    // parameter the tool or its base URL sets (an `api_key`).
                    if key != name.as_str() && self.sets_query(base, key) {
                        return Err(RenderError(format!(
                            "the argument `{arg}` names the query parameter `{key}`, which the tool sets itself"
                        )));
                    }
                    pairs.push(format!("{}={}", form_encoded(key), form_encoded(&value)));
                }
            } else if let Some(value) =
                template.render_with(args, form_encoded, |items, _| Ok(form_list(items)))?
            {
                pairs.push(format!("{}={value}", form_encoded(name)));
            }
        }
        url.set_query((!pairs.is_empty()).then(|| pairs.join("&")).as_deref());
        if url.origin() != base.origin() {
            return Err(RenderError(
                "the arguments would change the upstream host".into(),
            ));
        }
        if url.as_str().len() > MAX_URL_BYTES {
            return Err(RenderError(format!(
                "the request URL would be {} bytes, over the {} limit; shorten the arguments that go into the path or query",
                url.as_str().len(),
                kib(MAX_URL_BYTES)
            )));
        }
        let mut headers = HeaderMap::new();
        for (name, template) in &self.headers {
            if let Some(value) = template.render(args, |t, _| comma_joined(t))? {
                let value = HeaderValue::from_str(&value).map_err(|_| {
                    RenderError(format!(
                        "the value for header {name} contains characters not allowed in HTTP headers"
                    ))
                })?;
                headers.insert(name.clone(), value);
            }
        }
        let body = match &self.body {
            None => None,
            Some(template) => {
                let rendered = render_body(template, args);
                match self.body_encoding {
                    BodyEncoding::Json => Some(
                        serde_json::to_vec(&rendered.unwrap_or(Value::Null))
                            .map_err(|e| RenderError(e.to_string()))?,
                    ),
                    BodyEncoding::Form => Some(
                        form_body(&rendered.unwrap_or(Value::Null), &self.form_style).into_bytes(),
                    ),
                    // An optional text body whose argument is absent is not sent.
                    BodyEncoding::Text => match rendered {
                        None => None,
                        Some(Value::String(text)) => Some(text.into_bytes()),
                        Some(other) => {
                            return Err(RenderError(format!(
                                "the request body is sent as text: give it as a string, not {}",
                                json_kind(&other)
                            )));
                        }
                    },
                }
            }
        };
        if let Some(size) = body.as_ref().map(Vec::len).filter(|n| *n > MAX_BODY_BYTES) {
            return Err(RenderError(format!(
                "the request body would be {size} bytes, over the {} limit",
                kib(MAX_BODY_BYTES)
            )));
        }
        Ok(RenderedRequest {
            method: self.method.clone(),
            url,
            headers,
            body,
            content_type: self
                .content_type
                .clone()
                .unwrap_or_else(|| HeaderValue::from_static(self.body_encoding.content_type())),
        })
    }
}

/// Why a value that could name a `.` or `..` segment is refused, for the model.
const CLIMBS: &str = ": it has a `.` or `..` part as a server may read it (split at `/` or `\\`, \
     before a `;`, percent-decoded or NFKC-normalised), which could name a path outside the tool's";

/// A `{+name}` value as path segments: each `/`-separated part encoded as one segment
/// (so `?`, `#`, `%` and `@` stay inside it). An empty part (a leading, trailing or
/// doubled `/`), or a value that could name `.` or `..` (see [`dot_segments`]), is refused: the value may add segments below the tool's
/// path, never leave it or change which resource the path names by normalisation.
fn path_of_segments(text: &str) -> Result<String, RenderError> {
    let mut out = String::with_capacity(text.len() + 8);
    if could_name_a_dot_segment(text) {
        return Err(RenderError(format!(
            "the value {text:?} cannot be used as a path{CLIMBS}"
        )));
    }
    for (i, segment) in text.split('/').enumerate() {
        if segment.is_empty() {
            return Err(RenderError(format!(
                "the value {text:?} cannot be used as a path: each part between `/` must be a name, not empty"
            )));
        }
        if i > 0 {
            out.push('/');
        }
        out.extend(utf8_percent_encode(segment, SEGMENT));
    }
    Ok(out)
}

/// "8 KiB", "1 MiB".
fn kib(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else {
        format!("{} KiB", n >> 10)
    }
}

/// `a=1&b=x+y`: a form body from a rendered object; a form field has no JSON types, so
/// arrays and objects travel as the field's style says (JSON text by default).
fn form_body(rendered: &Value, styles: &BTreeMap<String, FormStyle>) -> String {
    let mut out = FormPairs::default();
    if let Value::Object(map) = rendered {
        for (k, v) in map {
            let style = styles.get(k).copied().unwrap_or(FormStyle::Json);
            form_field(&mut out, k, v, style);
        }
    }
    out.0.join("&")
}

/// The `name=value` pairs of a form body, each already encoded.
#[derive(Default)]
struct FormPairs(Vec<String>);

impl FormPairs {
    fn append_pair(&mut self, key: &str, value: &str) {
        self.0
            .push(format!("{}={}", form_encoded(key), form_encoded(value)));
    }

    /// `key=a,b`: the commas between the items literal (see [`form_list`]).
    fn append_list(&mut self, key: &str, items: &[String]) {
        self.0
            .push(format!("{}={}", form_encoded(key), form_list(items)));
    }
}

fn form_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn form_field(out: &mut FormPairs, key: &str, v: &Value, style: FormStyle) {
    match (style, v) {
        (_, Value::Null) => {}
        (FormStyle::Json, _) | (_, Value::String(_) | Value::Number(_) | Value::Bool(_)) => {
            if let Some(text) = form_text(v) {
                out.append_pair(key, &text);
            }
        }
        (FormStyle::Repeat, Value::Array(items)) => {
            for item in items {
                form_field(out, key, item, FormStyle::Json);
            }
        }
        (FormStyle::Repeat, Value::Object(m)) => {
            for (k, item) in m {
                form_field(out, k, item, FormStyle::Json);
            }
        }
        (FormStyle::Comma, Value::Array(items)) => {
            let parts: Vec<String> = items.iter().filter_map(form_text).collect();
            out.append_list(key, &parts);
        }
        (FormStyle::Comma, Value::Object(m)) => {
            let parts: Vec<String> = m
                .iter()
                .filter_map(|(k, item)| form_text(item).map(|t| [k.clone(), t]))
                .flatten()
                .collect();
            out.append_list(key, &parts);
        }
        (FormStyle::Brackets | FormStyle::Deep, Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let sub = if style == FormStyle::Deep || item.is_object() || item.is_array() {
                    format!("{key}[{i}]")
                } else {
                    format!("{key}[]")
                };
                form_field(out, &sub, item, style);
            }
        }
        (FormStyle::Brackets | FormStyle::Deep, Value::Object(m)) => {
            for (k, item) in m {
                form_field(out, &format!("{key}[{k}]"), item, style);
            }
        }
    }
}

fn has_value(args: &Map<String, Value>, name: &str) -> bool {
    args.get(name).is_some_and(|v| !v.is_null())
}

fn body_arguments<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.extend(whole_placeholder(s)),
        Value::Array(items) => items.iter().for_each(|i| body_arguments(i, out)),
        Value::Object(map) => map.values().for_each(|i| body_arguments(i, out)),
        _ => {}
    }
}

/// `"{name}"` exactly → `Some("name")`.
fn whole_placeholder(s: &str) -> Option<&str> {
    let inner = s.strip_prefix('{')?.strip_suffix('}')?;
    is_identifier(inner).then_some(inner)
}

/// Replaces whole-string placeholders by the argument's JSON value; `None` removes the key.
/// What kind of JSON value `v` is, for a message.
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn render_body(template: &Value, args: &Map<String, Value>) -> Option<Value> {
    match template {
        Value::String(s) => match whole_placeholder(s) {
            Some(name) => args.get(name).filter(|v| !v.is_null()).cloned(),
            None => Some(template.clone()),
        },
        Value::Array(items) => Some(Value::Array(
            items.iter().filter_map(|i| render_body(i, args)).collect(),
        )),
        Value::Object(map) => Some(Value::Object(
            map.iter()
                .filter_map(|(k, v)| render_body(v, args).map(|v| (k.clone(), v)))
                .collect(),
        )),
        other => Some(other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn template(path: &str, query: &[(&str, &str)]) -> RequestTemplate {
        RequestTemplate {
            method: Method::GET,
            path: Template::parse(path),
            query: query
                .iter()
                .map(|(k, v)| (k.to_string(), Template::parse(v)))
                .collect(),
            headers: vec![],
            body: None,
            body_encoding: BodyEncoding::Json,
            content_type: None,
            form_style: BTreeMap::new(),
        }
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn an_exploded_argument_repeats_its_parameter_or_spreads_its_members() {
        let base = url::Url::parse("https://api.example.com/v1?api_key=k").unwrap();
        let t = template(
            "/channels",
            &[
                ("Type", "{Type*}"),
                ("filter", "{filter*}"),
                ("tags", "{tags}"),
            ],
        );
        assert_eq!(t.arguments(), vec!["Type", "filter", "tags"]);
        let r = t
            .render(
                &base,
                &args(json!({"Type": ["public", "private"], "filter": {"color": "red", "size": 2}, "tags": ["a", "b"]})),
            )
            .unwrap();
        assert_eq!(
            r.url.query(),
            Some("api_key=k&Type=public&Type=private&color=red&size=2&tags=a,b")
        );
        // A single value is the parameter once; absent or null, not at all.
        let r = t
            .render(&base, &args(json!({"Type": "public", "filter": null})))
            .unwrap();
        assert_eq!(r.url.query(), Some("api_key=k&Type=public"));
        // An object member may not set what the tool or its base URL sets.
        for taken in ["api_key", "tags"] {
            let e = t
                .render(&base, &args(json!({"filter": {taken: "x"}})))
                .unwrap_err();
            assert!(e.0.contains(taken) && e.0.contains("sets itself"), "{e:?}");
        }
        // Outside a whole query value, `{name*}` reads as `{name}`.
        let p = template("/items/{ids*}", &[]);
        let r = p.render(&base, &args(json!({"ids": [1, 2]}))).unwrap();
        assert_eq!(r.url.path(), "/v1/items/1,2");
    }

    #[test]
    fn a_path_list_keeps_the_commas_between_its_items() {
        let base = url::Url::parse("https://api.example.com/v1").unwrap();
        let t = template("/items/{ids}/.{tags}/x;color={colors}", &[]);
        let r = t
            .render(
                &base,
                &args(json!({"ids": [3, 4, 5], "tags": ["a b", "c"], "colors": ["blue", "black,brown", "é/?"]})),
            )
            .unwrap();
        // Only the separators are literal: an item's own comma, slash or `?` is not.
        assert_eq!(
            r.url.path(),
            "/v1/items/3,4,5/.a%20b,c/x;color=blue,black%2Cbrown,%C3%A9%2F%3F"
        );
        // One text with a comma in it is one value, not a list.
        let r = t
            .render(
                &base,
                &args(json!({"ids": "3,4", "tags": ["t"], "colors": [true, 1.5]})),
            )
            .unwrap();
        assert_eq!(r.url.path(), "/v1/items/3%2C4/.t/x;color=true,1.5");
        // A list still cannot name a `.` or `..` segment, nor be empty.
        for bad in [json!([".."]), json!(["."]), json!([]), json!([""])] {
            let e = template("/items/{ids}", &[])
                .render(&base, &args(json!({ "ids": bad })))
                .unwrap_err();
            assert!(e.0.contains("path segment"), "{bad}: {e:?}");
        }
    }

    #[test]
    fn parses_placeholders_and_keeps_stray_braces() {
        let t = Template::parse("/a/{id}/b{x}{ not}");
        assert_eq!(
            t.0,
            vec![
                Part::Lit("/a/".into()),
                Part::Arg("id".into()),
                Part::Lit("/b".into()),
                Part::Arg("x".into()),
                Part::Lit("{ not}".into())
            ]
        );
    }

    #[test]
    fn doubled_braces_are_literal_and_escape_round_trips() {
        let t = Template::parse("{{id}} {{{id}}} a}b {x}}");
        assert_eq!(
            t.0,
            vec![
                Part::Lit("{id} {".into()),
                Part::Arg("id".into()),
                Part::Lit("} a}b ".into()),
                Part::Arg("x".into()),
                Part::Lit("}".into())
            ]
        );
        for text in ["{foo}", "${GITHUB_TOKEN}", "}{", "{{a}}", "a{b}c}", "plain"] {
            let t = Template::parse(&Template::escape(text));
            assert_eq!(t.0, vec![Part::Lit(text.into())], "{text}");
        }
    }

    #[test]
    fn path_arguments_are_percent_encoded_within_their_segment() {
        let base = url::Url::parse("https://api.example.com/v1/").unwrap();
        let r = template("/items/{id}", &[])
            .render(&base, &args(json!({"id": "a/b?c#d@evil.com:81"})))
            .unwrap();
        assert_eq!(
            r.url.as_str(),
            "https://api.example.com/v1/items/a%2Fb%3Fc%23d%40evil.com%3A81"
        );
        assert_eq!(r.url.host_str(), Some("api.example.com"));
    }

    #[test]
    fn a_reserved_expansion_keeps_slashes_between_encoded_segments() {
        let base = url::Url::parse("https://api.example.com/v1/").unwrap();
        let t = template("/{+name}:cancel", &[]);
        let r = t
            .render(
                &base,
                &args(json!({"name": "projects/p 1/operations/a?b#c@evil.com:81"})),
            )
            .unwrap();
        assert_eq!(
            r.url.as_str(),
            "https://api.example.com/v1/projects/p%201/operations/a%3Fb%23c%40evil.com%3A81:cancel"
        );
        assert_eq!(t.path.arguments().collect::<Vec<_>>(), ["name"]);
    }

    #[test]
    fn a_reserved_expansion_cannot_climb_or_leave_empty_segments() {
        let base = url::Url::parse("https://api.example.com/v1/").unwrap();
        for bad in [
            "projects/../../admin",
            "projects/./x",
            "/projects/p",
            "projects/p/",
            "projects//p",
            "..",
            "",
        ] {
            let e = template("/{+name}", &[])
                .render(&base, &args(json!({ "name": bad })))
                .unwrap_err();
            assert!(e.0.contains("cannot be used as a path"), "{bad:?}: {e}");
        }
        // Encoded dots and other separators climb too, on a server that decodes them.
        for bad in ["a/%2E%2E/b", "a/..\\b", "a/..;x/b", "a/%252e%252e/b"] {
            let e = template("/{+name}", &[])
                .render(&base, &args(json!({ "name": bad })))
                .unwrap_err();
            assert!(e.0.contains("outside the tool's"), "{bad:?}: {e}");
        }
        let r = template("/{+name}", &[])
            .render(&base, &args(json!({"name": "a/v1.2..3/%41"})))
            .unwrap();
        assert_eq!(r.url.path(), "/v1/a/v1.2..3/%2541");
    }

    #[test]
    fn a_reserved_expansion_outside_the_path_reads_as_a_plain_argument() {
        let base = url::Url::parse("https://api.example.com/").unwrap();
        let r = template("/x", &[("filter", "{+f}")])
            .render(&base, &args(json!({"f": "a/b&c"})))
            .unwrap();
        assert_eq!(r.url.query(), Some("filter=a%2Fb%26c"));
    }

    #[test]
    fn dot_segments_are_refused() {
        let base = url::Url::parse("https://api.example.com/v1").unwrap();
        for bad in [".", ".."] {
            let e = template("/items/{id}", &[]).render(&base, &args(json!({ "id": bad })));
            assert!(e.unwrap_err().0.contains("path segment"));
        }
    }

    #[test]
    fn a_segment_argument_that_a_decoding_server_would_climb_with_is_refused() {
        let base = url::Url::parse("https://api.example.com/v1/").unwrap();
        for bad in [
            "../../admin",
            "..%2F..%2Fadmin",
            "%2e%2e%2fadmin",
            "%252e%252e%252fadmin",
            "..\\admin",
            "..;/admin",
        ] {
            let e = template("/items/{id}", &[])
                .render(&base, &args(json!({ "id": bad })))
                .unwrap_err();
            assert!(e.0.contains("outside the tool's"), "{bad:?}: {e}");
        }
        // A slash inside a name stays one encoded segment; dots inside names are data.
        let r = template("/items/{id}", &[])
            .render(&base, &args(json!({"id": "a/b..c"})))
            .unwrap();
        assert_eq!(r.url.path(), "/v1/items/a%2Fb..c");
    }

    #[test]
    fn host_cannot_be_changed_even_by_a_leading_double_slash() {
        let base = url::Url::parse("http://127.0.0.1:9000").unwrap();
        let r = template("{p}", &[])
            .render(&base, &args(json!({"p": "//evil.com/x"})))
            .unwrap();
        assert_eq!(r.url.host_str(), Some("127.0.0.1"));
        assert_eq!(r.url.port(), Some(9000));
    }

    #[test]
    fn query_parameters_with_absent_arguments_are_left_out() {
        let base = url::Url::parse("http://h/api?key=1").unwrap();
        let r = template("/search", &[("q", "{query}"), ("limit", "{limit}")])
            .render(&base, &args(json!({"query": "a b&c=d"})))
            .unwrap();
        assert_eq!(r.url.as_str(), "http://h/api/search?key=1&q=a+b%26c%3Dd");
    }

    #[test]
    fn missing_path_argument_is_named() {
        let base = url::Url::parse("http://h").unwrap();
        let e = template("/items/{id}", &[])
            .render(&base, &args(json!({})))
            .unwrap_err();
        assert_eq!(e.0, "missing required argument id");
    }

    #[test]
    fn header_injection_is_refused() {
        let base = url::Url::parse("http://h").unwrap();
        let mut t = template("/x", &[]);
        t.headers
            .push((HeaderName::from_static("x-user"), Template::parse("{u}")));
        let e = t
            .render(&base, &args(json!({"u": "a\r\nHost: evil"})))
            .unwrap_err();
        assert!(e.0.contains("header x-user"));
    }

    #[test]
    fn body_placeholders_keep_json_types_and_drop_absent_keys() {
        let base = url::Url::parse("http://h").unwrap();
        let mut t = template("/x", &[]);
        t.body = Some(
            json!({"q": "{query}", "n": "{limit}", "fixed": "{not a placeholder}", "opt": "{missing}"}),
        );
        let r = t
            .render(&base, &args(json!({"query": "hi", "limit": 3})))
            .unwrap();
        let body: Value = serde_json::from_slice(&r.body.unwrap()).unwrap();
        assert_eq!(
            body,
            json!({"q": "hi", "n": 3, "fixed": "{not a placeholder}"})
        );
        assert_eq!(t.arguments(), vec!["query", "limit", "missing"]);
    }

    #[test]
    fn a_query_or_form_list_keeps_the_commas_between_its_items() {
        // OpenAPI's `form` style unexploded (and Swagger 2.0's `csv`): the comma between
        // items is a delimiter, sent as it is; a comma inside an item is data, encoded.
        let base = url::Url::parse("https://api.example.com/v1?api_key=a,b").unwrap();
        let mut t = template(
            "/items",
            &[("ids", "{ids}"), ("q", "{q}"), ("range", "{from}..{to}")],
        );
        let r = t
            .render(
                &base,
                &args(json!({"ids": ["a b,c", "d", 3, true], "q": "x,y", "from": 1, "to": [2, 3]})),
            )
            .unwrap();
        assert_eq!(
            r.url.query(),
            Some("api_key=a%2Cb&ids=a+b%2Cc,d,3,true&q=x%2Cy&range=1..2,3")
        );
        // What a server reads back: the items, each item's own comma kept.
        let ids: Vec<String> = r
            .url
            .query()
            .unwrap()
            .split('&')
            .find_map(|p| p.strip_prefix("ids="))
            .unwrap()
            .split(',')
            .map(|item| {
                url::form_urlencoded::parse(format!("x={item}").as_bytes())
                    .next()
                    .unwrap()
                    .1
                    .into_owned()
            })
            .collect();
        assert_eq!(ids, ["a b,c", "d", "3", "true"]);
        // A form body's `comma` fields alike, a list's and an object's members.
        t.method = Method::POST;
        t.query.clear();
        t.body_encoding = BodyEncoding::Form;
        t.body = Some(json!({"tags": "{tags}", "color": "{color}", "note": "{note}"}));
        t.form_style.insert("tags".into(), FormStyle::Comma);
        t.form_style.insert("color".into(), FormStyle::Comma);
        let r = t
            .render(
                &base,
                &args(
                    json!({"tags": ["a,b", "c d"], "color": {"R": 1, "G": "x,y"}, "note": "p,q"}),
                ),
            )
            .unwrap();
        assert_eq!(
            String::from_utf8(r.body.unwrap()).unwrap(),
            "tags=a%2Cb,c+d&color=R,1,G,x%2Cy&note=p%2Cq"
        );
    }

    #[test]
    fn form_fields_with_structures_follow_their_style() {
        let base = url::Url::parse("http://h").unwrap();
        let mut t = template("/v1/things", &[]);
        t.method = Method::POST;
        t.body_encoding = BodyEncoding::Form;
        t.body =
            Some(json!({"r": "{r}", "c": "{c}", "b": "{b}", "d": "{d}", "o": "{o}", "j": "{j}"}));
        for (k, st) in [
            ("r", FormStyle::Repeat),
            ("c", FormStyle::Comma),
            ("b", FormStyle::Brackets),
            ("d", FormStyle::Deep),
            ("o", FormStyle::Repeat),
        ] {
            t.form_style.insert(k.into(), st);
        }
        let r = t
            .render(
                &base,
                &args(json!({"r": ["x", "y"], "c": [1, 2], "b": ["p", {"q": 1}],
                    "d": {"items": [{"price": "pr_1", "qty": 2}], "meta": {"k": "v"}},
                    "o": {"m1": "a", "m2": null}, "j": [1]})),
            )
            .unwrap();
        let body = String::from_utf8(r.body.unwrap()).unwrap();
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(body.as_bytes())
            .into_owned()
            .collect();
        let want: Vec<(String, String)> = [
            ("r", "x"),
            ("r", "y"),
            ("c", "1,2"),
            ("b[]", "p"),
            ("b[1][q]", "1"),
            ("d[items][0][price]", "pr_1"),
            ("d[items][0][qty]", "2"),
            ("d[meta][k]", "v"),
            ("m1", "a"),
            ("j", "[1]"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(pairs, want, "{body}");
    }

    #[test]
    fn form_bodies_are_url_encoded_pairs_with_json_text_for_structures() {
        let base = url::Url::parse("http://h").unwrap();
        let mut t = template("/chat.postMessage", &[]);
        t.method = Method::POST;
        t.body = Some(
            json!({"channel": "{channel}", "text": "{text}", "blocks": "{blocks}", "mrkdwn": "{mrkdwn}", "gone": "{gone}"}),
        );
        t.body_encoding = BodyEncoding::Form;
        let r = t
            .render(
                &base,
                &args(json!({"channel": "C1", "text": "a b&c=d ü", "blocks": [{"type": "x"}], "mrkdwn": false})),
            )
            .unwrap();
        assert_eq!(r.content_type, "application/x-www-form-urlencoded");
        let body = String::from_utf8(r.body.unwrap()).unwrap();
        assert_eq!(
            body,
            "channel=C1&text=a+b%26c%3Dd+%C3%BC&blocks=%5B%7B%22type%22%3A%22x%22%7D%5D&mrkdwn=false"
        );
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(body.as_bytes())
            .into_owned()
            .collect();
        assert_eq!(pairs[1], ("text".into(), "a b&c=d ü".into()));
        assert_eq!(pairs[2].1, r#"[{"type":"x"}]"#);
        assert_eq!(
            template("/x", &[])
                .render(&base, &args(json!({})))
                .unwrap()
                .content_type,
            "application/json"
        );
    }
}

#[cfg(test)]
mod limit_tests {
    use super::*;
    use serde_json::json;

    fn search() -> RequestTemplate {
        RequestTemplate {
            method: Method::GET,
            path: Template::parse("/search"),
            query: vec![("q".into(), Template::parse("{q}"))],
            headers: vec![],
            body: None,
            body_encoding: BodyEncoding::Json,
            content_type: None,
            form_style: BTreeMap::new(),
        }
    }

    fn render(t: &RequestTemplate, args: Value) -> Result<RenderedRequest, RenderError> {
        let Value::Object(args) = args else {
            panic!("object")
        };
        t.render(
            &url::Url::parse("http://api.example.com/v1").unwrap(),
            &args,
        )
    }

    #[test]
    fn a_url_longer_than_8_kib_is_refused_with_the_limit() {
        let err = render(&search(), json!({ "q": "x".repeat(9000) })).unwrap_err();
        assert!(err.0.contains("over the 8 KiB limit"), "{}", err.0);
        // Just under the limit still renders.
        assert!(render(&search(), json!({ "q": "x".repeat(8000) })).is_ok());
    }

    #[test]
    fn an_argument_over_64_kib_is_refused_wherever_it_goes() {
        let mut t = search();
        t.body = Some(json!({ "text": "{text}" }));
        let err = render(&t, json!({ "q": "a", "text": "y".repeat(70_000) })).unwrap_err();
        assert!(
            err.0.contains("`text`") && err.0.contains("64 KiB"),
            "{}",
            err.0
        );
    }

    #[test]
    fn a_body_over_1_mib_is_refused_with_the_limit() {
        let mut t = search();
        t.body = Some(json!({ "a": "{a}", "b": "{b}" }));
        // Many arguments each under 64 KiB, together over 1 MiB.
        let mut args = serde_json::Map::new();
        args.insert("q".into(), json!("a"));
        let mut body = serde_json::Map::new();
        for i in 0..20 {
            body.insert(format!("f{i}"), json!(format!("{{f{i}}}")));
            args.insert(format!("f{i}"), json!("z".repeat(60_000)));
        }
        t.body = Some(Value::Object(body));
        let err = render(&t, Value::Object(args)).unwrap_err();
        assert!(err.0.contains("over the 1 MiB limit"), "{}", err.0);
    }
}
