//! Where a dependency's host name resolves, checked before toolgate connects to it.
//!
//! `check` refuses a URL whose host *is* a cloud metadata endpoint, a link-local,
//! unspecified or broadcast address (`toolgate_config::address`), but it does not
//! resolve names. A name that resolves there reaches the same place: a wildcard DNS
//! name (`169.254.169.254.nip.io`) written into an imported API description, a record
//! its owner points at the metadata service, or a name that answers differently at call
//! time than it did at `check` (DNS rebinding). So every connection toolgate opens for
//! a dependency or a fronted MCP server resolves the name itself and keeps only the
//! addresses that class allows; a name left with none is refused with a sentence that
//! names the address, and nothing is sent. A dependency that sets `allow_link_local:
//! true` connects wherever its name resolves, as `check` lets it.

use std::io;
use std::net::{IpAddr, SocketAddr};

use toolgate_config::address::{AddressKind, classify_host};
use url::Host;

/// The addresses `host` resolves to that toolgate may connect to, in the resolver's
/// order; an error naming the address when every one is refused.
pub(crate) async fn permitted(
    host: &str,
    port: u16,
    allow_link_local: bool,
) -> io::Result<Vec<SocketAddr>> {
    let all: Vec<SocketAddr> = tokio::net::lookup_host((host, port)).await?.collect();
    keep_permitted(host, all, allow_link_local)
}

/// [`permitted`] after the lookup.
fn keep_permitted(
    host: &str,
    all: Vec<SocketAddr>,
    allow_link_local: bool,
) -> io::Result<Vec<SocketAddr>> {
    if allow_link_local {
        return Ok(all);
    }
    let mut refused = None;
    let mut kept = Vec::with_capacity(all.len());
    for addr in all {
        let kind = kind_of(addr.ip());
        if kind.refused() {
            refused.get_or_insert((addr.ip(), kind));
        } else {
            kept.push(addr);
        }
    }
    match (kept.is_empty(), refused) {
        (true, Some((ip, kind))) => Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{host} resolves to {ip}, {}; toolgate does not connect there unless \
                 the dependency sets `allow_link_local: true`",
                kind.describe()
            ),
        )),
        _ => Ok(kept),
    }
}

fn kind_of(ip: IpAddr) -> AddressKind {
    match ip {
        IpAddr::V4(a) => classify_host(&Host::Ipv4(a)),
        IpAddr::V6(a) => classify_host(&Host::Ipv6(a)),
    }
}

/// The resolver of the pooled `reqwest` client (TLS, proxies, fronted MCP servers over
/// HTTP): [`permitted`] addresses only.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Guarded;

impl reqwest::dns::Resolve for Guarded {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let kept = permitted(&host, 0, false).await?;
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str) -> SocketAddr {
        SocketAddr::new(s.parse().unwrap(), 80)
    }

    #[test]
    fn a_name_that_resolves_only_to_a_refused_class_is_refused_by_its_address() {
        let err = keep_permitted(
            "169.254.169.254.nip.io",
            vec![addr("169.254.169.254")],
            false,
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        let msg = err.to_string();
        assert!(
            msg.contains("169.254.169.254.nip.io resolves to 169.254.169.254"),
            "{msg}"
        );
        assert!(msg.contains("metadata"), "{msg}");
        assert!(msg.contains("allow_link_local: true"), "{msg}");
        for refused in [
            "169.254.10.1",
            "0.0.0.0",
            "fe80::1",
            "::ffff:169.254.169.254",
        ] {
            assert!(
                keep_permitted("x.example", vec![addr(refused)], false).is_err(),
                "{refused}"
            );
        }
    }

    #[test]
    fn refused_addresses_are_dropped_and_the_rest_kept_in_order() {
        let kept = keep_permitted(
            "mixed.example",
            vec![
                addr("169.254.169.254"),
                addr("203.0.113.7"),
                addr("10.0.0.5"),
            ],
            false,
        )
        .unwrap();
        assert_eq!(kept, vec![addr("203.0.113.7"), addr("10.0.0.5")]);
        // Loopback and private networks are where internal APIs live.
        assert_eq!(
            keep_permitted("localhost", vec![addr("::1"), addr("127.0.0.1")], false).unwrap(),
            vec![addr("::1"), addr("127.0.0.1")]
        );
        // The dependency that allows link-local addresses connects wherever its name
        // resolves.
        assert_eq!(
            keep_permitted("meta.example", vec![addr("169.254.169.254")], true).unwrap(),
            vec![addr("169.254.169.254")]
        );
    }

    #[tokio::test]
    async fn localhost_resolves_and_is_permitted() {
        let kept = permitted("localhost", 8080, false).await.unwrap();
        assert!(!kept.is_empty());
        assert!(
            kept.iter()
                .all(|a| a.ip().is_loopback() && a.port() == 8080)
        );
    }
}
