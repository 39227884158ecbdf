//! An argument in the URL path: encoded within its segment, or for `{+name}` into
//! segments of its own, and refused when it could name `.` or `..`. Apart because it is
//! what keeps the model inside the tool's path.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use super::dot_segments::could_name_a_dot_segment;
use super::request::RenderError;

/// Everything but RFC 3986 unreserved characters is encoded inside a path segment.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// An argument's text in the path: `{+name}` as segments of its own, anything else as
/// one segment, each list item encoded on its own and the separating commas kept
/// literal. A value that is empty or could name `.` or `..` is refused.
pub(super) fn path_text(items: &[String], segments: bool) -> Result<String, RenderError> {
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

/// Why a value that could name a `.` or `..` segment is refused, for the model.
const CLIMBS: &str = ": it has a `.` or `..` part as a server may read it (split at `/` or `\\`, \
     before a `;` or a NUL, percent-decoded, NFKC-normalised or with a Windows code page's \
     look-alikes of `/` and `\\`), which could name a path outside the tool's";

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
