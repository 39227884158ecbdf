//! Request body media types as descriptions write them. Besides the registered
//! `multipart/form-data`, some write `application/form-data`, a type no registry lists;
//! the fields under it are the parts of a multipart form (Mastodon's uploads, whose
//! `avatar` field is "encoded using multipart/form-data"), so it is read as one.
//! A body that is text in a media type of its own (an XML document, YAML, plain text)
//! is a string argument sent as written.

/// What the import says wherever it reads the unregistered spelling as a multipart form.
pub const READ_AS_MULTIPART: &str = "read as multipart/form-data";

/// What the import calls a `content` key that names no media type (`""`), read as `*/*`.
pub const EMPTY: &str = "an empty media type";

/// The media type without parameters, lower-case: `Multipart/Form-Data; boundary=x`
/// → `multipart/form-data`.
fn essence(media: &str) -> String {
    media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The top-level types RFC 6838 § 4.2 registers (and IANA lists since: `font`,
/// `haptics`): the only words a media type may start with.
const TOP_LEVEL: &[&str] = &[
    "application",
    "audio",
    "example",
    "font",
    "haptics",
    "image",
    "message",
    "model",
    "multipart",
    "text",
    "video",
];

/// What a media type written without the `/` between type and subtype reads as: a
/// registered top-level type followed by a subtype a body is sent as ([`well_known`])
/// (`applicationjson;version=2018-01-01`, Loket's, is `application/json;version=…`),
/// its parameters kept. `None` for a media type that has its `/`, and for anything
/// else without one (`json`, `application`, `form`): no type can be told from it, and
/// guessing one would send a body in a type the API never named.
pub fn repaired(media: &str) -> Option<String> {
    let (essence, parameters) = match media.split_once(';') {
        Some((e, p)) => (e.trim(), Some(p)),
        None => (media.trim(), None),
    };
    if essence.contains('/') {
        return None;
    }
    let lower = essence.to_ascii_lowercase();
    let kind = TOP_LEVEL.iter().find(|t| lower.starts_with(*t))?;
    let subtype = &essence[kind.len()..];
    let restricted = |c: char| c.is_ascii_alphanumeric() || "!#$&-^_.+".contains(c);
    if !subtype.starts_with(|c: char| c.is_ascii_alphanumeric())
        || subtype.len() > 126
        || !subtype.chars().all(restricted)
        || !well_known(&subtype.to_ascii_lowercase())
    {
        return None;
    }
    let kind = &essence[..kind.len()];
    Some(match parameters {
        Some(p) => format!("{kind}/{subtype};{p}"),
        None => format!("{kind}/{subtype}"),
    })
}

/// A subtype whose type a body is sent as, which a word that merely starts like a
/// type is not (`textual` is no `text/ual`): JSON, a form, XML, YAML, plain text,
/// CSV, HTML.
fn well_known(subtype: &str) -> bool {
    matches!(
        subtype,
        "json"
            | "x-www-form-urlencoded"
            | "form-data"
            | "xml"
            | "yaml"
            | "x-yaml"
            | "plain"
            | "csv"
            | "html"
    ) || subtype.ends_with("+json")
        || subtype.ends_with("+xml")
}

/// Every key of a `content` map as read: one missing its `/` repaired ([`repaired`]),
/// with a note naming each such key and its reading.
pub fn read_content(
    content: &serde_json::Map<String, serde_json::Value>,
    notes: &mut Vec<String>,
) -> serde_json::Map<String, serde_json::Value> {
    let mut out = serde_json::Map::new();
    for (k, v) in content {
        match repaired(k) {
            Some(r) if !content.contains_key(&r) => {
                notes.push(missing_slash(k, &r));
                out.insert(r, v.clone());
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    out
}

/// The note on a media type read with its missing `/` put back.
pub fn missing_slash(written: &str, read: &str) -> String {
    format!(
        "the media type `{written}` has no `/` between type and subtype (RFC 6838 § 4.2): read as `{read}`"
    )
}

/// Whether `media` is the unregistered `application/form-data` (or a bare `form-data`).
pub fn is_misspelled_multipart(media: &str) -> bool {
    matches!(
        essence(media).as_str(),
        "application/form-data" | "form-data"
    )
}

/// Whether `media` is a multipart body: any `multipart/…` type, or a misspelling of
/// `multipart/form-data`.
pub fn is_multipart(media: &str) -> bool {
    essence(media).starts_with("multipart/") || is_misspelled_multipart(media)
}

/// Whether `media` is a form whose fields are the body's parts: `multipart/form-data`
/// or its misspelling. Other multipart types (`multipart/mixed`, `multipart/related`)
/// carry documents, not named fields.
pub fn is_form_data(media: &str) -> bool {
    essence(media) == "multipart/form-data" || is_misspelled_multipart(media)
}

/// `media` as the import names it in a skip reason or a note: the misspelling with how
/// it was read.
pub fn describe(media: &str) -> String {
    let essence = essence(media);
    if essence.is_empty() {
        EMPTY.to_string()
    } else if is_misspelled_multipart(media) {
        format!("{media} ({READ_AS_MULTIPART})")
    } else if !essence.contains('/') {
        // Not repaired (see [`repaired`]): no type can be told from it.
        format!("{media} (not a media type: RFC 6838 writes `type/subtype`)")
    } else {
        media.to_string()
    }
}

/// Whether a body of `media` is text a string argument can carry as it is: any `text/…`
/// type, XML and YAML (`application/xml`, `…+xml`, `application/x-yaml`, `…+yaml`),
/// the text formats APIs read as bodies of their own (a JWT, SQL, GraphQL, newline-
/// delimited JSON), and the unregistered `application/text`. Bytes of any other kind
/// (`application/octet-stream`, an image, an archive) are not text.
pub fn is_text(media: &str) -> bool {
    let essence = essence(media);
    let Some((kind, subtype)) = essence.split_once('/') else {
        return false;
    };
    kind == "text" && !subtype.is_empty()
        || matches!(
            subtype,
            "xml" | "yaml" | "x-yaml" | "text" | "jwt" | "sql" | "graphql" | "x-ndjson" | "ndjson"
        )
        || subtype.ends_with("+xml")
        || subtype.ends_with("+yaml")
}

/// The `Content-Type` a text body of `media` is sent with: the type as the description
/// writes it, parameters and all, or for the range `text/*`, which names no type to send,
/// `text/plain`.
pub fn text_sent_as(media: &str) -> String {
    if essence(media) == "text/*" {
        "text/plain".to_string()
    } else {
        media.trim().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unregistered_form_data_type_is_a_multipart_form() {
        for multipart in [
            "multipart/form-data",
            "multipart/form-data; boundary=x",
            "application/form-data",
            "Application/Form-Data",
            "form-data",
            "multipart/mixed",
        ] {
            assert!(is_multipart(multipart), "{multipart}");
        }
        for other in [
            "application/x-www-form-urlencoded",
            "application/json",
            "application/octet-stream",
        ] {
            assert!(!is_multipart(other), "{other}");
        }
        assert_eq!(
            describe("application/form-data"),
            "application/form-data (read as multipart/form-data)"
        );
        assert_eq!(describe("multipart/form-data"), "multipart/form-data");
    }

    #[test]
    fn a_media_type_missing_its_slash_is_repaired_only_when_its_type_is_plain() {
        for (written, read) in [
            ("applicationjson", "application/json"),
            (
                "applicationjson;version=2018-01-01",
                "application/json;version=2018-01-01",
            ),
            ("Applicationvnd.api+json", "Application/vnd.api+json"),
            (
                "applicationx-www-form-urlencoded",
                "application/x-www-form-urlencoded",
            ),
            ("multipartform-data", "multipart/form-data"),
            ("textplain; charset=utf-8", "text/plain; charset=utf-8"),
            ("applicationxml", "application/xml"),
        ] {
            assert_eq!(repaired(written).as_deref(), Some(read), "{written}");
        }
        for kept in [
            "application/json",
            "json",
            "application",
            "textual",
            "imagery",
            "application json",
            "application\\json",
            "applicationoctet-stream",
            "",
            "*/*",
        ] {
            assert_eq!(repaired(kept), None, "{kept}");
        }
        assert_eq!(
            describe("json"),
            "json (not a media type: RFC 6838 writes `type/subtype`)"
        );
        assert_eq!(
            describe("form-data"),
            "form-data (read as multipart/form-data)"
        );
    }

    #[test]
    fn text_bodies_are_text_xml_yaml_and_the_text_formats_not_bytes() {
        for text in [
            "text/plain",
            "text/plain; charset=utf-8",
            "Text/CSV",
            "text/*",
            "application/xml",
            "text/xml",
            "application/atom+xml",
            "application/soap+xml; charset=utf-8",
            "application/x-yaml",
            "application/yaml",
            "application/vnd.oai.openapi+yaml",
            "application/text",
            "application/jwt",
            "application/sql",
            "application/graphql",
            "application/x-ndjson",
        ] {
            assert!(is_text(text), "{text}");
        }
        for bytes in [
            "application/octet-stream",
            "image/png",
            "application/zip",
            "application/pdf",
            "multipart/form-data",
            "application/json",
            "*/*",
            "text",
            "",
        ] {
            assert!(!is_text(bytes), "{bytes}");
        }
        assert_eq!(text_sent_as("text/*"), "text/plain");
        assert_eq!(
            text_sent_as("application/xml; charset=utf-8"),
            "application/xml; charset=utf-8"
        );
    }
}
