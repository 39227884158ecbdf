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
mod form;
mod multipart;
use form::form_body;

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

/// `media` as the `Content-Type` of a JSON body, when it is a JSON media type: a
/// `type/json` or `type/subtype+json` (RFC 6839), with any parameters it carries
/// (`application/vnd.api+json`, `application/merge-patch+json; charset=utf-8`). A
/// range (`*/*`, `application/*`) names no type to send; anything else is not JSON.
pub fn json_media_type(media: &str) -> Option<HeaderValue> {
    let subtype = concrete_subtype(media)?.to_ascii_lowercase();
    let json = subtype == "json" || subtype.ends_with("+json");
    json.then(|| HeaderValue::from_str(media.trim()).ok())
        .flatten()
}

/// `media` as the `Content-Type` of a `text` body: one concrete `type/subtype` (a range
/// such as `text/*` names no type to send), with any parameters it carries.
pub fn text_media_type(media: &str) -> Option<HeaderValue> {
    concrete_subtype(media)?;
    HeaderValue::from_str(media.trim()).ok()
}

/// The subtype of `media` when its type and subtype are both tokens (RFC 9110 §8.3.1),
/// parameters aside: a range (`*/*`, `text/*`) has none.
fn concrete_subtype(media: &str) -> Option<&str> {
    let essence = media.trim().split(';').next().unwrap_or("").trim();
    let (kind, subtype) = essence.split_once('/')?;
    let token = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    (token(kind) && token(subtype)).then_some(subtype)
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

    /// Builds the request for `args` against `base`. Each step refuses what it cannot
    /// send, in the order a caller reads the reasons: the arguments' sizes, the path,
    /// the query, the URL as a whole, the headers, then the body.
    pub fn render(
        &self,
        base: &url::Url,
        args: &Map<String, Value>,
    ) -> Result<RenderedRequest, RenderError> {
        arguments_within_limit(args)?;
        let path = self.rendered_path(args)?;
        let mut url = base.clone();
        let joined = format!(
            "{}/{}",
            base.path().trim_end_matches('/'),
            path.trim_start_matches('/')
        );
        url.set_path(&joined);
        let pairs = self.query_pairs(base, args)?;
        url.set_query((!pairs.is_empty()).then(|| pairs.join("&")).as_deref());
        url_sendable(base, &url)?;
        let headers = self.rendered_headers(args)?;
        let (body, own_type) = match self.rendered_body(args)? {
            Some(RenderedBody {
                bytes,
                content_type,
            }) => (Some(bytes), content_type),
            None => (None, None),
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
            content_type: own_type
                .or_else(|| self.content_type.clone())
                .unwrap_or_else(|| HeaderValue::from_static(self.body_encoding.content_type())),
        })
    }

    /// The path with every argument encoded as (or, for `{+name}`, into) segments; an
    /// absent argument is named.
    fn rendered_path(&self, args: &Map<String, Value>) -> Result<String, RenderError> {
        self.path.render(args, path_text)?.ok_or_else(|| {
            let missing: Vec<&str> = self
                .path
                .arguments()
                .filter(|n| !has_value(args, n))
                .collect();
            RenderError(format!("missing required argument {}", missing.join(", ")))
        })
    }

    /// The base URL's query pairs, then the template's, each already encoded: a
    /// serializer would encode the commas between a list's items as well as those
    /// inside them.
    fn query_pairs(
        &self,
        base: &url::Url,
        args: &Map<String, Value>,
    ) -> Result<Vec<String>, RenderError> {
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
        Ok(pairs)
    }

    fn rendered_headers(&self, args: &Map<String, Value>) -> Result<HeaderMap, RenderError> {
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
        Ok(headers)
    }

    /// The body's bytes, encoded as the template says, with the media type the body
    /// chose itself (a multipart form names its boundary); `None` when there is no body.
    fn rendered_body(
        &self,
        args: &Map<String, Value>,
    ) -> Result<Option<RenderedBody>, RenderError> {
        let Some(template) = &self.body else {
            return Ok(None);
        };
        let rendered = render_body(template, args);
        Ok(match self.body_encoding {
            BodyEncoding::Json => Some(RenderedBody::of(
                serde_json::to_vec(&rendered.unwrap_or(Value::Null))
                    .map_err(|e| RenderError(e.to_string()))?,
            )),
            BodyEncoding::Form => Some(RenderedBody::of(
                form_body(&rendered.unwrap_or(Value::Null), &self.form_style).into_bytes(),
            )),
            // An optional text body whose argument is absent is not sent.
            BodyEncoding::Text => match rendered {
                None => None,
                Some(Value::String(text)) => Some(RenderedBody::of(text.into_bytes())),
                Some(other) => {
                    return Err(RenderError(format!(
                        "the request body is sent as text: give it as a string, not {}",
                        json_kind(&other)
                    )));
                }
            },
            BodyEncoding::Multipart => {
                let form = multipart::multipart_body(&rendered.unwrap_or(Value::Null))
                    .ok_or_else(|| {
                        RenderError(
                            "the form fields hold text that no multipart boundary can separate; change the values"
                                .into(),
                        )
                    })?;
                Some(RenderedBody {
                    bytes: form.body,
                    content_type: Some(form.content_type),
                })
            }
        })
    }
}

/// A body's bytes, and the media type it chose itself: a multipart form names its
/// boundary; every other body is sent as the template's `content_type` says.
struct RenderedBody {
    bytes: Vec<u8>,
    content_type: Option<HeaderValue>,
}

impl RenderedBody {
    fn of(bytes: Vec<u8>) -> RenderedBody {
        RenderedBody {
            bytes,
            content_type: None,
        }
    }
}

/// No argument may be larger than one argument value may be, wherever it goes.
fn arguments_within_limit(args: &Map<String, Value>) -> Result<(), RenderError> {
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
    Ok(())
}

/// An argument's text in the path: `{+name}` as segments of its own, anything else as
/// one segment, each list item encoded on its own and the separating commas kept
/// literal. A value that is empty or could name `.` or `..` is refused.
fn path_text(items: &[String], segments: bool) -> Result<String, RenderError> {
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
    let encoded: Vec<String> = items
        .iter()
        .map(|item| utf8_percent_encode(item, SEGMENT).to_string())
        .collect();
    Ok(encoded.join(","))
}

/// The finished URL must reach the base URL's origin, and be short enough to send.
fn url_sendable(base: &url::Url, url: &url::Url) -> Result<(), RenderError> {
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
    Ok(())
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

/// Replaces whole-string placeholders by the argument's JSON value; `None` removes the key.
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
mod tests;

#[cfg(test)]
mod limit_tests;
