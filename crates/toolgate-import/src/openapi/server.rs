//! What a description's server URL means. Published descriptions write it every way:
//! `https://api.example.com/v1`, scheme-relative `//api.example.com`, a bare host
//! `api.example.com`, a path relative to where the description is served (`/v1`, or
//! `v1`), and sometimes text that is no address at all (`Your API URL`, `,`). Taking
//! each as a path behind the user's origin would pass `check` and call the wrong place.

/// A server URL, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Server {
    /// Scheme and host: `https://api.example.com/v1` (a scheme-relative or bare-host
    /// URL is given `https://`).
    Absolute(String),
    /// A path on an origin the description does not name: empty or starting with `/`.
    Relative(String),
    /// Neither an address nor a path.
    Unusable,
}

/// Classifies `url` (variables already at their defaults).
pub fn classify(url: &str) -> Server {
    let url = url.trim();
    if url.is_empty() {
        return Server::Relative(String::new());
    }
    if url.contains("://") {
        return absolute(url.to_string());
    }
    if url.starts_with("//") {
        // Scheme-relative: the scheme the description is served with, which is https
        // for every published one worth calling.
        return absolute(format!("https:{url}"));
    }
    if url.starts_with('/') {
        return if is_path(url) {
            Server::Relative(url.to_string())
        } else {
            Server::Unusable
        };
    }
    if is_domain(authority(url)) {
        return absolute(format!("https://{url}"));
    }
    let path = url.trim_start_matches("./");
    let starts_like_a_path = path
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '{' | '_' | '~' | '.'));
    if starts_like_a_path && is_path(path) {
        Server::Relative(format!("/{path}"))
    } else {
        Server::Unusable
    }
}

/// `url` if it parses as a URL with a host (server variables read as plain names).
fn absolute(url: String) -> Server {
    let mut sample = String::with_capacity(url.len());
    let mut in_variable = false;
    for c in url.chars() {
        match c {
            '{' => in_variable = true,
            '}' if in_variable => {
                in_variable = false;
                sample.push('x');
            }
            _ if in_variable => {}
            c => sample.push(c),
        }
    }
    let parsed = url::Url::parse(&sample);
    if parsed.is_ok_and(|u| u.host_str().is_some_and(|h| !h.is_empty())) && is_path(&url) {
        Server::Absolute(url)
    } else {
        Server::Unusable
    }
}

/// The host and port part of `rest` (what follows the scheme).
fn authority(rest: &str) -> &str {
    rest.split(['/', '?', '#']).next().unwrap_or("")
}

/// Whether a scheme-less URL starts with something that can only be a host: a dotted
/// name ending in an alphabetic top-level label (`api.example.com`, not `v1.2`),
/// `localhost` or an IPv4 address.
fn is_domain(authority: &str) -> bool {
    let Some(host) = strip_port(authority) else {
        return false;
    };
    if host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::Ipv4Addr>().is_ok() {
        return true;
    }
    let labels: Vec<&str> = host.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| is_label(l) || is_placeholder(l))
        && labels
            .last()
            .is_some_and(|tld| tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic()))
}

/// `host:443` → `host`, `[::1]:8443` → `[::1]`; `None` when what follows the host is
/// not a port (digits or a variable).
fn strip_port(authority: &str) -> Option<&str> {
    let (host, rest) = match authority.find(']') {
        Some(i) if authority.starts_with('[') => authority.split_at(i + 1),
        _ => match authority.find(':') {
            Some(i) => authority.split_at(i),
            None => (authority, ""),
        },
    };
    let port = match rest.strip_prefix(':') {
        Some(p) => p,
        None if rest.is_empty() => return Some(host),
        None => return None,
    };
    (!port.is_empty() && port.chars().all(|c| c.is_ascii_digit()) || is_placeholder(port))
        .then_some(host)
}

/// A DNS label: letters, digits, `-` (and `_`, which some internal names use).
fn is_label(label: &str) -> bool {
    !label.is_empty()
        && label
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
}

/// `{name}`: a server variable without a default.
fn is_placeholder(s: &str) -> bool {
    s.len() > 2 && s.starts_with('{') && s.ends_with('}') && !s[1..s.len() - 1].contains(['{', '}'])
}

/// Only characters a URL may hold (server variables' braces included, and non-ASCII
/// letters of an internationalised name): no spaces, quotes, angle brackets or
/// backslashes.
fn is_path(s: &str) -> bool {
    s.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || "-._~:/?#[]@!$&'()*+,;=%{}".contains(c)
            || !c.is_ascii() && !c.is_whitespace() && !c.is_control()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn absolute(s: &str) -> Server {
        Server::Absolute(s.to_string())
    }

    fn relative(s: &str) -> Server {
        Server::Relative(s.to_string())
    }

    #[test]
    fn every_kind_of_server_url_is_told_apart() {
        for (given, expected) in [
            (
                "https://api.example.com/v1",
                absolute("https://api.example.com/v1"),
            ),
            ("http://localhost:8080", absolute("http://localhost:8080")),
            (
                "https://{tenant}.example.com",
                absolute("https://{tenant}.example.com"),
            ),
            (
                "{scheme}://api.example.com",
                absolute("{scheme}://api.example.com"),
            ),
            ("https://[::1]:8443/x", absolute("https://[::1]:8443/x")),
            (
                "//api.abr.ato.gov.au",
                absolute("https://api.abr.ato.gov.au"),
            ),
            (
                "//api.example.com:8443/v2",
                absolute("https://api.example.com:8443/v2"),
            ),
            (
                "api.calorieninjas.com",
                absolute("https://api.calorieninjas.com"),
            ),
            ("api.example.com/v1", absolute("https://api.example.com/v1")),
            ("localhost:3000/api", absolute("https://localhost:3000/api")),
            ("10.0.0.1/api", absolute("https://10.0.0.1/api")),
            (
                "https://bücher.example/v1",
                absolute("https://bücher.example/v1"),
            ),
            ("", relative("")),
            ("/v1.33", relative("/v1.33")),
            ("/api/{version}", relative("/api/{version}")),
            ("v1", relative("/v1")),
            ("v1.2/api", relative("/v1.2/api")),
            ("./api", relative("/api")),
            ("Your API URL", Server::Unusable),
            (",", Server::Unusable),
            ("//", Server::Unusable),
            ("https://", Server::Unusable),
            ("https://exa mple.com", Server::Unusable),
            ("ht tp://example.com", Server::Unusable),
            ("/with space", Server::Unusable),
            ("<your server>", Server::Unusable),
        ] {
            assert_eq!(classify(given), expected, "{given:?}");
        }
    }
}
