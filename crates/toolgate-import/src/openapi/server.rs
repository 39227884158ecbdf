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

/// The path of a server URL whose origin is written as a placeholder for the reader
/// to fill in, in angle brackets (`protocol://hostname:<port>/switch`, Mojaloop's;
/// `<local-terminal-IP-address>`, Adyen's), rather than as a server variable: the
/// origin is the user's to give, the path is the API's. `None` for any other URL, and
/// when what follows the origin is not a path.
pub fn placeholder_origin(url: &str) -> Option<String> {
    let url = url.trim();
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let origin = &url[..url.len() - rest.len() + authority(rest).len()];
    let path = &url[origin.len()..];
    // The origin with each `<…>` read as a name: what is left must be URL text.
    let mut bracketed = false;
    let mut sample = String::with_capacity(origin.len());
    let mut inside: Option<String> = None;
    for c in origin.chars() {
        match (&mut inside, c) {
            (None, '<') => inside = Some(String::new()),
            (Some(text), '>') => {
                bracketed |= !text.trim().is_empty();
                sample.push('x');
                inside = None;
            }
            (Some(text), c) => text.push(c),
            (None, c) => sample.push(c),
        }
    }
    (bracketed
        && inside.is_none()
        && is_path(&sample)
        && (path.is_empty() || path.starts_with('/'))
        && is_path(path))
    .then(|| path.trim_end_matches('/').to_string())
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

/// Whether a server variable's default only stands in for the value the operator must
/// give: empty, the variable's own name (`{hostname}` defaulting to `HOSTNAME`,
/// `{subdomain}` to `subdomain`), a word for nothing (`none`, `unknown`), or a
/// placeholder host (`your-domain`, `discourse.example.com`). A variable naming a
/// credential (Telegram's `bot{token}`) is the operator's whatever its default says: a
/// default there is a sample key. A default among the variable's `enum` is a real choice.
pub fn placeholder_default(name: &str, variable: &serde_json::Value, default: &str) -> bool {
    if super::credentials::credential_word(name) {
        return true;
    }
    let listed = variable
        .get("enum")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|e| e.iter().any(|v| v.as_str() == Some(default)));
    if listed {
        return false;
    }
    let squash = |s: &str| -> String {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let d = default.trim().to_ascii_lowercase();
    d.is_empty()
        || squash(default) == squash(name)
        || NOTHING.contains(&d.as_str())
        || placeholder_host(&d)
        // A default is what the spec's author typed for the reader to replace: any
        // name under `example.com` is one (`discourse.example.com`).
        || host_labels(&d).iter().any(|l| l == "example")
        || sample_account(name, &d)
}

/// Whether a variable that names an account (`{accountName}`, `{tenant}`, `{store}`)
/// defaults to the vendor's sample of one (VTEX's `apiexamples`, a `demo-store`,
/// `acme`, `my-org`). The standard sends a default when no value is given, but such a
/// default only shows the form of a name: the calls would reach an account that is not
/// the operator's, where they fail or, worse, act.
fn sample_account(name: &str, default: &str) -> bool {
    const ACCOUNT: &[&str] = &[
        "account",
        "company",
        "customer",
        "instance",
        "merchant",
        "org",
        "organisation",
        "organization",
        "shop",
        "site",
        "store",
        "subdomain",
        "team",
        "tenant",
        "workspace",
    ];
    const SAMPLE: &[&str] = &["example", "sample", "demo", "acme", "dummy", "fake"];
    let words = super::credentials::words(name);
    if !words.iter().any(|w| ACCOUNT.contains(&w.as_str())) {
        return false;
    }
    let squashed: String = default
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    SAMPLE.iter().any(|s| squashed.contains(s))
        || squashed
            .strip_prefix("my")
            .is_some_and(|rest| ACCOUNT.iter().any(|a| rest.starts_with(a)))
}

/// Defaults that say there is no value.
const NOTHING: &[&str] = &[
    "none",
    "null",
    "nil",
    "unknown",
    "undefined",
    "n/a",
    "tbd",
    "todo",
    "changeme",
    "change-me",
    "placeholder",
    "string",
    "value",
    "xxx",
];

/// Whether the host of `url` (or `url` itself, a bare host) is a stand-in rather than
/// an address: the bare domains reserved for examples (RFC 2606: `example.com`,
/// `www.example.org`), a name under the reserved top-level ones (`*.example`, `*.test`,
/// `*.invalid`) or under `.local` (a name only a LAN's multicast DNS answers, which
/// APIs.guru also writes for a self-hosted product: `https://discourse.local`), or one
/// with a label written for the reader to replace
/// (`your-domain.com`, `api.yourcompany.net`, `xxx.api.com`). A host under
/// `example.com` (`api.example.com`) is taken as written: examples and tests name
/// their stand-in servers that way and mean them.
pub fn placeholder_host(url: &str) -> bool {
    let labels = host_labels(url);
    let bare_example = match labels.as_slice() {
        [l, _] | [_, l, _] if l == "example" => labels.len() == 2 || labels[0] == "www",
        _ => false,
    };
    bare_example || stand_in_host(url)
}

/// [`placeholder_host`] but for the bare example domains, which a second server of
/// a description (one operation's) names in examples and tests as a host of its own.
pub fn stand_in_host(url: &str) -> bool {
    let labels = host_labels(url);
    let Some(tld) = labels.last() else {
        return false;
    };
    labels.len() >= 2 && matches!(tld.as_str(), "example" | "test" | "invalid" | "local")
        || labels
            .iter()
            .any(|l| for_the_reader(l) || l.len() >= 3 && l.chars().all(|c| c == 'x'))
}

/// `your-domain`, `yourcompany`, `your_instance`: a host label addressed to the reader
/// (but not a name that merely starts with the letters, as `yourls` does).
fn for_the_reader(label: &str) -> bool {
    const NOUNS: &[&str] = &[
        "account",
        "api",
        "app",
        "bucket",
        "cluster",
        "company",
        "domain",
        "endpoint",
        "env",
        "host",
        "instance",
        "name",
        "org",
        "project",
        "region",
        "server",
        "service",
        "shop",
        "site",
        "store",
        "sub",
        "team",
        "tenant",
        "url",
        "workspace",
    ];
    let Some(rest) = label.strip_prefix("your") else {
        return false;
    };
    rest.is_empty() || rest.starts_with(['-', '_']) || NOUNS.iter().any(|n| rest.starts_with(n))
}

/// The labels of the host of `url` (or of `url`, a bare host), in lower case.
fn host_labels(url: &str) -> Vec<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.trim_start_matches('/');
    let authority = authority(rest);
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = strip_port(host).unwrap_or(host);
    if host.is_empty() {
        return Vec::new();
    }
    host.to_ascii_lowercase()
        .split('.')
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests;
