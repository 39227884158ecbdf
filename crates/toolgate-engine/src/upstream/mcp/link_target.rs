//! Where a URI in a content block may point: a `resource_link`'s `uri` and an embedded
//! resource's `resource.uri`.
//!
//! A client shows such a URI as a link, opens it when the user follows it, or fetches
//! it itself (the specification says a server uses `https://` only for what the client
//! can fetch on its own). So a server that writes the URI chooses what the client's
//! machine does, and a link is refused when following it would do something other than
//! name a resource:
//! - a scheme whose URI runs or carries its own content (`javascript:`, `vbscript:`,
//!   `data:`, `blob:`): opened in a web view, it runs the server's script with the
//!   client's rights;
//! - user info before the host (`https://docs.example.com@evil.example/`): a reader
//!   takes the part before `@` for the host;
//! - a `file:` URI naming another machine (`file://host/share`, `file:////host/share`):
//!   opening it on Windows sends the user's credentials to that host over SMB;
//! - a host that is not on the public internet (loopback, a private network, link-local,
//!   a metadata endpoint, `localhost`, `.internal` names), which the client would reach
//!   from inside its own network, unless it is the server's own host and port.
//!
//! The URI is read as a browser reads it (the WHATWG URL parser): tabs and line breaks
//! inside it and control characters around it are dropped, a `\` is a `/` in web URLs,
//! and an IPv4 address in decimal, octal or hex is the address it spells. So
//! `java\tscript:`, `\u0001javascript:` and `http://2130706433/` are seen as what they
//! open. Custom schemes (`mem://`, `git://`, `file:///path`) stay as the server wrote
//! them.

use toolgate_config::address::{self, AddressKind};
use url::Url;

/// Schemes whose URIs run or carry their own content when opened.
const CONTENT_SCHEMES: [&str; 4] = ["javascript", "vbscript", "data", "blob"];

/// Why a block may not carry `uri`, or `None` when it may. `own` is the server's own
/// URL: its host and port are the one internal place a link may name (not another
/// port of the same machine, where a database or a container API may listen).
pub(crate) fn refusal(uri: &str, own: Option<&Url>) -> Option<String> {
    let Ok(url) = Url::parse(uri) else {
        return Some("is not an absolute URI".into());
    };
    let scheme = url.scheme();
    if CONTENT_SCHEMES.contains(&scheme) {
        return Some(format!(
            "has a `{scheme}:` URI, which runs or carries its own content when opened"
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Some("has a URI with user info before its host".into());
    }
    if scheme == "file" {
        let remote = url
            .host_str()
            .is_some_and(|h| !h.is_empty() && h != "localhost")
            || names_a_share(uri);
        return remote.then(|| "has a `file:` URI naming another machine".into());
    }
    let classified = address::classify_url(&url)?;
    let internal = !matches!(classified.kind, AddressKind::Public);
    let own = own.is_some_and(|own| {
        own.host() == url.host() && own.port_or_known_default() == url.port_or_known_default()
    });
    (internal && !own).then(|| {
        format!(
            "has a URI whose host is {}, which the client would reach from inside its network",
            classified.kind.describe()
        )
    })
}

/// Why a URL-mode elicitation may not send the user to `url`, or `None` when it may:
/// the user's browser opens it, so it is a web page (`http:` or `https:`) that
/// [`refusal`] would let a link name, with no internal host at all (the server's own
/// host is not known to the relay, and a page on a gateway's loopback is not the
/// user's).
pub(crate) fn visit_refusal(url: &str) -> Option<String> {
    if let Some(why) = refusal(url, None) {
        return Some(why);
    }
    let scheme = Url::parse(url)
        .map(|u| u.scheme().to_owned())
        .unwrap_or_default();
    (!matches!(scheme.as_str(), "http" | "https"))
        .then(|| format!("has a `{scheme}:` URL, not a web page's"))
}

/// Whether a `file:` URI starts its path with four or more slashes
/// (`file:////host/share`): the URL parser keeps no host for it, and a Windows client
/// opens it as the UNC path `\\host\share`. Read on the text as a browser reads it:
/// tabs and line breaks dropped, a `\` as a `/`.
fn names_a_share(uri: &str) -> bool {
    let text: String = uri
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let Some((_, after)) = text.split_once(':') else {
        return false;
    };
    after
        .chars()
        .take_while(|c| matches!(c, '/' | '\\'))
        .count()
        >= 4
}

#[cfg(test)]
mod tests;
