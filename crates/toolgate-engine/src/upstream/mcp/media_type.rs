//! The media type of an `image` or `audio` content block.
//!
//! A client decides how to show a block's bytes by its `mimeType`: one that renders a
//! block as its media type says would render `text/html` or `application/javascript`
//! "image" data as a page or a script. So an `image` block's `mimeType` is an `image/…`
//! type and an `audio` block's an `audio/…` type, written as RFC 9110 writes a media type
//! (a token, `/`, a token, then optional parameters with no control characters).

/// Whether `mime` is a media type of the top-level type `kind` (`image` or `audio`).
pub(crate) fn is_of_kind(mime: &str, kind: &str) -> bool {
    let (essence, parameters) = mime.split_once(';').unwrap_or((mime, ""));
    let Some((top, sub)) = essence.trim_end().split_once('/') else {
        return false;
    };
    top.eq_ignore_ascii_case(kind)
        && is_token(sub)
        && !parameters
            .bytes()
            .any(|b| b.is_ascii_control() && b != b'\t')
}

/// An RFC 9110 token: one or more of its characters.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_media_block_declares_a_type_of_its_own_kind() {
        for ok in [
            "image/png",
            "IMAGE/JPEG",
            "image/svg+xml",
            "image/png; name=x",
        ] {
            assert!(is_of_kind(ok, "image"), "{ok}");
        }
        assert!(is_of_kind("audio/wav", "audio"));
        assert!(is_of_kind("audio/ogg; codecs=opus", "audio"));
        for bad in [
            "text/html",
            "application/javascript",
            "audio/wav",
            "image",
            "image/",
            "/png",
            "image/png\r\nx: y",
            "image/ png",
            "image/png; x=\u{1b}[2J",
            "",
        ] {
            assert!(!is_of_kind(bad, "image"), "{bad:?}");
        }
        assert!(!is_of_kind("image/png", "audio"));
    }
}
