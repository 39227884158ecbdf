//! An argument's value as text, as each part of a request writes it: a list's items
//! one by one, form-encoded for a query or form, comma-joined for a header, spread into
//! pairs when exploded. Shared by the query, the header and the form body, so each
//! writes a list the same way.

use serde_json::Value;

use super::request::RenderError;

/// An argument's text where a header is written: a list's items joined by commas. An
/// item with a space or tab at either edge is refused: a field value has none (RFC 9110
/// section 5.5) and a list's parser drops it around each item (section 5.6.1), so the
/// server would read `admin` where the schema checked `" admin"`.
pub(super) fn comma_joined(header: &str, items: &[String]) -> Result<String, RenderError> {
    let edged = |item: &String| item.starts_with([' ', '\t']) || item.ends_with([' ', '\t']);
    if let Some(item) = items.iter().find(|item| edged(item)) {
        return Err(RenderError(format!(
            "the value {item:?} for header {header} has whitespace at its start or end, which \
             servers drop before reading it; send it without"
        )));
    }
    Ok(items.join(","))
}

/// An argument's text as a cookie's value in a `Cookie` header: a list's items joined
/// by commas, each item only RFC 6265's cookie octets (section 4.1.1: no space, `"`,
/// `,`, `;` or `\`, no control or non-ASCII byte). A `;` would end the pair and start
/// a cookie the tool does not set; an item's own comma would read as two items.
pub(super) fn cookie_value(items: &[String]) -> Result<String, RenderError> {
    let octet = |b: u8| matches!(b, 0x21 | 0x23..=0x2B | 0x2D..=0x3A | 0x3C..=0x5B | 0x5D..=0x7E);
    if let Some(item) = items.iter().find(|item| !item.bytes().all(octet)) {
        return Err(RenderError(format!(
            "the cookie value {item:?} holds a space, `;`, `,`, `\"`, `\\` or a character other than printable ASCII, which a cookie cannot carry; send it without"
        )));
    }
    Ok(items.join(","))
}

/// `text` encoded as `application/x-www-form-urlencoded` writes a name or a value.
pub(super) fn form_encoded(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A list in a query value or form field (OpenAPI's `form` style unexploded, Swagger
/// 2.0's `csv`): each item form-encoded, the commas between them literal, so a server
/// tells `a,b` (two items) from `a%2Cb` (one item holding a comma), as in a path.
pub(super) fn form_list(items: &[String]) -> String {
    items
        .iter()
        .map(|item| form_encoded(item))
        .collect::<Vec<_>>()
        .join(",")
}

/// A query value the description lets carry RFC 3986's reserved characters as written
/// (OpenAPI's `allowReserved: true`, written `{+name}` in a query template): `:/?[]@!$'()*+,;=`
/// are sent as they are, everything else is form-encoded. Three characters are still
/// encoded because they would change the query's structure rather than the value: `&`
/// (it would end the pair, and the rest would be a parameter of the caller's choosing),
/// `#` (it would end the query, and drop every parameter after it) and `%` (not
/// reserved: an escape the caller writes is sent as its text, so `%26` cannot become an
/// `&` either). `=` stays: a server splits a pair at its first `=`, so one in the value
/// is read as part of it. Between a list's items the comma is literal and an item's own
/// comma is encoded, as in [`form_list`], so `a,b` stays two items; a single value keeps
/// its commas.
pub(super) fn reserved_list(items: &[String]) -> String {
    let keep_commas = items.len() == 1;
    items
        .iter()
        .map(|item| reserved_encoded(item, keep_commas))
        .collect::<Vec<_>>()
        .join(",")
}

/// `text` with the reserved characters [`reserved_list`] keeps left as they are.
fn reserved_encoded(text: &str, keep_commas: bool) -> String {
    const KEPT: &[u8] = b"-._~:/?[]@!$'()*+;=";
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || KEPT.contains(&byte) || (keep_commas && byte == b',') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
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
pub(super) fn item_texts(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Null => None,
        Value::Array(items) => Some(items.iter().map(value_text).collect()),
        other => Some(vec![value_text(other)]),
    }
}

/// One value as text: a string as it is, a number as [`number_text`] writes it, the
/// rest as JSON.
pub(super) fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => number_text(n),
        other => other.to_string(),
    }
}

/// The largest integer every double holds exactly (2^53).
const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;

/// A number as a path, query, header or form field writes it. JSON reads `1e3`, `1000.0`
/// and `-0` as a float, which prints as `1000.0` and `-0.0`: a server that parses the
/// parameter as an integer refuses those (or, lenient, reads `1000.0` as `1000` and
/// `-0.0` as a negative number). A float that is a whole number an integer type holds
/// exactly is written as that integer, so the server reads the number the schema
/// checked; any other number as JSON writes it.
fn number_text(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(x) if n.is_f64() && x.fract() == 0.0 && x.abs() <= EXACT_INTEGERS => {
            // In range and whole, so the conversion is exact; `-0.0` becomes `0`.
            #[allow(clippy::cast_possible_truncation)]
            let whole = x as i64;
            whole.to_string()
        }
        _ => n.to_string(),
    }
}

/// The query pairs of an exploded argument (`{name*}`): a list is the parameter once per
/// item, an object one parameter per member (OpenAPI `style: form, explode: true`),
/// anything else the parameter once; absent or `null` is no parameter. A member that is
/// itself a list is exploded the same way, its name once per item (`status=a&status=b`):
/// joined into one value its commas would be encoded, and the server would read one
/// item holding commas.
pub(super) fn exploded<'a>(name: &'a str, value: Option<&'a Value>) -> Vec<(&'a str, String)> {
    let each = |key: &'a str, items: &'a [Value]| {
        items
            .iter()
            .filter_map(move |item| Some((key, scalar_text(item)?)))
    };
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => each(name, items).collect(),
        Some(Value::Object(members)) => members
            .iter()
            .flat_map(|(k, v)| match v {
                Value::Array(items) => each(k.as_str(), items).collect::<Vec<_>>(),
                other => scalar_text(other)
                    .map(|t| (k.as_str(), t))
                    .into_iter()
                    .collect(),
            })
            .collect(),
        Some(other) => scalar_text(other).map(|t| (name, t)).into_iter().collect(),
    }
}
