//! Rendering: a tool's arguments into the upstream request, each part refused when it
//! cannot be sent (sizes, path, query, origin, headers, body), before any request.

use http::header::{HeaderMap, HeaderValue};
use serde_json::{Map, Value};

use super::argument_text::{
    comma_joined, cookie_value, exploded, form_encoded, form_list, item_texts, reserved_list,
};
use super::form::form_body;
use super::multipart;
use super::parameter_names::{SpreadNames, members_read_alike, parameter_key};
use super::parse::{Part, Template, whole_placeholder};
use super::path::path_text;
use super::request::{BodyEncoding, RenderError, RenderedRequest, RequestTemplate};

/// The longest URL toolgate sends (8 KiB). Servers and proxies commonly refuse longer
/// request lines (414, or a reset), and the HTTP client refuses far longer ones
/// locally: either way a call that cannot be sent must be refused before admission, as
/// the model's `client_error`, never mistaken for a failing upstream.
pub const MAX_URL_BYTES: usize = 8 << 10;
/// The largest value one argument may have (64 KiB, as JSON text for non-strings).
pub const MAX_ARGUMENT_BYTES: usize = 64 << 10;
/// The largest request body toolgate sends (1 MiB).
pub const MAX_BODY_BYTES: usize = 1 << 20;

impl Template {
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

impl RequestTemplate {
    /// The query parameter the base URL or the tool's template sets (other than
    /// `spread`, the one whose object is being spread) that a server may read `key` as.
    fn sets_query<'a>(&'a self, base: &'a url::Url, spread: &str, key: &str) -> Option<String> {
        let wanted = parameter_key(key);
        let own = self
            .query
            .iter()
            .map(|(n, _)| n.clone())
            .filter(|n| n != spread);
        own.chain(self.base_query(base).map(|(k, _)| k))
            .find(|n| parameter_key(n) == wanted)
    }

    /// The base URL's query pairs this tool sends: all but those it omits (a key an
    /// operation served without credentials must not be sent).
    fn base_query<'a>(&'a self, base: &'a url::Url) -> impl Iterator<Item = (String, String)> + 'a {
        base.query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .filter(|(k, _)| !self.omit_query.contains(k))
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
            omit_headers: self.omit_headers.clone(),
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
        let mut pairs: Vec<String> = self
            .base_query(base)
            .map(|(k, v)| format!("{}={}", form_encoded(&k), form_encoded(&v)))
            .collect();
        let mut spread = SpreadNames::default();
        for (name, template) in &self.query {
            if let [Part::Each(arg)] = template.0.as_slice() {
                let members = args.get(arg).is_some_and(Value::is_object);
                for (key, value) in exploded(name, args.get(arg)) {
                    // An object's member names come from the caller: none may set a
                    // parameter the tool or its base URL sets (an `api_key`), as
                    // written or as a lenient server reads it (`API.KEY`), nor be
                    // read as another member (`ID` and `id`).
                    if members {
                        if let Some(set) = self.sets_query(base, name, key) {
                            return Err(RenderError(format!(
                                "the argument `{arg}` names the query parameter `{key}`, which a server may read as `{set}`, a parameter the tool sets itself"
                            )));
                        }
                        spread.add(arg, key, "query parameters")?;
                    }
                    pairs.push(format!("{}={}", form_encoded(key), form_encoded(&value)));
                }
            } else if let Some(value) =
                template.render_with(args, form_encoded, |items, reserved| {
                    // `{+name}`: the description lets the value carry reserved characters.
                    Ok(if reserved {
                        reserved_list(items)
                    } else {
                        form_list(items)
                    })
                })?
            {
                pairs.push(format!("{}={value}", form_encoded(name)));
            }
        }
        Ok(pairs)
    }

    fn rendered_headers(&self, args: &Map<String, Value>) -> Result<HeaderMap, RenderError> {
        let mut headers = HeaderMap::new();
        for (name, template) in &self.headers {
            // An argument inside a `Cookie` header's pairs (`session={session}`) is a
            // cookie's value: held to the cookie octets, so it cannot end its pair and
            // add a cookie of its own (`a; admin=1`).
            let cookie_values = *name == http::header::COOKIE && template.0.len() > 1;
            let value = template.render(args, |t, _| {
                if cookie_values {
                    cookie_value(t)
                } else {
                    comma_joined(name.as_str(), t)
                }
            })?;
            if let Some(value) = value {
                // RFC 9110 leaves bytes past ASCII in a field value opaque: Java's
                // servlets and Node read them as Latin-1, Go as UTF-8, so `café` or a
                // right-to-left override would reach the server as other text than
                // the schema checked.
                if !value.is_ascii() {
                    return Err(RenderError(format!(
                        "the value for header {name} holds characters other than ASCII, which servers read in different ways; send ASCII text"
                    )));
                }
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
        self.body_members_distinct(template, args)?;
        let rendered = render_body(template, args);
        Ok(match self.body_encoding {
            BodyEncoding::Json => Some(RenderedBody::of(
                serde_json::to_vec(&rendered.unwrap_or(Value::Null))
                    .map_err(|e| RenderError(e.to_string()))?,
            )),
            BodyEncoding::Form => Some(RenderedBody::of(
                form_body(template, &rendered.unwrap_or(Value::Null), &self.form_style)?
                    .into_bytes(),
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

impl RequestTemplate {
    /// Refuses an argument placed in the body holding an object two of whose members a
    /// case-insensitive JSON reader reads as one (`role` and `ROLE`, `mask` and `maſk`):
    /// the input schema checked one, the server may keep the other. So is one holding a
    /// member that reaches a JavaScript server's object prototype (`__proto__`).
    fn body_members_distinct(
        &self,
        template: &Value,
        args: &Map<String, Value>,
    ) -> Result<(), RenderError> {
        let mut names = Vec::new();
        super::request::body_arguments(template, &mut names);
        for name in names {
            if let Some(member) = args
                .get(name)
                .and_then(super::prototype_names::prototype_member)
            {
                return Err(super::prototype_names::refusal(name, &member));
            }
            let Some((first, second)) = args.get(name).and_then(members_read_alike) else {
                continue;
            };
            return Err(RenderError(format!(
                "the argument `{name}` holds the members `{first}` and `{second}`, which a server may read as one; send each name once, in one spelling"
            )));
        }
        Ok(())
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

/// The finished URL must reach the base URL's origin, and be short enough to send.
fn url_sendable(base: &url::Url, url: &url::Url) -> Result<(), RenderError> {
    if !same_origin(base, url) {
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

/// Whether `url` has `base`'s origin. For the schemes whose origin is their scheme,
/// host and port, these are compared where they stand: `Url::origin` copies both
/// URLs' scheme and host into new strings, on every call. Any other scheme's origin is
/// compared as `Url::origin` does (an opaque origin equals no other).
fn same_origin(base: &url::Url, url: &url::Url) -> bool {
    if matches!(base.scheme(), "http" | "https" | "ws" | "wss" | "ftp") {
        url.scheme() == base.scheme()
            && url.host() == base.host()
            && url.port_or_known_default() == base.port_or_known_default()
    } else {
        url.origin() == base.origin()
    }
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
mod origin_tests;
