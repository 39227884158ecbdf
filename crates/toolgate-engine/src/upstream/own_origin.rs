//! Whether a link an upstream names points where its dependency is.
//!
//! An HTTP upstream names URLs beside its answers: a redirect's `Location`, a
//! deprecation's `successor-version`, `latest-version` and `deprecation` links. Only the
//! dependency's own scheme, host and port were written by the operator; a URL anywhere
//! else (a phishing "log in here", the cloud metadata address `169.254.169.254`, a
//! private address, the same host on another port) is one a model with a fetching tool
//! could be sent to. So a link reaches the model only when it is on that origin.
//!
//! An owner may admit more origins for a dependency's deprecation links (a separate
//! documentation host): `link_origins` for the owner's incident only, and
//! `model_link_origins` for the model too. The notice is kept with the links its
//! owner may read; what the model is told of it is [`for_model`].

use toolgate_config::Dependency;
use toolgate_signals::Deprecation;
use url::Url;

/// Whether `link` (as `explain::link` cleaned it: an absolute `http(s)` URL, `//host/…`
/// or a path) points at `base`'s scheme, host and port. A path does; `//host/…` names
/// a host of its own, and is compared as what it is, a URL on `base`'s scheme.
pub(crate) fn on_own_origin(base: &Url, link: &str) -> bool {
    origin_of(base, link).is_some_and(|origin| origin == base.origin())
}

/// Where `link` points, read as [`on_own_origin`] reads it; `None` when it does not
/// parse.
fn origin_of(base: &Url, link: &str) -> Option<url::Origin> {
    if link.starts_with('/') && !link.starts_with("//") {
        return Some(base.origin());
    }
    let target = if link.starts_with("//") {
        base.join(link)
    } else {
        Url::parse(link)
    };
    target.ok().map(|t| t.origin())
}

/// Whether a deprecation link of `dependency`'s upstream may be named to its owner:
/// on the dependency's own origin, or on one its `link_origins` or
/// `model_link_origins` admit.
pub(crate) fn for_owner(dependency: &Dependency, link: &str) -> bool {
    origin_of(&dependency.base_url, link).is_some_and(|origin| {
        origin == dependency.base_url.origin() || dependency.link_origins.for_owner(&origin)
    })
}

/// Whether a deprecation link of `dependency`'s upstream may be named to the model:
/// on the dependency's own origin, or on one its `model_link_origins` admit.
fn for_model_link(dependency: &Dependency, link: &str) -> bool {
    origin_of(&dependency.base_url, link).is_some_and(|origin| {
        origin == dependency.base_url.origin() || dependency.link_origins.for_model(&origin)
    })
}

/// The deprecation notice as the model may read it: the links only its owner was
/// admitted to read left out. The common case, no other origin admitted, is the
/// notice as kept (its links are all on the dependency's own origin already).
pub(crate) fn for_model(dependency: &Dependency, mut notice: Deprecation) -> Deprecation {
    if dependency.link_origins.owner.is_empty() {
        return notice;
    }
    notice.successor = notice.successor.filter(|l| for_model_link(dependency, l));
    notice.info = notice.info.filter(|l| for_model_link(dependency, l));
    notice
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
