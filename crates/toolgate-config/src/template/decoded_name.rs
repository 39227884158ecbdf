//! A name the caller chose, as a lenient server reads it: with its layers of
//! percent-encoding undone. Both the names compared with the tool's own
//! (`parameter_names.rs`) and the names refused for reaching a prototype
//! (`prototype_names.rs`) are read so.

use percent_encoding::percent_decode_str;

/// Layers of percent-encoding undone before comparing: the one every server undoes,
/// and one more for a proxy that decodes in front of the application.
const DECODED_LAYERS: usize = 2;

/// `name` with up to [`DECODED_LAYERS`] layers of percent-encoding undone, as a lenient
/// server (or a proxy that decodes once in front of it) reads a name the caller chose.
pub(super) fn decoded(name: &str) -> String {
    let mut text = name.to_owned();
    for _ in 0..DECODED_LAYERS {
        let decoded = percent_decode_str(&text).decode_utf8_lossy().into_owned();
        if decoded == text {
            break;
        }
        text = decoded;
    }
    text
}
