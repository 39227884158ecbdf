//! Whether a link an upstream names points where its dependency is.
//!
//! An HTTP upstream names URLs beside its answers: a redirect's `Location`, a
//! deprecation's `successor-version`, `latest-version` and `deprecation` links. Only the
//! dependency's own scheme, host and port were written by the operator; a URL anywhere
//! else (a phishing "log in here", the cloud metadata address `169.254.169.254`, a
//! private address, the same host on another port) is one a model with a fetching tool
//! could be sent to. So a link reaches the model only when it is on that origin.

use url::Url;

/// Whether `link` (as `explain::link` cleaned it: an absolute `http(s)` URL, `//host/…`
/// or a path) points at `base`'s scheme, host and port. A path does; `//host/…` names
/// a host of its own, and is compared as what it is, a URL on `base`'s scheme.
pub(crate) fn on_own_origin(base: &Url, link: &str) -> bool {
    if link.starts_with('/') && !link.starts_with("//") {
        return true;
    }
    let target = if link.starts_with("//") {
        base.join(link)
    } else {
        Url::parse(link)
    };
    target.is_ok_and(|target| target.origin() == base.origin())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_path_or_a_url_on_the_dependencys_scheme_host_and_port_is_its_own() {
        let base = Url::parse("https://api.example.com/v1/").unwrap();
        for own in [
            "/v2/x",
            "https://api.example.com/v2",
            "HTTPS://API.example.com:443/v2",
        ] {
            assert!(on_own_origin(&base, own), "{own}");
        }
        for elsewhere in [
            "//api.example.com.evil.example/v2",
            "//evil.example/v2",
            "http://api.example.com/v2",
            "https://api.example.com:8443/v2",
            "https://169.254.169.254/latest/meta-data/",
            "https://evil.example/v2",
            "not a url",
        ] {
            assert!(!on_own_origin(&base, elsewhere), "{elsewhere}");
        }
        // `//host/…` read on the dependency's own scheme is its own when the host is.
        assert!(on_own_origin(&base, "//api.example.com/v2"));
    }
}
