//! A `multipart/form-data` body (RFC 7578) from a rendered object: APIs that read form
//! fields only as the parts of a multipart form (an upload endpoint's text fields, a
//! description that lists `multipart/form-data` alone) take them this way. Files are
//! never sent: a tool's arguments are JSON values, so every part is text.

use http::header::HeaderValue;
use serde_json::Value;

/// A rendered multipart body and the `Content-Type` that names its boundary.
pub(super) struct Multipart {
    pub(super) body: Vec<u8>,
    pub(super) content_type: HeaderValue,
}

/// Each member of `rendered` is a part named after it, as OpenAPI's defaults for a
/// multipart body say: a string as it is and a number or boolean printed, both
/// `text/plain` (RFC 7578's default, so no `Content-Type` is written); an object as
/// JSON text, `application/json`; a list as one part per item under the same name
/// (RFC 7578 § 4.3). `null` and absent members are no part. `None` when no boundary
/// fits (see [`boundary_for`]).
pub(super) fn multipart_body(rendered: &Value) -> Option<Multipart> {
    let mut parts: Vec<(&str, String, bool)> = Vec::new();
    if let Value::Object(map) = rendered {
        for (name, value) in map {
            match value {
                Value::Array(items) => {
                    parts.extend(items.iter().filter_map(|item| part(name, item)));
                }
                other => parts.extend(part(name, other)),
            }
        }
    }
    let boundary = boundary_for(&parts)?;
    let mut body = Vec::new();
    for (name, text, json) in &parts {
        body.extend_from_slice(b"--");
        body.extend_from_slice(boundary.as_bytes());
        body.extend_from_slice(b"\r\nContent-Disposition: form-data; name=\"");
        body.extend_from_slice(quoted_name(name).as_bytes());
        body.extend_from_slice(b"\"\r\n");
        if *json {
            body.extend_from_slice(b"Content-Type: application/json\r\n");
        }
        body.extend_from_slice(b"\r\n");
        body.extend_from_slice(text.as_bytes());
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"--");
    body.extend_from_slice(boundary.as_bytes());
    body.extend_from_slice(b"--\r\n");
    // The boundary is ASCII letters, digits and `-`: always a valid header value.
    let content_type = HeaderValue::from_str(&format!("multipart/form-data; boundary={boundary}"))
        .unwrap_or_else(|_| HeaderValue::from_static("multipart/form-data"));
    Some(Multipart { body, content_type })
}

/// One part's text and whether it is JSON; `None` for `null`.
fn part<'a>(name: &'a str, value: &Value) -> Option<(&'a str, String, bool)> {
    match value {
        Value::Null => None,
        Value::String(s) => Some((name, s.clone(), false)),
        Value::Object(_) | Value::Array(_) => Some((name, value.to_string(), true)),
        other => Some((name, other.to_string(), false)),
    }
}

/// A field name inside the quoted `name="…"`: a quote or a line break would end the
/// header or the parameter early, so they are percent-encoded as browsers send them
/// (WHATWG's multipart/form-data encoding).
fn quoted_name(name: &str) -> String {
    name.replace('"', "%22")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A boundary that occurs in no part (RFC 2046 § 5.1.1: the delimiter must not appear
/// in the content), derived from the content so a request renders the same way each
/// time. Values chosen to hold every candidate get `None`, and the call a clear error:
/// a part can never end early or add a part of its own.
fn boundary_for(parts: &[(&str, String, bool)]) -> Option<String> {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (name, text, _) in parts {
        for b in name.bytes().chain(text.bytes()) {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    (0..16u64)
        .map(|round| {
            let h = (hash ^ round).wrapping_mul(0x0100_0000_01b3);
            format!("toolgate-{h:016x}-{round:02x}")
        })
        .find(|b| {
            !parts
                .iter()
                .any(|(name, text, _)| name.contains(b.as_str()) || text.contains(b.as_str()))
        })
}
