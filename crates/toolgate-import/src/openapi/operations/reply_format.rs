//! Query and header parameters that change how the reply is written or sent rather
//! than what the operation does: a choice of format (`alt=json|media|proto`,
//! `format=json|xml`), a JSONP callback that wraps the reply in a script, printing and
//! upload-transport switches (`prettyPrint`, `upload_protocol`, `$.xgafv`) and quota
//! attribution (`quotaUser`). A model given one of these can turn the JSON reply the
//! contract checks into XML or JavaScript, or fill what only a client library sets. A
//! format choice is fixed to its JSON value, the others are left out, and the generated
//! configuration says which in a comment. (A credential written as a query parameter,
//! `key` or `access_token`, is the dependency's already: `credentials.rs`.)

use serde_json::Value;

/// What to do with a parameter that is no argument of the operation.
#[derive(Debug, PartialEq)]
pub(super) enum ReplyParameter {
    /// Picks the reply's format: always sent with this JSON value.
    Json(String),
    /// Left out, for the reason given (a clause of the note).
    LeftOut(&'static str),
}

/// Values of a format choice that are not JSON.
const OTHER_FORMATS: &[&str] = &[
    "xml",
    "csv",
    "tsv",
    "proto",
    "protobuf",
    "media",
    "html",
    "yaml",
    "yml",
    "text",
    "txt",
    "plain",
    "jsonp",
    "js",
    "javascript",
    "atom",
    "rss",
    "kml",
    "gpx",
    "pdf",
    "xlsx",
    "msgpack",
];

/// Names of a parameter whose only work is to pick the reply's format.
const FORMAT_NAMES: &[&str] = &[
    "alt",
    "format",
    "fmt",
    "output",
    "outputformat",
    "responseformat",
    "dataformat",
];

/// Names of a JSONP callback parameter.
const JSONP_NAMES: &[&str] = &["callback", "jsonp", "jsoncallback", "jsonpcallback"];

/// Names of switches for how the reply is printed or the request carried, and of
/// quota attribution: the client library's business, never the operation's.
const TRANSPORT_NAMES: &[&str] = &[
    "prettyprint",
    "pretty",
    "uploadprotocol",
    "uploadtype",
    "quotauser",
    "userip",
    "xgafv",
];

/// The parameter's treatment when it changes the reply's format or transport; `None`
/// for an ordinary argument. Only query parameters are: `schema` is the parameter's
/// schema with any `$ref` resolved.
pub(super) fn classify(
    name: &str,
    location: &str,
    required: bool,
    description: &str,
    schema: &Value,
) -> Option<ReplyParameter> {
    if location != "query" {
        return None;
    }
    let key = normalized(name);
    let description = description.to_ascii_lowercase();
    if let Some(json) = json_choice(&key, schema) {
        return Some(ReplyParameter::Json(json));
    }
    // What follows is only ever a client library's choice: one the description
    // requires is left to the model.
    if required {
        return None;
    }
    if JSONP_NAMES.contains(&key.as_str())
        && (key != "callback"
            || ["jsonp", "javascript", "function"]
                .iter()
                .any(|w| description.contains(w)))
    {
        return Some(ReplyParameter::LeftOut(
            "a JSONP callback wraps the reply in a JavaScript call, which is no JSON the contract can check",
        ));
    }
    if TRANSPORT_NAMES.contains(&key.as_str()) {
        return Some(ReplyParameter::LeftOut(
            "they set how the reply is printed or the request carried, or whose quota a call counts against, not what the operation does",
        ));
    }
    None
}

/// The JSON value of a choice of the reply's format: an enum holding a JSON value
/// beside another format, or a format-named parameter whose default is JSON.
fn json_choice(key: &str, schema: &Value) -> Option<String> {
    let values: Vec<&str> = schema
        .get("enum")
        .or_else(|| schema.get("items").and_then(|i| i.get("enum")))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let json = values.iter().find(|v| is_json(v));
    let other = values
        .iter()
        .any(|v| OTHER_FORMATS.contains(&v.to_ascii_lowercase().as_str()));
    if let (Some(json), true) = (json, other) {
        return Some(json.to_string());
    }
    if values.is_empty() && FORMAT_NAMES.contains(&key) {
        return schema
            .get("default")
            .and_then(Value::as_str)
            .filter(|d| is_json(d))
            .map(str::to_string);
    }
    None
}

/// `json`, `JSON`, `application/json`: the format the contract checks.
fn is_json(v: &str) -> bool {
    let v = v.trim().to_ascii_lowercase();
    v == "json" || v == "application/json"
}

/// A parameter's name by its letters and digits, lower case (`$.xgafv` is `xgafv`,
/// `upload_protocol` is `uploadprotocol`).
fn normalized(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase()
}
