//! A request body that is text in a media type of its own (XML, YAML, plain text, …):
//! one string argument sent as written, labelled with the declared type.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::super::text::trim_text;
use super::{is_json, is_raw_bytes};
use crate::openapi::schema::Converter;

/// A request body that is text in a media type of its own (XML, YAML, plain text): a
/// string argument sent as written, labelled with the declared type.
pub(super) struct TextBody {
    /// The `Content-Type` it is sent with.
    pub(super) media: String,
    /// The argument's schema: the declared one when it is a string, else any string.
    pub(super) schema: Value,
    pub(super) required: bool,
    /// What the generated tool says when the declared schema is not checked.
    pub(super) note: Option<String>,
}

/// The first text media type of a 3.x body's `content` whose schema is not bytes.
pub(super) fn text_media(
    conv: &mut Converter<'_>,
    file: &Path,
    content: Option<&Map<String, Value>>,
) -> Option<(String, Value)> {
    content?.iter().find_map(|(k, m)| {
        if !super::super::media::is_text(k) {
            return None;
        }
        let schema = m.get("schema").cloned().unwrap_or(Value::Bool(true));
        let resolved = conv
            .refs_mut()
            .deref(file, &schema)
            .map(|(_, s)| s)
            .unwrap_or(Value::Null);
        carries_text(&resolved).then(|| (k.clone(), m.clone()))
    })
}

/// Whether a body in a text media type is text a string argument carries. OpenAPI 3.0
/// writes the payload of any body that is not JSON as `type: string, format: binary`
/// (its file uploads: "content transferred in binary"), and in a text media type that
/// payload is text: AppVeyor's YAML settings as `text/plain`, a CSV as `text/csv`. Only
/// a body that is no string at all (2.0's `type: file`) is not.
pub(super) fn carries_text(resolved: &Value) -> bool {
    let string = match resolved.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
        _ => false,
    };
    string || !is_raw_bytes(resolved, false)
}

/// Whether `consumes` lists a JSON type, which a body is sent as instead.
pub(super) fn is_json_any(consumes: &[String]) -> bool {
    consumes.iter().any(|c| is_json(c))
}

/// The text body of `media` with declared `schema` (`resolved` through its `$ref`s).
/// A string schema is the argument's own (its `enum`, `pattern`, `maxLength` still
/// checked); a document's structure (an XML element's object schema) cannot be checked
/// on its text, so the argument is any string and the tool says so.
pub(super) fn text_body(
    conv: &mut Converter<'_>,
    file: &Path,
    schema: &Value,
    resolved: &Value,
    media: &str,
    required: bool,
    description: Option<&str>,
) -> TextBody {
    let media = super::super::media::text_sent_as(media);
    let is_string = resolved.get("type").and_then(Value::as_str) == Some("string");
    let (mut schema, note) = if is_string {
        (conv.part(file, schema), None)
    } else {
        (
            json!({"type": "string"}),
            Some(format!(
                "the request body is `{media}` text, sent as written: its structure is not checked"
            )),
        )
    };
    let what = format!("The request body, sent as `{media}` exactly as written.");
    let text = match description {
        Some(d) if !d.trim().is_empty() => format!("{what} {}", d.trim()),
        _ => what,
    };
    if let Value::Object(m) = &mut schema {
        m.insert("description".into(), Value::String(trim_text(&text, 300)));
    }
    TextBody {
        media,
        schema,
        required,
        note,
    }
}
