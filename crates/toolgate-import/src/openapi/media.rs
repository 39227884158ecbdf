//! Request body media types as descriptions write them. Besides the registered
//! `multipart/form-data`, some write `application/form-data`, a type no registry lists;
//! the fields under it are the parts of a multipart form (Mastodon's uploads, whose
//! `avatar` field is "encoded using multipart/form-data"), so it is read as one.

/// What the import says wherever it reads the unregistered spelling as a multipart form.
pub const READ_AS_MULTIPART: &str = "read as multipart/form-data";

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

/// `media` as the import names it in a skip reason or a note: the misspelling with how
/// it was read.
pub fn describe(media: &str) -> String {
    if is_misspelled_multipart(media) {
        format!("{media} ({READ_AS_MULTIPART})")
    } else {
        media.to_string()
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
}
