//! Which media types a body may be labelled with (`content_type:` in the config): a JSON
//! type for a `json` body, any one concrete type for a `text` body. Apart because the
//! compiler asks it, not rendering.

use http::header::HeaderValue;

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
